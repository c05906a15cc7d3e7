"""Benchmark of the event store and command pipeline (issue: event store), against real PostgreSQL.

Prints:
  1. commands per second through the service (load -> decide -> append -> ledger -> read models -> commit),
     one thread, random play on several classic tables;
  2. the time to load a table with 10,000 settled hands against a fresh table (snapshot + current hand), and
     their ratio; plus the cost of a full fold without the snapshot, for scale;
  3. the time to verify one hand (on the fresh table and on the 10,000-hand table).

Usage: python -m devtools.devenv bench bench/store.py [--hands 10000] [--commands 3000]
(uses DATABASE_URL / REDIS_URL, or the embedded services; works in a database of its own, named after DATABASE_URL's:
<database>_bench). The long history of section 2 is written by bench/store_history.py.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.store_history import write_history  # noqa: E402


def _setup_database(suffix: str = "_bench") -> None:
    """A fresh database of this bench's own (``<DATABASE_URL's database><suffix>``), migrated; Django set up."""
    import psycopg

    url = urlsplit(os.environ["DATABASE_URL"])
    bench_db = (url.path.lstrip("/") or "casino") + suffix  # this checkout's own: benches never share one
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


def _median_time(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def bench_load_and_verify(hands: int, profile: bool = False) -> None:
    """Sections 2 and 3: two tables mid-hand alike, one fresh and one with ``hands`` settled hands of history;
    loading each (from the snapshot, then warm), the big one folded from its first event, and verifying a hand of
    each."""
    from django.db import connection

    from tables import loader, services
    from tables.models import Hand

    fresh, big = _table(), _table()
    fresh_users, big_users = _players(5, "f"), _players(5, "b")
    for table, users in ((fresh, fresh_users), (big, big_users)):
        for user in users:
            services.table_sit(table_id=table.pk, user=user)
    print(f"writing {hands} settled hands of history to one table ...")
    started = time.perf_counter()
    write_history(big.pk, big_users, hands)
    print(f"  ({time.perf_counter() - started:.0f} s)")
    _play_into_the_next_hand(((fresh.pk, fresh_users), (big.pk, big_users)))
    connection.ensure_connection()
    loader.forget_all()
    big_state = loader.load_table(big.pk)
    fresh_state = loader.load_table(fresh.pk)
    assert big_state.state.settled_through >= hands
    _bench_loads(
        fresh.pk, big.pk, fresh_hands=fresh_state.state.settled_through, big_hands=big_state.state.settled_through
    )
    _bench_full_fold(big.pk)
    fresh_hand = Hand.objects.filter(table=fresh, status="settled").order_by("-number").first()
    big_hand = Hand.objects.filter(table=big, status="settled").order_by("-number").first()
    _bench_verify((("fresh table", fresh_hand), (f"{hands}-hand table", big_hand)))
    _print_calibration()
    if profile:
        _profile_verify(big_hand)


def _play_into_the_next_hand(tables: tuple[tuple[int, list], ...]) -> None:  # type: ignore[type-arg]
    """Play two hands on each table through the real service, then a few moves into the next, so both are
    mid-hand in the same way."""
    from tables import loader

    rng = random.Random(3)
    timed: list[float] = []
    for table_id, users in tables:
        by_id = {str(u.pk): u for u in users}
        target = loader.load_table(table_id).state.settled_through + 2
        while loader.load_table(table_id).state.settled_through < target:
            policy_step(table_id, by_id, rng, timed)
        for _ in range(3):  # a few moves into the next hand
            policy_step(table_id, by_id, rng, timed)


def _bench_loads(fresh_id: int, big_id: int, *, fresh_hands: int, big_hands: int) -> None:
    """Load both tables, interleaved, so drift in the machine's load hits both alike; first as a process that has
    not seen the table (snapshot + events after it), then warm (this process's cache of the latest committed
    state)."""
    from tables import loader

    for label, forget in (("from the snapshot", True), ("warm process cache", False)):
        fresh_samples: list[float] = []
        big_samples: list[float] = []
        loader.load_table(fresh_id), loader.load_table(big_id)  # warm-up
        for _ in range(500):
            for table_id, samples in ((fresh_id, fresh_samples), (big_id, big_samples)):
                if forget:
                    loader.forget_all()
                start = time.perf_counter()
                loaded = loader.load_table(table_id)
                samples.append(time.perf_counter() - start)
                assert loaded.source == ("snapshot" if forget else "cache"), loaded.source
        t_fresh, t_big = statistics.median(fresh_samples), statistics.median(big_samples)
        print(
            f"load, {label}: fresh table ({fresh_hands} hands) {t_fresh * 1000:.3f} ms; "
            f"table with {big_hands} settled hands {t_big * 1000:.3f} ms; "
            f"ratio {t_big / t_fresh:.2f}"
        )


def _bench_full_fold(table_id: int) -> None:
    """For scale: the table folded from its first event (its snapshot set aside, then put back)."""
    from tables import loader
    from tables.models import Snapshot

    saved = Snapshot.objects.get(table_id=table_id)
    Snapshot.objects.filter(table_id=table_id).delete()
    loader.forget_all()
    t_full = _median_time(lambda: (loader.forget_all(), loader.load_table(table_id)), 3)
    saved.save()
    print(f"  (for scale: the same table folded from its first event, no snapshot, no cache: {t_full * 1000:.0f} ms)")


def _bench_verify(hands: tuple[tuple[str, Any], ...]) -> None:
    """Verify each hand once for real (it must pass), then time 41 verifications that record nothing."""
    from django.db import connection

    from kit.statements import count_sent
    from tables.verify import verify_hand

    for label, hand in hands:
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


def _print_calibration() -> None:
    started = time.perf_counter()
    for _ in range(10_000):
        sum(range(1000))
    print(
        f"(calibration: sum(range(1000)) takes {(time.perf_counter() - started) / 10_000 * 1e6:.0f} us here; "
        "20 us on the quiet development machine)"
    )


def _profile_verify(hand: Any) -> None:
    """cProfile of 20 verifications of ``hand``."""
    import cProfile
    import pstats

    from tables.verify import verify_hand

    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(20):
        verify_hand(hand, record=False)
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
