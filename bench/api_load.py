"""The load of the HTTP benches (bench/api.py, bench/live.py): keep-alive clients, each one player playing his
table (bet, hit/stand, as his own ``you.legal_actions`` allows) or calling the bare endpoint (bench/endpoint.py),
all in threads for a measured time after a warm-up: requests per second, p50 and p99 latency, errors.
"""

from __future__ import annotations

import http.client
import json
import statistics
import threading
import time

from bench.cpu_meter import CpuMeter


class Client:
    """One keep-alive HTTP connection to the bench's server, signed in with a player's token."""

    def __init__(self, port: int, token: str) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def request(self, method: str, path: str, body: object = None) -> tuple[int, dict[str, object]]:
        payload = json.dumps(body) if body is not None else None
        self.conn.request(method, path, body=payload, headers=self.headers)
        response = self.conn.getresponse()
        return response.status, json.loads(response.read() or b"null")


def next_action(table: dict) -> dict[str, object] | None:  # type: ignore[type-arg]
    """The seated player's next move at ``table`` (the API's table record): the minimum bet, a hit below 4.5, else
    stand; None when it is not his turn."""
    legal = table["you"]["legal_actions"]
    if "bet" in legal:
        return {"action": "bet", "amount": table["min_bet"]}
    if "hit" in legal or "stand" in legal:
        mine = next(p for p in table["hand"]["participants"] if p["seat"] == table["you"]["seat"])
        total = mine["hands"][0]["total_half_points"] or 0
        return {"action": "hit" if "hit" in legal and total < 9 else "stand"}
    return None


def player_loop(
    port: int, token: str, table_id: int, stop: threading.Event, out: list[float], errors: list[int]
) -> None:
    """Play ``table_id`` until ``stop``: each successful action's latency into ``out``, each refusal's status into
    ``errors`` (then the table is read again)."""
    client = Client(port, token)
    status, table = client.request("GET", f"/api/v1/tables/{table_id}")
    while not stop.is_set():
        action = next_action(table)
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


def bare_loop(port: int, token: str, table_id: int, stop: threading.Event, out: list[float], errors: list[int]) -> None:
    """Call the bare endpoint until ``stop`` (its latencies into ``out``, failures' statuses into ``errors``)."""
    client = Client(port, token)
    while not stop.is_set():
        started = time.perf_counter()
        status, _ = client.request("POST", "/api/v1/_bench/ping", {"n": 1})
        elapsed = time.perf_counter() - started
        (out.append(elapsed) if status == 200 else errors.append(status))


def run_load(  # type: ignore[no-untyped-def]
    loop, port: int, seats: list[tuple[str, int]], seconds: float, warmup: float = 1.0, meter: CpuMeter | None = None
) -> dict[str, float]:
    """Run ``loop`` for every seat in a thread of its own; once each has been served (and ``warmup`` seconds
    more), measure ``seconds``: rate, p50 and p99 (ms), count, errors, and the CPU per request of ``meter``."""
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
