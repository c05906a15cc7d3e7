"""``bench/api.py --profile``: where one player action's milliseconds go against the bare request's, in process
(Django's test client through the whole stack: no HTTP, no gunicorn).

Prints the median wall and CPU time of both requests, interleaved (wall time = this process's CPU + waiting, on
PostgreSQL and on the CPU other processes hold); each statement's round trip through Django's cursors with its
backend's CPU (Linux schedstat) and this process's; the statements of each kind of action; the cProfile top.
``BENCH_PROFILE_ROUNDS`` sets the interleaved rounds, ``BENCH_PROFILE_OUT=file`` keeps the raw profile,
``BENCH_DUMP_SQL=file`` writes every statement as sent (for EXPLAIN), ``BENCH_PROFILE_CPU=1`` has cProfile count
this thread's CPU time instead of wall time (what the action costs gunicorn, without the waits on PostgreSQL).
"""

from __future__ import annotations

import cProfile
import io
import json
import os
import pstats
import statistics
import time
from typing import Any

from bench.api_load import next_action

BARE, ACTION = "bare insert", "player action"
Costs = dict[str, list[tuple[float, float, int]]]  # (wall s, CPU s, statements) of each request, by kind


def profile(seats: list[tuple[str, int]]) -> None:
    """Queries and the cProfile top of one player action, in process (APIClient through the whole stack)."""
    from django.db import connection
    from rest_framework.test import APIClient

    token, table_id = seats[0]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    table = client.get(f"/api/v1/tables/{table_id}").json()
    profiler = cProfile.Profile(time.thread_time) if os.environ.get("BENCH_PROFILE_CPU") else cProfile.Profile()
    table, queries = _profiled_actions(client, table_id, table, profiler)
    timer = StatementTimer(connection)
    connection.execute_wrappers.append(timer)
    costs = _interleaved(client, table_id, table, timer)
    _print_costs(costs)
    connection.execute_wrappers.remove(timer)
    _print_round_trips(timer, costs)
    _print_statements(queries)
    _print_profile(profiler)


def _profiled_actions(
    client: Any, table_id: int, table: dict[str, Any], profiler: cProfile.Profile
) -> tuple[dict[str, Any], dict[str, list[list[str]]]]:
    """Play 200 rounds with ``profiler`` on during each action; returns the table as it is now and the statements
    each action sent (their first 100 characters), by action."""
    from django.db import connection

    from kit.statements import count_sent

    queries: dict[str, list[list[str]]] = {}
    for _ in range(200):
        action = next_action(table)
        if action is None:
            table = client.get(f"/api/v1/tables/{table_id}").json()
            continue
        with count_sent(connection) as sent:
            profiler.enable()
            table = client.post(f"/api/v1/tables/{table_id}/actions", action, format="json").json()["table"]
            profiler.disable()
        queries.setdefault(str(action["action"]), []).append([sql[:100] for sql in sent.statements])
    return table, queries


