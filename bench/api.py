"""Benchmark of the game API over real HTTP against gunicorn (issue: API).

Starts gunicorn (gthread workers, the project's test settings, persistent database connections) on a bench
database of its own (``<DATABASE_URL's database>_bench_api``), seats one player per house-banked classic
table, and drives them with keep-alive HTTP connections, each connection one player playing his table (bet,
hit/stand, as his own ``you.legal_actions`` allows). Beside it, in the same run and against the same server, a
bare endpoint of the same stack (token auth, JSON, ``@idempotent``, one INSERT; bench/endpoint.py) gives the
baseline.

Prints, at 8 and 32 concurrent connections: requests per second, p50 and p99 latency of both, and the ratios;
then the CPU each request cost the gunicorn workers, the bench database's PostgreSQL backends and the load
generator (from /proc, over the same measurement). ``--profile`` also prints, in process: wall and CPU of both
requests interleaved, each statement's round trip and its backend's CPU (Linux schedstat), the statements of
each action and the cProfile top (``BENCH_PROFILE_OUT=file`` keeps the raw profile, ``BENCH_PROFILE_ROUNDS``
sets the rounds, ``BENCH_DUMP_SQL=file`` writes every statement as sent, for EXPLAIN).

``--waits`` samples what the database's backends wait on during the measurements.

The server side (the bench database, the seated players, gunicorn) is bench/api_server.py, the load
bench/api_load.py, the CPU accounting bench/cpu_meter.py and ``--profile`` bench/api_profile.py.

Usage: python -m devtools.devenv bench bench/api.py [--seconds 8] [--workers 2] [--threads 16] [--profile] [--waits]
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_load import bare_loop, player_loop, run_load  # noqa: E402
from bench.api_profile import profile  # noqa: E402
from bench.api_server import bench_database_url, free_port, seat_players, start_gunicorn  # noqa: E402
from bench.cpu_meter import CpuMeter  # noqa: E402

BENCH_SUFFIX = "_bench_api"  # <DATABASE_URL's database>_bench_api (bench/api_server.py)
Row = tuple[int, dict[str, float], dict[str, float]]  # (connections, the bare request's figures, the action's)


class WaitSampler:
    """Samples what the bench database's busy backends are doing (``pg_stat_activity``, every 50 ms) while a
    measurement runs: waiting for the application (``idle in transaction`` / ``ClientRead``, after which
    statement), on the WAL at commit, on a lock, or running. Shows where a request's milliseconds go server-side."""

    def __init__(self, database_url: str) -> None:
        import psycopg

        self.conn = psycopg.connect(database_url.replace("postgres://", "postgresql://", 1), autocommit=True)
        self.database = urlsplit(database_url).path.lstrip("/")
        self.counts: dict[str, dict[str, int]] = {}
        self.label = ""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while not self.stop.wait(0.05):
            if not self.label:
                continue
            rows = self.conn.execute(
                "SELECT state, coalesce(wait_event, 'running'), split_part(ltrim(query), ' ', 1), "
                "position('ledger_hand_entry' in query) > 0 FROM pg_stat_activity "
                "WHERE datname = %s AND state <> 'idle' AND pid <> pg_backend_pid()",
                [self.database],
            ).fetchall()
            bucket = self.counts.setdefault(self.label, {})
            for state, wait, verb, ledger in rows:
                after = "ledger_hand_entry" if ledger else verb
                key = f"waiting for the app after {after}" if wait == "ClientRead" else f"{state}: {wait} ({after})"
                bucket[key] = bucket.get(key, 0) + 1

    def report(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        print("\nwhat the bench database's busy backends were doing (share of samples):")
        for label, bucket in self.counts.items():
            total = sum(bucket.values()) or 1
            top = sorted(bucket.items(), key=lambda item: -item[1])[:6]
            print(f"  {label}: " + "; ".join(f"{key} {count / total:.0%}" for key, count in top))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=8.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--waits", action="store_true", help="sample pg_stat_activity during the measurements")
    args = parser.parse_args()

    database_url = bench_database_url(BENCH_SUFFIX)
    os.environ["DATABASE_URL"] = database_url
    seats = seat_players(32)
    port = free_port()
    server = start_gunicorn(port, args.workers, args.threads, database_url)
    sampler = WaitSampler(database_url) if args.waits else None
    try:
        rows = _measure(port, seats, args.seconds, CpuMeter(server.pid, database_url), sampler)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    _print_rows(rows, args)
    if sampler:
        sampler.report()
    if args.profile:
        profile(seats)


def _measure(
    port: int, seats: list[tuple[str, int]], seconds: float, meter: CpuMeter, sampler: WaitSampler | None
) -> list[Row]:
    """At 8, then 32 connections: the bare request, then the player action, each for ``seconds``."""
    rows = []
    for concurrency in (8, 32):
        chosen = seats[:concurrency]
        if sampler:
            sampler.label = f"{concurrency} connections, bare insert"
        bare = run_load(bare_loop, port, chosen, seconds, meter=meter)
        if sampler:
            sampler.label = f"{concurrency} connections, player action"
        game = run_load(player_loop, port, chosen, seconds, meter=meter)
        rows.append((concurrency, bare, game))
    return rows


def _print_rows(rows: list[Row], args: argparse.Namespace) -> None:
    """The table of rates, latencies and their ratios, then the CPU each request cost."""
    print(f"\ngunicorn gthread: {args.workers} workers x {args.threads} threads; {args.seconds:.0f} s per measurement")
    print(f"{'conns':>5} {'endpoint':<14} {'req/s':>8} {'p50 ms':>8} {'p99 ms':>8} {'errors':>6}")
    for concurrency, bare, game in rows:
        for name, r in (("bare insert", bare), ("player action", game)):
            print(f"{concurrency:>5} {name:<14} {r['rate']:>8.0f} {r['p50']:>8.1f} {r['p99']:>8.1f} {r['errors']:>6}")
        print(
            f"{'':>5} {'ratio':<14} {game['rate'] / bare['rate']:>8.2f} {game['p50'] / bare['p50']:>8.2f} "
            f"{game['p99'] / bare['p99']:>8.2f}   (action / bare: rate, p50, p99)"
        )
    print("\nCPU per request (ms; gunicorn workers, the bench database's PostgreSQL backends, the load generator):")
    for concurrency, bare, game in rows:
        for name, r in (("bare insert", bare), ("player action", game)):
            parts = "  ".join(f"{part} {r[f'cpu_{part}']:5.2f}" for part in ("gunicorn", "postgres", "client"))
            total = sum(r[f"cpu_{part}"] for part in ("gunicorn", "postgres", "client"))
            print(f"{concurrency:>5} {name:<14} {parts}  total {total:5.2f}")


if __name__ == "__main__":
    main()
