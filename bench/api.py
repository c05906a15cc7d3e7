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

Usage: python -m devtools.devenv bench bench/api.py [--seconds 8] [--workers 2] [--threads 16] [--profile] [--waits]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
BENCH_SUFFIX = "_bench_api"  # the bench database is named after DATABASE_URL's: benches of several checkouts
# on one server never drop each other's database


def bench_db_name(url: str, suffix: str) -> str:
    """``<database of url><suffix>``: a database of this checkout's own."""
    return (urlsplit(url).path.lstrip("/") or "casino") + suffix


def wsgi_app():  # type: ignore[no-untyped-def]
    """gunicorn's app factory (``api:wsgi_app()``): the test settings, persistent connections, bench endpoint."""
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings_test")
    import django

    django.setup()
    from django.conf import settings

    settings.DATABASES["default"]["CONN_MAX_AGE"] = 600
    settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] = False
    settings.ROOT_URLCONF = "bench.endpoint"  # the production URLs and the bare endpoint (bench/endpoint.py)
    settings.TABLE_TIMERS = False
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()


# --- setup ------------------------------------------------------------------------------------------------------


def _bench_database_url() -> str:
    import psycopg

    url = urlsplit(os.environ["DATABASE_URL"])
    bench_db = bench_db_name(os.environ["DATABASE_URL"], BENCH_SUFFIX)
    maintenance = url._replace(path="/postgres").geturl().replace("postgres://", "postgresql://", 1)
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{bench_db}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{bench_db}"')
    return url._replace(path=f"/{bench_db}").geturl()


def _setup(players: int) -> list[tuple[str, int]]:
    """Migrate, then one funded player per house-banked classic table, seated; returns (token, table id)."""
    sys.path.insert(0, str(ROOT))
    os.environ["DJANGO_SETTINGS_MODULE"] = "casino.settings_test"
    os.environ.setdefault("SECRET_KEY", "bench")
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model

    settings.ROOT_URLCONF = "bench.endpoint"  # the bare endpoint in this process too (--profile)
    from django.core.management import call_command

    from kit.tokens import issue_token
    from ledger import services as ledger
    from tables import services
    from tables.table_spec import TableSpec

    settings.TABLE_TIMERS = False
    call_command("migrate", verbosity=0)
    from django.db import connection

    with connection.cursor() as cursor:  # the bare endpoint's table (bench.endpoint)
        cursor.execute(
            "CREATE TABLE bench_ping (id bigserial PRIMARY KEY, user_id bigint NOT NULL, at timestamptz DEFAULT now())"
        )
    User = get_user_model()
    cashier = User.objects.create_user(username="bench-cashier", is_staff=True)
    seats = []
    for i in range(players):
        user = User.objects.create_user(username=f"bench{i}")
        ledger.deposit(user=user, amount=10**9, reference="bench", operator=cashier, cause=f"bench:{i}")
        table = services.table_create(
            operator=cashier,
            name=f"bench {i}",
            spec=TableSpec(
                preset="classic",
                min_bet=10,
                max_bet=100,
                max_seats=2,
                bank="house",
                turn_timeout_s=3600,
                betting_timeout_s=3600,
            ),
        )
        services.table_sit(table_id=table.pk, user=user)
        seats.append((issue_token(user), table.pk))
    from django.db import connections

    connections.close_all()
    return seats


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_gunicorn(port: int, workers: int, threads: int, database_url: str) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "DJANGO_SETTINGS_MODULE": "casino.settings_test",
        "PYTHONPATH": str(ROOT),
        "SECRET_KEY": os.environ.get("SECRET_KEY", "bench"),
    }
    command = [
        sys.executable, "-m", "gunicorn", "--pythonpath", str(ROOT / "bench"), "api:wsgi_app()",
        "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread", "--workers", str(workers),
        "--threads", str(threads), "--keep-alive", "30", "--log-level", "warning",
    ]  # fmt: skip
    proc = subprocess.Popen(command, cwd=ROOT, env=env, start_new_session=True)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return proc
        except OSError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("gunicorn did not start")


