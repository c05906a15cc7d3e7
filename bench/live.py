"""Benchmark of live delivery: floors of sockets subscribed to tables while bots play (issues #14, #33).

Recreates the database ``<DATABASE_URL's database>_bench_live``, seats one bot per house-banked classic table
(bench/api_server.py), starts gunicorn for the bots' REST actions (as bench/api.py) and the live server as
production runs it: uvicorn serving ``casino.asgi`` with ``--live-workers`` processes (default: one per core;
production settings: the connection pool on, DEBUG off). Each floor is ``TABLESxSOCKETS``: first its baseline,
one socket per table (no fan-out), then the floor's sockets spread evenly over the same tables (signed in as
``--watchers`` spectator accounts, from ``--clients`` client processes, each an asyncio loop). During each step
the bots play ``--seconds`` at ``--rate`` actions per second in all (each bot paced; 0: every bot as fast as
gunicorn answers), and every event each socket receives records the delay from its commit to its arrival
(bench/live_clients.py: the client processes, and what counts as an event's commit).

Prints per step: tables, sockets asked, connected and still open, the bots' actions per second, messages, events
and table views delivered per second, delivery p50/p99 of events and p99 of table views (from the commit time the
notification carries), deliveries whose commit was never heard (``unheard``), the live processes' CPU and their
CPU per delivered message.

Usage: python -m devtools.devenv bench bench/live.py [--floors 400x2000,32x2000] [--seconds 10] [--rate 80]
       [--live-workers N] [--clients 2] [--watchers 100]
"""

from __future__ import annotations

import argparse
import functools
import multiprocessing as mp
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_load import Client, next_action, player_loop, run_load  # noqa: E402
from bench.api_server import bench_database_url, free_port, seat_players, start_gunicorn  # noqa: E402
from bench.cpu_meter import cpu_of  # noqa: E402
from bench.live_clients import client_process  # noqa: E402

BENCH_SUFFIX = "_bench_live"  # <DATABASE_URL's database>_bench_live: never the API bench's database


def _spectator_tokens(count: int) -> list[str]:
    from django.contrib.auth import get_user_model
    from django.db import connections

    from kit.tokens import issue_token

    User = get_user_model()
    tokens = [issue_token(User.objects.create_user(username=f"watcher{i}")) for i in range(count)]
    connections.close_all()
    return tokens


def _start_uvicorn(port: int, database_url: str, workers: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DEBUG": "0",
        "SECURE_SSL_REDIRECT": "0",  # plain HTTP on 127.0.0.1 (production is HTTPS only)
        # gunicorn's (bench/api_server.py): the sealed snapshots one process writes are the others' to trust
        "SECRET_KEY": os.environ.get("SECRET_KEY", "bench"),
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "LIVE_MAX_OPEN_WAITS": "1000000",  # the per-user cap is not what is measured here
        # nor the cap on sockets waiting to authenticate (every client of the bench is 127.0.0.1: at issue #43's 20
        # per address most of a floor was closed 1013 while connecting, and measured as never connected)
        "LIVE_MAX_UNAUTHENTICATED": "1000000",
        "LIVE_MAX_UNAUTHENTICATED_PER_ADDRESS": "1000000",
        "LOG_LEVEL": "WARNING",
        "PYTHONPATH": str(ROOT),
    }
    command = [sys.executable, "-m", "uvicorn", "casino.asgi:application", "--host", "127.0.0.1",
               "--port", str(port), "--workers", str(workers), "--timeout-worker-healthcheck", "30",
               "--lifespan", "off", "--ws-per-message-deflate", "false", "--ws-max-size", "4096",
               "--log-level", "warning", "--no-access-log"]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    import urllib.request

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return proc
        except OSError:
            time.sleep(0.3)
    proc.kill()
    raise SystemExit("uvicorn did not start")


