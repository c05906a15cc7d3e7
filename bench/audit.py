"""Benchmark of the game-output audit (issue #48: a month of 1,000,000 stored hands audited in under a minute).

Writes ``--hands`` settled hands straight into the event store of a database of its own (``<database>_audit_bench``)
with COPY: playing them through the service would take hours, so each hand is *synthetic*: dealt from a real seed
by the published shuffle, one punter at a classic house-banked table standing at 5 or more, the house banker's
fixed rule, settled by ``gamemath.scoring.settle_hand``, and stored as the events the pipeline writes for such a
hand (``HandOpened``, ``SeedCommitted``, ``BetPlaced``, ``BettingClosed``, ``ClientSeedFixed``, ``CardDealt``
for every card, ``HandStood``, ``HandSettled``) with its ``tables_hand`` row. No hash chain, ledger or other read
model (the audit reads none of them). Then, in the same run:

1. the baseline: the audit of the first ``--baseline`` hands (a shorter period);
2. the read alone: the audit's statement over every hand, records built, nothing computed;
3. the audit of every hand (``certify.services.audit_period``: read, shuffle each deck again, exact expectations).

The audit runs on every core from 50,000 hands (``certify.services.PARALLEL_FROM``, whole tables per process);
``--workers 1`` measures one process.

Usage: python -m devtools.devenv bench bench/audit.py [--hands 1000000] [--tables 10] [--baseline 10000]
       [--workers N] [--reuse]   (--reuse: audit the hands a previous run wrote, without writing them again)
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.store import _setup_database

START = datetime(2026, 11, 1, tzinfo=UTC)
STAKE = 10


def _hand_events(number: int, client_seed: str, rules):  # type: ignore[no-untyped-def]
    """The audited events of one synthetic hand: (type, data) in stream order, and the banker's net."""
    from gamemath.scoring import evaluate, house_banker_draws, settle_hand
    from gamemath.shuffle import shuffle_deck

    seed = hashlib.sha256(f"audit-bench:{number}:{client_seed}".encode()).digest()
    deck = shuffle_deck(seed, client_seed, number)
    events: list[tuple[str, dict]] = [
        ("HandOpened", {"number": number, "phase": "betting", "entrants": [1], "client_seed": "", "server_seed": ""}),
        ("SeedCommitted", {"number": number + 3, "seed_commitment": "0" * 64, "sealed_seed": "bench"}),
        ("BetPlaced", {"seat": 1, "hand": 0, "amount": STAKE, "stake": STAKE, "player_id": "1"}),
        ("BettingClosed", {"number": number}),
        ("ClientSeedFixed", {"number": number, "client_seed": client_seed}),
    ]

    def deal(index: int, banker: bool, face_up: bool) -> None:
        events.append(
            (
                "CardDealt",
                {
                    "number": number,
                    "seat": None if banker else 1,
                    "player_id": None if banker else "1",
                    "hand": 0,
                    "banker": banker,
                    "card": deck[index] if face_up else None,
                    "face_up": face_up,
                    "deck_index": index,
                },
            )
        )

    deal(0, False, False)
    deal(1, True, False)
    punter, banker, top = [deck[0]], [deck[1]], 2
    while (score := evaluate(punter, rules)).category == "points" and score.total_hp < 10:
        punter.append(deck[top])
        deal(top, False, True)
        top += 1
    events.append(("HandStood", {"seat": 1, "hand": 0, "banker": False, "reason": "action"}))
    banker_score = None
    if score.category != "bust":
        while house_banker_draws(banker_score := evaluate(banker, rules), rules):
            banker.append(deck[top])
            deal(top, True, True)
            top += 1
    settled = settle_hand(score, STAKE, banker_score, rules)
    result = {
        "seat": 1,
        "player_id": "1",
        "hand": 0,
        "bet": STAKE,
        "category": str(score.category),
        "total_half_points": score.total_hp,
        "matta_value": None,
        "outcome": str(settled.outcome),
        "tie": settled.tie,
        "multiplier": settled.multiplier,
        "net": settled.net,
    }
    events.append(("HandSettled", {"number": number, "results": [result], "server_seed": seed.hex()}))
    return events, -settled.net


