"""Benchmark of the event store and command pipeline (issue: event store), against real PostgreSQL.

Prints:
  1. commands per second through the service (load -> decide -> append -> ledger -> read models -> commit),
     one thread, random play on several classic tables;
  2. the time to load a table with 10,000 settled hands against a fresh table (snapshot + current hand), and
     their ratio; plus the cost of a full fold without the snapshot, for scale;
  3. the time to verify one hand (on the fresh table and on the 10,000-hand table).

Usage: python -m devtools.devenv bench bench/store.py [--hands 10000] [--commands 3000]
(uses DATABASE_URL / REDIS_URL, or the embedded services; works in a database of its own, named after DATABASE_URL's:
<database>_bench).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _setup_database() -> None:
    import psycopg

    url = urlsplit(os.environ["DATABASE_URL"])
    bench_db = (url.path.lstrip("/") or "casino") + "_bench"  # this checkout's own: benches never share one
    maintenance = url._replace(path="/postgres").geturl().replace("postgres://", "postgresql://", 1)
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{bench_db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{bench_db}"')
    os.environ["DATABASE_URL"] = url._replace(path=f"/{bench_db}").geturl()
    os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings_test"
    os.environ.setdefault("SECRET_KEY", "bench")
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.TABLE_TIMERS = False  # no Celery worker in the bench
    call_command("migrate", verbosity=0)


def _players(n: int, prefix: str) -> list:  # type: ignore[type-arg]
    from django.contrib.auth import get_user_model

    from ledger import services as ledger

    User = get_user_model()
    cashier, _ = User.objects.get_or_create(username="bench-cashier", defaults={"is_staff": True})
    users = []
    for i in range(n):
        user = User.objects.create_user(username=f"{prefix}{i}")
        ledger.deposit(user=user, amount=10**8, reference="bench", operator=cashier, cause=f"bench:{prefix}{i}")
        users.append(user)
    return users


def _table(preset: str = "classic"):  # type: ignore[no-untyped-def]
    from tables import services
    from tables.table_spec import TableSpec

    return services.table_create(
        operator=None,
        name="bench",
        spec=TableSpec(
            preset=preset,
            min_bet=10,
            max_bet=100,
            max_seats=8,
            bank="player",
            turn_timeout_s=600,
            betting_timeout_s=600,
        ),
    )


def policy_step(table_id: int, users: dict[str, object], rng: random.Random, timed: list[float]) -> None:
    """One random sensible move through the service for whoever the table waits on."""
    from rules import DomainError, evaluate
    from tables import loader, services

    state = loader.load_table(table_id).state
    awaiting, hand = state.awaiting, state.hand
    assert awaiting is not None and hand is not None and state.config is not None

    def act(user: object, action: str, args: dict[str, int] | None = None) -> bool:
        start = time.perf_counter()
        try:
            services.table_act(table_id=table_id, user=user, action=action, args=args or {})  # type: ignore[arg-type]
            return True
        except DomainError:
            return False
        finally:
            timed.append(time.perf_counter() - start)

    if awaiting.kind == "bets":
        for h in hand.punters:
            if h.stake == 0:
                act(users[h.player_id], "bet", {"amount": rng.randint(10, 100)})
                return
        return
    seat = state.seat_at(awaiting.seat) if awaiting.seat is not None else None
    assert seat is not None
    user = users[seat.player_id]
    if awaiting.kind == "bet":
        act(user, "bet", {"amount": rng.randint(10, 100)})
    elif awaiting.kind == "banker":
        total = evaluate(hand.banker.cards, state.config.rules).total_hp
        act(user, "hit" if total < rng.randint(8, 14) else "stand")
    else:
        h = hand.find(awaiting.seat, awaiting.hand)  # type: ignore[arg-type]
        total = evaluate(h.cards, state.config.rules).total_hp if h is not None else 15
        act(user, "hit" if total < rng.randint(6, 14) else "stand")


def bench_commands(n_commands: int) -> None:
    from tables import services

    rng = random.Random(1)
    tables = []
    for t in range(4):
        table = _table()
        users = _players(5, f"c{t}-")
        for user in users:
            services.table_sit(table_id=table.pk, user=user)
        tables.append((table.pk, {str(u.pk): u for u in users}))
    timed: list[float] = []
    wall = time.perf_counter()
    while len(timed) < n_commands:
        table_id, users = rng.choice(tables)
        policy_step(table_id, users, rng, timed)
    wall = time.perf_counter() - wall
    print(
        f"commands through the service:  {len(timed) / sum(timed):8.0f} commands/s "
        f"(median {statistics.median(timed) * 1000:.2f} ms, p99 {sorted(timed)[int(len(timed) * 0.99)] * 1000:.2f} ms;"
        f" {len(timed)} commands, one thread)"
    )


def _history(table_id: int, users: list, hands: int) -> None:  # type: ignore[type-arg]
    """Write ``hands`` settled hands of random play to the table's stream fast: decided by the pure core with
    the recorded commands and appended with the hash chain, 500 hands per statement, without ledger postings
    or per-hand read models (the load measured below reads only the snapshot and the stream)."""
    import hashlib

    from django.db import transaction
    from django.utils import timezone

    from gamemath.chainhash import HASH_FORM
    from rules import (
        Context,
        HandOpened,
        HandSettled,
        Hit,
        PlaceBet,
        Stand,
        command_to_json,
        context_to_json,
        evaluate,
        handle,
    )
    from tables import fairness, loader, projections, snapshots
    from tables.store import append

    loaded = loader.load_table(table_id)
    state, last_hash, written = loaded.state, loaded.last_hash, loaded.state
    rng = random.Random(7)
    wallets = {str(u.pk): 10**12 for u in users}
    settled = n = 0
    pending: list = []  # type: ignore[type-arg]
    last_open = None

    def flush() -> None:
        nonlocal last_hash, written
        with transaction.atomic():
            stored = append(
                stream_id=table_id,
                expected_version=written.version,
                prev_hash=last_hash,
                events=pending,
                recorded_at=timezone.now(),
            )
            last_hash, written = stored[-1].hash, state
            snapshots.save_snapshot(table_id, state, last_hash)
        pending.clear()

    while settled < hands:
        n += 1
        ctx = Context(
            now_ms=n,
            wallets=wallets,
            entropy=hashlib.sha256(str(n).encode()).hexdigest(),
            seeds=fairness.unseal_all(table_id, state.pledges),  # as the pipeline does (tables/decision.py)
            next_seeds=fairness.draw_next_seeds(table_id, state),
        )
        awaiting, hand = state.awaiting, state.hand
        assert awaiting is not None and hand is not None and state.config is not None, (awaiting, hand)
        if awaiting.kind == "bets":
            h = next(h for h in hand.punters if h.stake == 0)
            command = PlaceBet(player_id=h.player_id, amount=rng.randint(10, 100))
        else:
            pid = state.seat_at(awaiting.seat).player_id  # type: ignore[arg-type,union-attr]
            h = hand.find(awaiting.seat, awaiting.hand) if awaiting.kind != "banker" else None  # type: ignore[arg-type]
            cards = hand.banker.cards if h is None else h.cards
            total = evaluate(cards, state.config.rules).total_hp
            command = Hit(player_id=pid) if total < rng.randint(7, 13) else Stand(player_id=pid)
        before = state
        events, state = handle(command, state, ctx)
        meta = {"actor": command.player_id, "command_version": before.version + 1, "hash_form": HASH_FORM}
        command_json = command_to_json(command)
        first = {**meta, "command": command_json, "context": context_to_json(ctx)}
        pending.extend(
            loader.encode(e, first if i == 0 else meta, table_id=table_id) for i, e in enumerate(events)
        )
        for offset, event in enumerate(events, start=1):
            if isinstance(event, HandOpened):
                last_open = (before, before.version + offset, event)
        if any(isinstance(e, HandSettled) for e in events):
            settled += 1
            if settled % 500 == 0 or settled == hands:
                flush()
                print(f"  ... {settled} hands written", end="\r", flush=True)
    print()
    # the read model of the hand now in play, so the service can go on from here
    assert last_open is not None
    opened_before, opened_version, opened = last_open
    sink = projections.DatabaseSink()
    with transaction.atomic():
        hand_id = sink.open_hand(
            table_id,
            opened.number,
            {
                "preset": "classic",
                "opened_version": opened_version,
                "opened_at": timezone.now(),
                "seed_commitment": opened.seed_commitment,
                "banker_username": "",
                "house_banked": False,
                "start_version": opened_before.version,
                "start_state": opened_before,
            },
        )
        sink.update_lobby(table_id, projections.lobby_row(state, hand_id))


def _median_time(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_load_and_verify(hands: int, profile: bool = False) -> None:
    from django.db import connection

    from kit.statements import count_sent
    from tables import loader, services
    from tables.models import Hand
    from tables.verify import verify_hand

    fresh, big = _table(), _table()
    fresh_users, big_users = _players(5, "f"), _players(5, "b")
    for table, users in ((fresh, fresh_users), (big, big_users)):
        for user in users:
            services.table_sit(table_id=table.pk, user=user)
    print(f"writing {hands} settled hands of history to one table ...")
    started = time.perf_counter()
    _history(big.pk, big_users, hands)
    print(f"  ({time.perf_counter() - started:.0f} s)")
    # now play two hands on each through the real service, so both are mid-hand in the same way
    rng = random.Random(3)
    timed: list[float] = []
    for table, users in ((fresh, fresh_users), (big, big_users)):
        by_id = {str(u.pk): u for u in users}
        target = loader.load_table(table.pk).state.settled_through + 2
        while loader.load_table(table.pk).state.settled_through < target:
            policy_step(table.pk, by_id, rng, timed)
        for _ in range(3):  # a few moves into the next hand
            policy_step(table.pk, by_id, rng, timed)
    connection.ensure_connection()
    loader.forget_all()
    big_state = loader.load_table(big.pk)
    fresh_state = loader.load_table(fresh.pk)
    assert big_state.state.settled_through >= hands
    # interleaved, so drift in the machine's load hits both alike; first as a process that has not seen the
    # table (snapshot + events after it), then warm (this process's cache of the latest committed state)
    for label, forget in (("from the snapshot", True), ("warm process cache", False)):
        fresh_samples: list[float] = []
        big_samples: list[float] = []
        loader.load_table(fresh.pk), loader.load_table(big.pk)  # warm-up
        for _ in range(500):
            for table_id, samples in ((fresh.pk, fresh_samples), (big.pk, big_samples)):
                if forget:
                    loader.forget_all()
                start = time.perf_counter()
                loaded = loader.load_table(table_id)
                samples.append(time.perf_counter() - start)
                assert loaded.source == ("snapshot" if forget else "cache"), loaded.source
        t_fresh, t_big = statistics.median(fresh_samples), statistics.median(big_samples)
        print(
            f"load, {label}: fresh table ({fresh_state.state.settled_through} hands) {t_fresh * 1000:.3f} ms; "
            f"table with {big_state.state.settled_through} settled hands {t_big * 1000:.3f} ms; "
            f"ratio {t_big / t_fresh:.2f}"
        )
    from tables.models import Snapshot

    saved = Snapshot.objects.get(table_id=big.pk)
    Snapshot.objects.filter(table_id=big.pk).delete()
    loader.forget_all()
    t_full = _median_time(lambda: (loader.forget_all(), loader.load_table(big.pk)), 3)
    saved.save()
    print(f"  (for scale: the same table folded from its first event, no snapshot, no cache: {t_full * 1000:.0f} ms)")

    fresh_hand = Hand.objects.filter(table=fresh, status="settled").order_by("-number").first()
    big_hand = Hand.objects.filter(table=big, status="settled").order_by("-number").first()
    for label, hand in (("fresh table", fresh_hand), (f"{hands}-hand table", big_hand)):
        report = verify_hand(hand)
        assert report.ok, report
        verify_hand(hand, record=False)  # warm-up (first queries of the process)
        with count_sent(connection) as sent:
            verify_hand(hand, record=False)
        walls, cpus = [], []
        for _ in range(41):
            wall, cpu = time.perf_counter(), time.process_time()
            verify_hand(hand, record=False)
            walls.append(time.perf_counter() - wall)
            cpus.append(time.process_time() - cpu)
        print(
            f"verify one hand ({label}): median {statistics.median(walls) * 1000:.1f} ms, fastest "
            f"{min(walls) * 1000:.1f} ms, of which this process's CPU {statistics.median(cpus) * 1000:.1f} ms; "
            f"{len(sent)} statements"
        )
    started = time.perf_counter()
    for _ in range(10_000):
        sum(range(1000))
    print(
        f"(calibration: sum(range(1000)) takes {(time.perf_counter() - started) / 10_000 * 1e6:.0f} us here; "
        "20 us on the quiet development machine)"
    )
    if profile:
        import cProfile
        import pstats

        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(20):
            verify_hand(big_hand, record=False)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--commands", type=int, default=3000)
    parser.add_argument("--profile-verify", action="store_true", help="cProfile 20 verifications of one hand")
    args = parser.parse_args()
    _setup_database()
    bench_commands(args.commands)
    bench_load_and_verify(args.hands, args.profile_verify)


if __name__ == "__main__":
    main()