# --- load ---------------------------------------------------------------------------------------------------------


class Client:
    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def request(self, method: str, path: str, body: object = None) -> tuple[int, dict[str, object]]:
        payload = json.dumps(body) if body is not None else None
        self.conn.request(method, path, body=payload, headers=self.headers)
        response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"null")


def _next_action(table: dict) -> dict[str, object] | None:  # type: ignore[type-arg]
    legal = table["you"]["legal_actions"]
    if "bet" in legal:
        return {"action": "bet", "amount": table["min_bet"]}
    if "hit" in legal or "stand" in legal:
        mine = next(p for p in table["hand"]["participants"] if p["seat"] == table["you"]["seat"])
        total = mine["hands"][0]["total_half_points"] or 0
        return {"action": "hit" if "hit" in legal and total < 9 else "stand"}
    return None


def _player_loop(
    port: int, token: str, table_id: int, stop: threading.Event, out: list[float], errors: list[int]
) -> None:
    client = Client(port, token)
    status, table = client.request("GET", f"/api/v1/tables/{table_id}")
    while not stop.is_set():
        action = _next_action(table)
        if action is None:
            status, table = client.request("GET", f"/api/v1/tables/{table_id}")
            continue
        started = time.perf_counter()
        status, body = client.request("POST", f"/api/v1/tables/{table_id}/actions", action)
        elapsed = time.perf_counter() - started
        if status == 200:
            out.append(elapsed)
            table = body["table"]  # type: ignore[assignment]
        else:
            errors.append(status)
            status, table = client.request("GET", f"/api/v1/tables/{table_id}")


def _bare_loop(
    port: int, token: str, table_id: int, stop: threading.Event, out: list[float], errors: list[int]
) -> None:
    client = Client(port, token)
    while not stop.is_set():
        started = time.perf_counter()
        status, _ = client.request("POST", "/api/v1/_bench/ping", {"n": 1})
        elapsed = time.perf_counter() - started
        (out.append(elapsed) if status == 200 else errors.append(status))


