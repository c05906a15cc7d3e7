"""Prometheus metrics of every process (``GET /metrics`` is served by backoffice/metrics.py; docs/operations.md
lists them with example alerts).

Counters, histograms and gauges live in each process (web workers, Celery workers). With
``PROMETHEUS_MULTIPROC_DIR`` set (``make run`` and the compose file set it), every process writes its values to
files there and a scrape adds them up (prometheus-client's multiprocess mode; gauges of dead processes are dropped
by ``mark_process_dead`` in ``casino/gunicorn_conf.py``). The settings create the directory, before any metric.

Here: the metrics any app may feed (HTTP requests, the database pool, Celery tasks, waits and sockets) and the
middleware that counts requests. The game's own (commands, timeouts) are in tables/metrics.py.

For the live work (WebSockets, async waits): :func:`track_wait` and :func:`track_socket` keep the gauges
``casino_open_waits{kind}`` and ``casino_open_sockets`` right, whichever way the wait ends.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection
from django.http import HttpRequest, HttpResponse
from prometheus_client import Counter, Gauge, Histogram

OPEN_WAITS = Gauge(
    "casino_open_waits",
    "Clients waiting for a table to change now (long-polls, WebSockets)",
    ["kind"],
    multiprocess_mode="livesum",
)
OPEN_SOCKETS = Gauge("casino_open_sockets", "WebSocket connections open now", multiprocess_mode="livesum")
HTTP_REQUESTS = Counter(
    "casino_http_requests",
    "HTTP requests answered, by route template (Django's URL pattern), method and status class",
    ["route", "method", "status"],
)
HTTP_SECONDS = Histogram(
    "casino_http_request_seconds",
    "Time to answer an HTTP request, by route template and method",
    ["route", "method"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 30.0),
)
# The database connection pool of each process (psycopg_pool), summed over the live processes; refreshed after a
# request at most once a second per process (kit.metrics.observe_pool).
POOL_SIZE = Gauge("casino_db_pool_connections", "Connections the pools hold now", multiprocess_mode="livesum")
POOL_AVAILABLE = Gauge(
    "casino_db_pool_connections_available", "Connections idle in the pools now", multiprocess_mode="livesum"
)
POOL_MAX = Gauge("casino_db_pool_connections_max", "Most connections the pools may open", multiprocess_mode="livesum")
POOL_WAITING = Gauge(
    "casino_db_pool_requests_waiting", "Requests waiting for a pooled connection now", multiprocess_mode="livesum"
)
POOL_ERRORS = Counter(
    "casino_db_pool_errors", "Requests for a pooled connection that failed (timed out waiting, or the pool closed)"
)
POOL_CONNECTIONS_LOST = Counter(
    "casino_db_pool_connections_lost", "Connections the pool found broken when it checked them (a dropped server)"
)
TASKS = Counter("casino_tasks", "Celery tasks run, by task and outcome", ["task", "outcome"])


# --- what the code calls -------------------------------------------------------------------------------------
class RequestMetricsMiddleware:
    """Count every answered request by route template, method and status class and time it (next to
    ``RequestLogMiddleware``); refresh the pool's gauges."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        observe_request(request.method or "", route_of(request), response.status_code, time.perf_counter() - started)
        observe_pool()
        return response


def route_of(request: HttpRequest) -> str:
    """The URL pattern that answered (``api/v1/tables/<int:table_id>/actions``), never the path itself (a label
    per table or per hand id would grow without end): ``unmatched`` for a 404 of the resolver, ``probe`` for the
    health probes, ``static`` for static files."""
    path = request.path_info
    if path in ("/healthz", "/readyz"):
        return path.lstrip("/")
    if path.startswith("/static/"):
        return "static"
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "unmatched"
    return str(match.route or match.view_name or "unmatched")


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    verb = method.upper() if method.upper() in _METHODS else "OTHER"
    HTTP_REQUESTS.labels(route, verb, f"{status // 100}xx").inc()
    HTTP_SECONDS.labels(route, verb).observe(seconds)


_METHODS = {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"}
_pool_seen = {"at": 0.0, "errors": 0, "lost": 0}


def observe_pool(*, every: float = 1.0) -> None:
    """Copy this process's pool figures into the gauges (at most once per ``every`` seconds)."""
    now = time.monotonic()
    if now - _pool_seen["at"] < every:
        return
    _pool_seen["at"] = now
    pool = getattr(connection, "pool", None)
    if pool is None:
        return
    stats = pool.get_stats()
    POOL_SIZE.set(stats.get("pool_size", 0))
    POOL_AVAILABLE.set(stats.get("pool_available", 0))
    POOL_MAX.set(stats.get("pool_max", 0))
    POOL_WAITING.set(stats.get("requests_waiting", 0))
    for key, counter, seen in (
        ("requests_errors", POOL_ERRORS, "errors"),
        ("connections_lost", POOL_CONNECTIONS_LOST, "lost"),
    ):
        value = int(stats.get(key, 0))
        if value > _pool_seen[seen]:
            counter.inc(value - _pool_seen[seen])
        _pool_seen[seen] = value


@contextmanager
def track_wait(kind: str) -> Iterator[None]:
    """Count a client waiting for a table (``kind``: ``longpoll``, ``websocket``) while the block runs."""
    gauge = OPEN_WAITS.labels(kind)
    gauge.inc()
    try:
        yield
    finally:
        gauge.dec()


@contextmanager
def track_socket() -> Iterator[None]:
    """Count an open WebSocket connection while the block runs (connect to disconnect)."""
    OPEN_SOCKETS.inc()
    try:
        yield
    finally:
        OPEN_SOCKETS.dec()
