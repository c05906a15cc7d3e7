"""Benchmark of the double-entry ledger (issue 4), against real PostgreSQL.

Prints:
  1. postings per second for reserve+settle cycles: one hand = 4 stake reserves (punter wallet and player banker
     wallet into the table's escrow, 3 postings each) + 1 settlement (escrow out to the parties), each service
     call its own committed transaction, as one game command is; one thread, then several threads on their own
     tables (player banks), then several threads on house-bank tables (each from its own house account);
  2. house-bank throughput on separate tables with 1, 4 and 16 threads: each table's own house account
     (house:bankroll:table:<id>) against one account shared by every table (the single hot row house:bankroll
     was), in the same run;
  3. the time to read an account's balance as its postings grow to a million (it must not grow with the
     count), against summing its postings for contrast, and the time to read its first /me/ledger page;
  4. reconcile over the whole bench database.

Usage: python -m devtools.devenv bench bench/ledger.py [--hands 400] [--threads 4] [--postings 1000000]
       [--house-hands 60] [--house-threads 1,4,16] [--only-house]
(uses DATABASE_URL / REDIS_URL, or the embedded services; works in a database of its own,
<DATABASE_URL's database>_ledger_bench, dropped and created afresh). The hands it plays are bench/ledger_hands.py's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.ledger_hands import play_hands, run_in_threads  # noqa: E402

BENCH_SUFFIX = "_ledger_bench"  # named after DATABASE_URL's database: checkouts never share it
BENCH_DB = ""  # set by setup_database
PUNTERS = 4


def setup_database() -> None:
    import psycopg

    global BENCH_DB
    url = urlsplit(os.environ["DATABASE_URL"])
    BENCH_DB = (url.path.lstrip("/") or "casino") + BENCH_SUFFIX
    maintenance = url._replace(path="/postgres").geturl().replace("postgres://", "postgresql://", 1)
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')
    os.environ["DATABASE_URL"] = url._replace(path=f"/{BENCH_DB}").geturl()
    os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings_test"  # plain connections, one per thread
    os.environ.setdefault("SECRET_KEY", "bench")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)


def make_players(prefix: str, n: int, chips: int) -> list[Any]:
    from django.contrib.auth import get_user_model

    from ledger import services

    user_model = get_user_model()
    cashier, _ = user_model.objects.get_or_create(username="bench-cashier", defaults={"is_staff": True})
    players = []
    for i in range(n):
        user = user_model.objects.create(username=f"{prefix}{i}")
        services.deposit(user=user, amount=chips, reference="bench", operator=cashier, cause=f"bench:{prefix}{i}")
        players.append(user)
    return players


def bench_house_bank(hands: int, thread_counts: tuple[int, ...]) -> None:
    """House-bank throughput on separate tables: each table banked by the house from its own bankroll account
    (house:bankroll:table:<id>), against the same play with one account banking every table (a player banker
    shared by all tables: one balance row every entry locks, as house:bankroll was before each table had its
    own), in the same run."""
    print(f"2. house bank on separate tables, {hands} hands per thread (4 stakes + 1 settlement each)")
    next_table = iter(range(20_000, 30_000))
    (shared,) = make_players("shared-bank", 1, 10**12)
    print(f"   {'threads':>7}  {'own house account: tx/s':>24}  {'one shared account: tx/s':>25}  {'ratio':>5}")
    for n_threads in thread_counts:
        rates = []
        for shared_banker in (None, shared):
            timings: dict[str, list[float]] = {"reserve_stake": [], "post_settlement": []}
            tables = [next(next_table) for _ in range(n_threads)]
            people = {table: make_players(f"h{table}-", PUNTERS + 1, 10**9) for table in tables}

            def work(i: int, tables=tables, people=people, timings=timings, banker=shared_banker) -> int:
                return play_hands(tables[i], people[tables[i]], hands, True, timings, shared_banker=banker)

            _, wall = run_in_threads(n_threads, work)
            rates.append((len(timings["reserve_stake"]) + len(timings["post_settlement"])) / wall)
        print(f"   {n_threads:>7}  {rates[0]:>24,.0f}  {rates[1]:>25,.0f}  {rates[0] / rates[1]:>5.2f}")


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def bench_cycles(hands: int, threads: int) -> None:
    from django.db import connection

    print(f"1. reserve+settle cycles ({PUNTERS} stakes + 1 settlement per hand, each call its own transaction)")
    next_table = iter(range(1, 10_000))
    for label, n_threads, house, durable in (
        ("1 thread, player bank", 1, False, True),
        ("1 thread, player bank, synchronous_commit off (no wait for the WAL flush)", 1, False, False),
        (f"{threads} threads, player banks (own tables)", threads, False, True),
        (f"{threads} threads, house bank (each table its own house account)", threads, True, True),
    ):
        timings: dict[str, list[float]] = {"reserve_stake": [], "post_settlement": []}
        tables = [next(next_table) for _ in range(n_threads)]
        people = {table: make_players(f"t{table}-", PUNTERS + 1, 10**9) for table in tables}

        def work(i: int, tables=tables, people=people, house=house, durable=durable, timings=timings) -> int:
            if not durable:
                with connection.cursor() as cursor:
                    cursor.execute("SET synchronous_commit = off")
            return play_hands(tables[i], people[tables[i]], hands, house, timings)

        postings, wall = run_in_threads(n_threads, work)
        calls = len(timings["reserve_stake"]) + len(timings["post_settlement"])
        print(
            f"   {label}: {n_threads * hands} hands, {postings} postings, {calls} transactions in {wall:.1f} s"
            f" -> {postings / wall:,.0f} postings/s, {calls / wall:,.0f} transactions/s,"
            f" {n_threads * hands / wall:,.0f} hands/s"
        )
        for name, values in timings.items():
            values.sort()
            print(f"      {name}: median {ms(statistics.median(values))}, p95 {ms(values[int(len(values) * 0.95)])}")


def load_postings(owner: Any, account_id: int, cage_id: int, count: int, batch: int = 200_000) -> None:
    """Add ``count`` one-chip deposits into ``account_id`` (2 postings each), fast: with the triggers bypassed
    (as a superuser's bulk restore would), computing ``balance_after`` and the balance rows the way the triggers
    do. The reconcile at the end of the bench proves the result is exactly what the triggers would have written.
    (Through the triggers, many postings to one account inside one transaction are slow: each update of the
    balance row walks the row versions the same transaction left behind. The services never do that: a
    transaction posts to an account once.)"""
    from django.db import connection, transaction

    from ledger import services

    done = 0
    while done < count:
        size = min(batch, count - done)
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute("SET LOCAL session_replication_role = replica")
            start, cage_start = services.balance(services.wallet_for(owner)), services.balance("house:cage")
            cursor.execute(
                """
                WITH tx AS (
                    INSERT INTO ledger_transaction (kind, memo, cause, fingerprint, details, actor_id)
                    SELECT 'deposit', 'bench load', 'bench:load:' || g, '', '{}',
                           (SELECT id FROM auth_user WHERE username = 'bench-cashier')  -- a staff member's entry
                      FROM generate_series(%s, %s) g  -- causes numbered by the account's balance: unique
                    RETURNING id
                ), legs AS (
                    SELECT tx.id, leg.account_id, leg.amount,
                           row_number() OVER (PARTITION BY leg.account_id ORDER BY tx.id) AS n
                      FROM tx CROSS JOIN (VALUES (%s::bigint, 1::bigint), (%s::bigint, -1::bigint))
                           AS leg (account_id, amount)
                )
                INSERT INTO ledger_posting (transaction_id, account_id, amount, balance_after)
                SELECT id, account_id, amount,
                       CASE WHEN amount > 0 THEN %s + n ELSE %s - n END
                  FROM legs ORDER BY id, amount
                """,
                [start + 1, start + size, account_id, cage_id, start, cage_start],
            )
            cursor.execute("UPDATE ledger_balance SET balance = balance + %s WHERE account_id = %s", [size, account_id])
            cursor.execute("UPDATE ledger_balance SET balance = balance - %s WHERE account_id = %s", [size, cage_id])
        done += size


def timed_reads(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    for _ in range(3):  # warm up (query compilation, caches)
        fn()
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - started)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.99)]


def bench_balance_reads(postings: int, reads: int) -> None:
    from django.db import connection

    from ledger import services
    from ledger.accounts import house_account

    print(f"3. reading a balance as the account's postings grow to {postings:,}")
    (whale,) = make_players("whale", 1, 1)
    (minnow,) = make_players("minnow", 1, 1)
    whale_code, minnow_code = f"player:{whale.username}", f"player:{minnow.username}"
    cage_id = house_account("house:cage").pk
    whale_id = services.wallet_for(whale).pk

    def sum_postings() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT sum(amount) FROM ledger_posting WHERE account_id = %s", [whale_id])
            cursor.fetchone()

    def first_page(code: str = whale_code) -> None:
        rows = [services.ledger_row(p) for p in services.account_postings(code)[:50]]
        assert len(rows) == min(50, services.balance(code))

    checkpoints = [c for c in (1, 10_000, 100_000, postings) if c <= postings]
    loaded = 1  # the deposit made by make_players
    load_started = time.perf_counter()
    print(f"   {'postings':>10}  {'balance() median':>17}  {'p99':>9}  {'sum(postings)':>14}  {'/me/ledger page':>15}")
    for checkpoint in checkpoints:
        if checkpoint > loaded:
            load_postings(whale, whale_id, cage_id, checkpoint - loaded)
            loaded = checkpoint
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE ledger_posting")
        assert services.balance(whale_code) == checkpoint
        median, p99 = timed_reads(lambda: services.balance(whale_code), reads)
        summed, _ = timed_reads(sum_postings, 5 if checkpoint > 100_000 else 50)
        page, _ = timed_reads(first_page, 50)
        print(f"   {checkpoint:>10,}  {ms(median):>17}  {ms(p99):>9}  {ms(summed):>14}  {ms(page):>15}")
    print(f"   (bulk-loading {loaded:,} postings took {time.perf_counter() - load_started:.0f} s)")
    median, p99 = timed_reads(lambda: services.balance(minnow_code), reads)
    page, _ = timed_reads(lambda: first_page(minnow_code), 50)
    print(
        f"   an account with 1 posting, for comparison: balance() median {ms(median)}, p99 {ms(p99)};"
        f" its /me/ledger page {ms(page)}"
    )
    median, _ = timed_reads(lambda: services.wallet_balances([whale.pk, minnow.pk]), reads)
    print(f"   wallet_balances() of both (one query): median {ms(median)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=400, help="hands per thread and scenario (default 400)")
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--postings", type=int, default=1_000_000)
    parser.add_argument("--reads", type=int, default=2000)
    parser.add_argument("--house-hands", type=int, default=60, help="hands per thread, house-bank scenarios")
    parser.add_argument("--house-threads", default="1,4,16", help="thread counts of the house-bank scenarios")
    parser.add_argument("--only-house", action="store_true", help="run only the house-bank scenarios")
    args = parser.parse_args()
    if not os.environ.get("DATABASE_URL"):
        sys.exit("DATABASE_URL is not set: run it as `python -m devtools.devenv bench bench/ledger.py`")
    setup_database()
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SHOW server_version")
        (version,) = cursor.fetchone()
    print(f"PostgreSQL {version}, {os.cpu_count()} CPUs, database {BENCH_DB}")
    if not args.only_house:
        bench_cycles(args.hands, args.threads)
    bench_house_bank(args.house_hands, tuple(int(n) for n in args.house_threads.split(",")))
    if not args.only_house:
        bench_balance_reads(args.postings, args.reads)
    from ledger.reconcile import reconcile

    started = time.perf_counter()
    report = reconcile()
    print(
        f"4. reconcile of the whole bench database: {'ok' if report.ok else 'DIFFERENCES'} in"
        f" {time.perf_counter() - started:.1f} s ({report.counts['postings']:,} postings)"
    )
    if not report.ok:
        print(report.render())
        sys.exit(1)


if __name__ == "__main__":
    main()