class StatementTimer:
    """An execute wrapper of Django's connection: the wall time of each statement its cursors send (a round trip:
    the server's work, the network, and the wait for this process's thread), this thread's CPU, and the CPU of the
    connection's PostgreSQL backend, by the statement's first words and the kind of request running (``current``)."""

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.current = BARE
        self.wall: dict[str, dict[str, list[float]]] = {BARE: {}, ACTION: {}}
        self.client_cpu: dict[str, dict[str, list[float]]] = {BARE: {}, ACTION: {}}
        self.server_cpu: dict[str, dict[str, list[float]]] = {BARE: {}, ACTION: {}}

    def _backend_cpu_ns(self) -> int:
        """The CPU time of this connection's PostgreSQL backend (Linux schedstat)."""
        try:
            with open(f"/proc/{self.connection.connection.info.backend_pid}/schedstat") as stat:
                return int(stat.read().split()[0])
        except (OSError, AttributeError):
            return 0

    def __call__(self, execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        cpu_before = self._backend_cpu_ns()
        started, own_before = time.perf_counter(), time.thread_time()
        if os.environ.get("BENCH_DUMP_SQL") and params is not None:  # the statements as sent, for EXPLAIN
            with open(os.environ["BENCH_DUMP_SQL"], "a") as dump:
                sent = context["cursor"].cursor.mogrify(sql, params)
                dump.write(json.dumps({"request": self.current, "sql": sent}) + "\n")
        try:
            return execute(sql, params, many, context)
        finally:
            key = " ".join(sql.split()[:3])[:40]
            self.wall[self.current].setdefault(key, []).append(time.perf_counter() - started)
            self.client_cpu[self.current].setdefault(key, []).append(time.thread_time() - own_before)
            self.server_cpu[self.current].setdefault(key, []).append((self._backend_cpu_ns() - cpu_before) / 1e9)


def _interleaved(client: Any, table_id: int, table: dict[str, Any], timer: StatementTimer) -> Costs:
    """A bare request then a player action, ``BENCH_PROFILE_ROUNDS`` times (so drift in the machine's load hits
    both alike): the wall time, CPU time and statements of each."""
    from django.db import connection

    from kit.statements import count_sent

    costs: Costs = {BARE: [], ACTION: []}
    for _ in range(int(os.environ.get("BENCH_PROFILE_ROUNDS", "200"))):
        action = next_action(table)
        if action is None:
            table = client.get(f"/api/v1/tables/{table_id}").json()
            continue
        for name, path, body in (
            (BARE, "/api/v1/_bench/ping", {"n": 1}),
            (ACTION, f"/api/v1/tables/{table_id}/actions", action),
        ):
            timer.current = name
            with count_sent(connection) as sent:
                wall, cpu = time.perf_counter(), time.process_time()
                answer = client.post(path, body, format="json").json()
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            costs[name].append((wall, cpu, len(sent)))
            if name == ACTION:
                table = answer["table"]
    return costs


def _print_costs(costs: Costs) -> None:
    print("\nin process, interleaved (median per request):")
    for name, rows in costs.items():
        walls, cpus, counts = zip(*rows, strict=True)
        print(
            f"  {name:<14} wall {statistics.median(walls) * 1000:6.2f} ms  CPU {statistics.median(cpus) * 1000:6.2f} ms"
            f"  waiting {statistics.median(wall - cpu for wall, cpu, _ in rows) * 1000:6.2f} ms"
            f"  statements {statistics.mean(counts):.1f}"
        )


def _print_round_trips(timer: StatementTimer, costs: Costs) -> None:
    print("\nround trips through Django's cursors (total ms per request, median ms per statement):")
    for name, statements in timer.wall.items():
        requests = len(costs[name]) or 1
        for key, walls in sorted(statements.items(), key=lambda item: -sum(item[1])):
            cpus = timer.server_cpu[name][key]
            print(
                f"  {name:<14} {key:<40} {sum(walls) * 1000 / requests:6.2f} ms/request"
                f"  median {statistics.median(walls) * 1000:6.2f} ms  x{len(walls) / requests:.2f}"
                f"  server CPU {sum(cpus) * 1000 / requests:5.2f} ms/request"
                f"  client CPU {sum(timer.client_cpu[name][key]) * 1000 / requests:5.2f} ms/request"
            )


def _print_statements(queries: dict[str, list[list[str]]]) -> None:
    for name, runs in queries.items():
        counts = sorted(len(q) for q in runs)
        print(
            f"\n{name}: {len(runs)} actions, statements per action (at the wire, BEGIN/COMMIT included) "
            f"min {counts[0]} max {counts[-1]} mean {statistics.mean(counts):.1f}; the largest:"
        )
        for sql in max(runs, key=len):
            print("   ", sql)


def _print_profile(profiler: cProfile.Profile) -> None:
    if os.environ.get("BENCH_PROFILE_OUT"):  # the raw profile, for pstats or snakeviz
        profiler.dump_stats(os.environ["BENCH_PROFILE_OUT"])
    stream = io.StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats("cumulative").print_stats(40)
    pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(25)
    print(stream.getvalue())