def write_hands(table_ids: list[int], hands: int) -> None:
    """``hands`` synthetic hands spread over the tables, one second apart from ``START``, by COPY."""
    from django.db import connection

    from rules import resolve_rules

    rules = resolve_rules("classic")
    per_table = hands // len(table_ids)
    with connection.cursor() as cursor:
        cursor.execute("SELECT stream_id, max(version) FROM tables_event GROUP BY stream_id")
        next_version = {t: v + 1 for t, v in cursor.fetchall()}
    raw = connection.connection
    written = 0
    with raw.cursor() as cursor:
        with (
            cursor.copy(
                "COPY tables_event (stream_id, version, type, data, metadata, recorded_at, prev_hash, hash) FROM STDIN"
            ) as events,
        ):
            hand_rows = []
            for t, table_id in enumerate(table_ids):
                client_seed = hashlib.sha256(f"client:{table_id}".encode()).hexdigest()[:32]
                version = next_version[table_id]
                for number in range(1, per_table + 1):
                    at = START + timedelta(seconds=number * len(table_ids) + t)
                    hand_events, banker_net = _hand_events(number, client_seed, rules)
                    opened = version
                    for kind, data in hand_events:
                        events.write_row((table_id, version, kind, json.dumps(data), "{}", at, "", ""))
                        version += 1
                    closed = version - 1
                    hand_rows.append((table_id, number, "classic", "settled", opened, closed, at, at, banker_net))
                    written += 1
                    if written % 50_000 == 0:
                        print(f"  ... {written:,} hands generated", end="\r", flush=True)
        with cursor.copy(
            "COPY tables_hand (table_id, number, preset, status, opened_version, closed_version, opened_at, "
            "settled_at, banker_net, seed_commitment, house_banked, banker_username, disputed, start_schema) FROM STDIN"
        ) as rows:
            for row in hand_rows:
                rows.write_row((*row, "0" * 64, True, "", False, ""))
    raw.commit()
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE tables_event")
        cursor.execute("ANALYZE tables_hand")
    print()


def _reuse_database(suffix: str) -> None:
    """The database an earlier run of this bench wrote, as it is; Django set up."""
    from urllib.parse import urlsplit

    url = urlsplit(os.environ["DATABASE_URL"])
    os.environ["DATABASE_URL"] = url._replace(path=f"/{(url.path.lstrip('/') or 'casino') + suffix}").geturl()
    os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings_test"
    os.environ.setdefault("SECRET_KEY", "bench")
    import django

    django.setup()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=10)
    parser.add_argument("--baseline", type=int, default=10_000)
    parser.add_argument("--workers", type=int, help="processes (default: every core from 50,000 hands)")
    parser.add_argument("--reuse", action="store_true", help="audit the hands an earlier run wrote")
    args = parser.parse_args()
    if args.reuse:
        _reuse_database("_audit_bench")
    else:
        _setup_database("_audit_bench")
    from certify.hands import settled_hands
    from certify.services import audit_period
    from tables import services
    from tables.table_spec import TableSpec

    print(f"machine: {os.cpu_count()} cores, load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    if not args.reuse:
        spec = TableSpec.from_data({"preset": "classic", "bank": "house", "min_bet": 10, "max_bet": 10, "max_seats": 7})
        tables = [services.table_create(operator=None, name=f"audit {i}", spec=spec).pk for i in range(args.tables)]
        began = time.perf_counter()
        write_hands(tables, args.hands)
        print(f"{args.hands:,} synthetic hands written in {time.perf_counter() - began:.0f} s")
    end = START + timedelta(days=400)

    began = time.perf_counter()
    base = audit_period(START, START + timedelta(seconds=args.baseline + 1), workers=args.workers)
    baseline = time.perf_counter() - began
    print(f"baseline: {base.hands:,} hands audited in {baseline:.2f} s ({base.hands / baseline:,.0f} hands/s)")

    began = time.perf_counter()
    read = sum(1 for _ in settled_hands(START, end))
    reading = time.perf_counter() - began
    print(f"read alone: {read:,} hands read in {reading:.1f} s ({read / reading:,.0f} hands/s)")

    began = time.perf_counter()
    run = audit_period(START, end, workers=args.workers)
    seconds = time.perf_counter() - began
    flagged = run.flagged_tables or "none"
    print(f"audit: {run.hands:,} hands in {seconds:.1f} s ({run.hands / seconds:,.0f} hands/s); flagged: {flagged}")
    print(f"load average after: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