def _paced_player(
    port: int, token: str, table_id: int, stop: threading.Event, out: list[float], errors: list[int], *, interval: float
) -> None:  # fmt: skip
    """bench/api_load.py's player, one action every ``interval`` seconds at most (the floor's total rate is fixed)."""
    client = Client(port, token)
    status, table = client.request("GET", f"/api/v1/tables/{table_id}")
    next_at = time.monotonic() + random.uniform(0, interval)  # the tables do not all act in the same instant
    while not stop.is_set():
        action = next_action(table)
        if action is None:
            if stop.wait(0.05):
                return
            status, table = client.request("GET", f"/api/v1/tables/{table_id}")
            continue
        if stop.wait(max(0.0, next_at - time.monotonic())):
            return
        next_at = max(next_at + interval, time.monotonic())
        started = time.perf_counter()
        status, body = client.request("POST", f"/api/v1/tables/{table_id}/actions", action)
        if status == 200:
            out.append(time.perf_counter() - started)
            table = body["table"]  # type: ignore[assignment]
        else:
            errors.append(status)
            status, table = client.request("GET", f"/api/v1/tables/{table_id}")


def _server_pids(server_pid: int) -> list[int]:
    import psutil

    try:
        server = psutil.Process(server_pid)
        return [server_pid, *(child.pid for child in server.children(recursive=True))]
    except psutil.NoSuchProcess:
        return []


def _measure(
    server_pid: int, port: int, pattern: str, gport: int, seats: list[tuple[str, int]], tokens: list[str], sockets: int,
    clients: int, seconds: float, rate: float,
) -> dict[str, float]:  # fmt: skip
    tables = [table for _, table in seats]
    plan = [(tokens[i % len(tokens)], tables[i % len(tables)]) for i in range(sockets)]
    ready: mp.Queue = mp.Queue()
    out: mp.Queue = mp.Queue()
    measuring, stop = mp.Event(), mp.Event()
    procs = [
        mp.Process(
            target=client_process, args=(port, pattern, plan[c::clients], ready, measuring, stop, out), daemon=True
        )
        for c in range(clients)
    ]
    for proc in procs:
        proc.start()
    connected = sum(ready.get(timeout=180) for _ in procs)
    time.sleep(1.0)
    bots: dict[str, float] = {}
    loop = functools.partial(_paced_player, interval=len(seats) / rate) if rate > 0 else player_loop

    def play() -> None:
        bots.update(run_load(loop, gport, seats, seconds))

    player = threading.Thread(target=play)
    player.start()
    time.sleep(1.0)  # the bots' warm-up (run_load measures after 1 s)
    pids = _server_pids(server_pid)  # the live processes: uvicorn's supervisor and its workers
    cpu_before = cpu_of(pids)
    measuring.set()
    started = time.monotonic()
    player.join()
    elapsed = time.monotonic() - started
    server_cpu = (cpu_of(pids) - cpu_before) / elapsed
    measuring.clear()
    time.sleep(0.5)
    stop.set()
    results = [out.get(timeout=120) for _ in procs]
    for proc in procs:
        proc.join(timeout=30)
    delays = sorted(d for r in results for d in r["delays"])
    views = sorted(d for r in results for d in r["view_delays"])
    return {
        "sockets": sockets,
        "tables": len(tables),
        "connected": connected,
        "still_open": sum(r["still_open"] for r in results),
        "unheard": sum(r["unheard"] for r in results),
        "resubscribed": sum(r["resubscribed"] for r in results),
        "server_cpu": server_cpu * 100,
        "clients_cpu": sum(r["cpu"] for r in results) / elapsed * 100,
        "actions": bots.get("rate", 0.0),
        "messages": sum(r["messages"] for r in results) / elapsed,
        "events": len(delays) / elapsed,
        "p50": statistics.median(delays) * 1000 if delays else float("nan"),
        "p99": _p99(delays),
        "views": len(views) / elapsed,
        "view_p99": _p99(views),
    }


def _p99(delays: list[float]) -> float:
    """The 99th percentile of sorted ``delays`` (seconds), in milliseconds."""
    return delays[min(len(delays) - 1, int(len(delays) * 0.99))] * 1000 if delays else float("nan")