_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_of(pids: Iterable[int]) -> float:
    """CPU seconds (user + system) the processes ``pids`` have used so far (0 for one that is gone)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of proc(5))
    return total / _TICKS


class CpuMeter:
    """Where the machine's CPU goes during a measurement: the gunicorn workers, the bench database's PostgreSQL
    backends, and this process (the load generator), in CPU milliseconds per request."""

    def __init__(self, server_pid: int, database_url: str) -> None:
        import psycopg

        self.server_pid = server_pid
        self.database = urlsplit(database_url).path.lstrip("/")
        self.conn = psycopg.connect(database_url.replace("postgres://", "postgresql://", 1), autocommit=True)

    def _parts(self) -> dict[str, float]:
        children = subprocess.run(
            ["pgrep", "-P", str(self.server_pid)], capture_output=True, text=True, check=False
        ).stdout.split()
        backends = [
            row[0]
            for row in self.conn.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()", [self.database]
            ).fetchall()
        ]
        return {
            "gunicorn": _cpu_of([self.server_pid, *map(int, children)]),
            "postgres": _cpu_of(backends),
            "client": time.process_time(),
        }

    def start(self) -> None:
        self.before = self._parts()

    def stop(self, requests: int) -> dict[str, float]:
        after = self._parts()
        return {name: (after[name] - self.before[name]) * 1000 / max(requests, 1) for name in after}


def _run(  # type: ignore[no-untyped-def]
    loop, port: int, seats: list[tuple[str, int]], seconds: float, warmup: float = 1.0, meter: CpuMeter | None = None
) -> dict[str, float]:
    latencies: list[list[float]] = [[] for _ in seats]
    errors: list[int] = []
    stop = threading.Event()
    threads = [
        threading.Thread(target=loop, args=(port, token, table, stop, latencies[i], errors), daemon=True)
        for i, (token, table) in enumerate(seats)
    ]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 120  # every connection served once (cold workers on a loaded machine), then warm up
    while time.monotonic() < deadline and not all(latencies) and not errors:
        time.sleep(0.1)
    time.sleep(warmup)
    for lat in latencies:
        lat.clear()
    if meter:
        meter.start()
    started = time.perf_counter()
    time.sleep(seconds)
    measured = [list(lat) for lat in latencies]
    elapsed = time.perf_counter() - started
    cpu = meter.stop(sum(len(lat) for lat in measured)) if meter else {}
    stop.set()
    for thread in threads:
        thread.join(timeout=30)
    flat = sorted(x for lat in measured for x in lat)
    if not flat:
        raise SystemExit(f"no successful request (errors: {errors[:10]})")
    return {
        "rate": len(flat) / elapsed,
        "p50": statistics.median(flat) * 1000,
        "p99": flat[min(len(flat) - 1, int(len(flat) * 0.99))] * 1000,
        "count": len(flat),
        "errors": len(errors),
        **{f"cpu_{name}": value for name, value in cpu.items()},
    }


def rows_wc(rows: list[tuple[float, float, int]]) -> list[tuple[float, float]]:
    return [(wall, cpu) for wall, cpu, _ in rows]


def _profile(seats: list[tuple[str, int]]) -> None:
    """Queries and the cProfile top of one player action, in process (APIClient through the whole stack)."""
    import cProfile
    import io
    import pstats

    from django.db import connection
    from rest_framework.test import APIClient

    from kit.statements import count_sent

    token, table_id = seats[0]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    table = client.get(f"/api/v1/tables/{table_id}").json()
    profiler = cProfile.Profile()
    queries: dict[str, list[list[str]]] = {}
    for _ in range(200):
        action = _next_action(table)
        if action is None:
            table = client.get(f"/api/v1/tables/{table_id}").json()
            continue
        with count_sent(connection) as sent:
            profiler.enable()
            table = client.post(f"/api/v1/tables/{table_id}/actions", action, format="json").json()["table"]
            profiler.disable()
        queries.setdefault(str(action["action"]), []).append([sql[:100] for sql in sent.statements])

    # where an action's milliseconds go against the bare request's: interleaved, in process (no HTTP, no
    # gunicorn), wall time = this process's CPU + waiting (on PostgreSQL, and on the CPU other processes hold)
    costs: dict[str, list[tuple[float, float, int]]] = {"bare insert": [], "player action": []}
    # wall time of each statement Django's cursors send, by its first words (a round trip: the server's work,
    # the network, and the wait for this process's thread)
    per_statement: dict[str, dict[str, list[float]]] = {"bare insert": {}, "player action": {}}
    server_cpu: dict[str, dict[str, list[float]]] = {"bare insert": {}, "player action": {}}
    current: list[str] = ["bare insert"]

    def backend_cpu_ns() -> int:  # the CPU time of this connection's PostgreSQL backend (Linux schedstat)
        try:
            with open(f"/proc/{connection.connection.info.backend_pid}/schedstat") as stat:
                return int(stat.read().split()[0])
        except (OSError, AttributeError):
            return 0

    client_cpu: dict[str, dict[str, list[float]]] = {"bare insert": {}, "player action": {}}

    def timed(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        cpu_before = backend_cpu_ns()
        started, own_before = time.perf_counter(), time.thread_time()
        if os.environ.get("BENCH_DUMP_SQL") and params is not None:  # the statements as sent, for EXPLAIN
            with open(os.environ["BENCH_DUMP_SQL"], "a") as dump:
                sent = context["cursor"].cursor.mogrify(sql, params)
                dump.write(json.dumps({"request": current[0], "sql": sent}) + "\n")
        try:
            return execute(sql, params, many, context)
        finally:
            key = " ".join(sql.split()[:3])[:40]
            per_statement[current[0]].setdefault(key, []).append(time.perf_counter() - started)
            client_cpu[current[0]].setdefault(key, []).append(time.thread_time() - own_before)
            server_cpu[current[0]].setdefault(key, []).append((backend_cpu_ns() - cpu_before) / 1e9)

    connection.execute_wrappers.append(timed)
    for _ in range(int(os.environ.get("BENCH_PROFILE_ROUNDS", "200"))):
        action = _next_action(table)
        if action is None:
            table = client.get(f"/api/v1/tables/{table_id}").json()
            continue
        for name, path, body in (
            ("bare insert", "/api/v1/_bench/ping", {"n": 1}),
            ("player action", f"/api/v1/tables/{table_id}/actions", action),
        ):
            current[0] = name
            with count_sent(connection) as sent:
                wall, cpu = time.perf_counter(), time.process_time()
                answer = client.post(path, body, format="json").json()
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            costs[name].append((wall, cpu, len(sent)))
            if name == "player action":
                table = answer["table"]
    print("\nin process, interleaved (median per request):")
    for name, rows in costs.items():
        walls, cpus, counts = zip(*rows, strict=True)
        print(
            f"  {name:<14} wall {statistics.median(walls) * 1000:6.2f} ms  CPU {statistics.median(cpus) * 1000:6.2f} ms"
            f"  waiting {statistics.median(w - c for w, c in rows_wc(rows)) * 1000:6.2f} ms"
            f"  statements {statistics.mean(counts):.1f}"
        )
    connection.execute_wrappers.remove(timed)
    print("\nround trips through Django's cursors (total ms per request, median ms per statement):")
    for name, statements in per_statement.items():
        requests = len(costs[name]) or 1
        for key, walls in sorted(statements.items(), key=lambda item: -sum(item[1])):
            cpus = server_cpu[name][key]
            print(
                f"  {name:<14} {key:<40} {sum(walls) * 1000 / requests:6.2f} ms/request"
                f"  median {statistics.median(walls) * 1000:6.2f} ms  x{len(walls) / requests:.2f}"
                f"  server CPU {sum(cpus) * 1000 / requests:5.2f} ms/request"
                f"  client CPU {sum(client_cpu[name][key]) * 1000 / requests:5.2f} ms/request"
            )
    for name, runs in queries.items():
        counts = sorted(len(q) for q in runs)
        print(
            f"\n{name}: {len(runs)} actions, statements per action (at the wire, BEGIN/COMMIT included) "
            f"min {counts[0]} max {counts[-1]} mean {statistics.mean(counts):.1f}; the largest:"
        )
        for sql in max(runs, key=len):
            print("   ", sql)
    if os.environ.get("BENCH_PROFILE_OUT"):  # the raw profile, for pstats or snakeviz
        profiler.dump_stats(os.environ["BENCH_PROFILE_OUT"])
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats("cumulative").print_stats(40)
    pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(25)
    print(stream.getvalue())


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

    database_url = _bench_database_url()
    os.environ["DATABASE_URL"] = database_url
    seats = _setup(32)
    port = _free_port()
    server = _start_gunicorn(port, args.workers, args.threads, database_url)
    rows = []
    sampler = WaitSampler(database_url) if args.waits else None
    meter = CpuMeter(server.pid, database_url)
    try:
        for concurrency in (8, 32):
            chosen = seats[:concurrency]
            if sampler:
                sampler.label = f"{concurrency} connections, bare insert"
            bare = _run(_bare_loop, port, chosen, args.seconds, meter=meter)
            if sampler:
                sampler.label = f"{concurrency} connections, player action"
            game = _run(_player_loop, port, chosen, args.seconds, meter=meter)
            rows.append((concurrency, bare, game))
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
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
    if sampler:
        sampler.report()
    if args.profile:
        _profile(seats)


if __name__ == "__main__":
    main()