def _floors(text: str) -> list[tuple[int, int]]:
    """``"400x2000,32x2000"``: (tables, sockets) of each floor."""
    floors = []
    for part in text.split(","):
        tables, _, sockets = part.partition("x")
        floors.append((int(tables), int(sockets)))
    return floors


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--floors", default="400x2000,32x2000", help="TABLESxSOCKETS of each floor, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--rate", type=float, default=80.0, help="the bots' actions per second on every floor (0: "
                        "as fast as gunicorn answers, one closed-loop bot per table)")  # fmt: skip
    parser.add_argument("--live-workers", type=int, default=os.cpu_count() or 1, help="uvicorn processes")
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--watchers", type=int, default=100, help="spectator accounts the sockets sign in as")
    args = parser.parse_args()
    floors = _floors(args.floors)
    # a TERM (make's, a CI's timeout) stops the servers too: they run in sessions of their own
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    database_url = bench_database_url(BENCH_SUFFIX)
    os.environ["DATABASE_URL"] = database_url
    seats = seat_players(max(tables for tables, _ in floors))
    tokens = _spectator_tokens(args.watchers)
    from tables import notify

    pattern = notify.group_channel(0).replace("table.0", "table.*")
    gport, port = free_port(), free_port()
    gunicorn = start_gunicorn(gport, 2, 16, database_url)
    uvicorn = _start_uvicorn(port, database_url, args.live_workers)
    rows = []
    try:
        for tables, sockets in floors:
            for count in (tables, sockets):  # the baseline (one socket per table), then the floor
                row = _measure(uvicorn.pid, port, pattern, gport, seats[:tables], tokens, count, args.clients,
                               args.seconds, args.rate)  # fmt: skip
                row["baseline"] = count == tables
                rows.append(row)
                print(f"  {tables} tables, {count} sockets: p50 {row['p50']:.1f} ms, p99 {row['p99']:.1f} ms, "
                      f"views p99 {row['view_p99']:.1f} ms, unheard {row['unheard']}",
                      file=sys.stderr, flush=True)  # fmt: skip
    finally:
        for proc in (gunicorn, uvicorn):
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
    load = os.getloadavg()
    print(f"\n{args.live_workers} uvicorn process(es); one bot per table (gunicorn 2x16) at {args.rate:.0f} actions/s "
          f"in all; {args.seconds:.0f} s per step; load average {load[0]:.1f}")  # fmt: skip
    print("p50/p99: an event's delay from its commit (the time its notification carries) to its arrival; view p99: "
          "the same for the table message of its version; unheard: deliveries whose commit's notification never "
          "reached the client process (subscriptions dropped: resubscribed)")  # fmt: skip
    print(f"{'tables':>6} {'sockets':>7} {'connected':>9} {'open at end':>11} {'actions/s':>9} {'msgs/s':>8} "
          f"{'events/s':>8} {'views/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'view p99':>8} {'unheard':>7} "
          f"{'server CPU':>10} {'clients CPU':>11} {'server ms/msg':>13}")  # fmt: skip
    for r in rows:
        label = " (baseline: 1 per table)" if r["baseline"] else ""
        print(
            f"{r['tables']:>6} {r['sockets']:>7} {r['connected']:>9} {r['still_open']:>11} {r['actions']:>9.0f} "
            f"{r['messages']:>8.0f} {r['events']:>8.0f} {r['views']:>8.0f} {r['p50']:>7.1f} {r['p99']:>7.1f} "
            f"{r['view_p99']:>8.1f} {r['unheard']:>7} {r['server_cpu']:>9.0f}% {r['clients_cpu']:>10.0f}% "
            f"{r['server_cpu'] * 10 / max(r['messages'], 1):>13.2f}{label}"
        )
    short = [r for r in rows if r["connected"] < r["sockets"]]
    for r in short:
        print(f"NOTE: {r['tables']}x{r['sockets']}: only {r['connected']} of {r['sockets']} sockets connected")
    if any(r["resubscribed"] for r in rows):
        print(f"client subscriptions dropped and renewed: {sum(r['resubscribed'] for r in rows)}")


if __name__ == "__main__":
    main()
