"""Prometheus metrics (``GET /metrics``; docs/operations.md lists them with example alerts).

Counters, histograms and gauges live in each process (web workers, Celery workers). With
``PROMETHEUS_MULTIPROC_DIR`` set (``make run`` and the compose file set it), every process writes its values to
files there and a scrape adds them up, so ``/metrics`` on any gunicorn worker answers for all of them
(prometheus-client's multiprocess mode; gauges of dead processes are dropped by ``mark_process_dead`` in
``casino/gunicorn.conf.py``). Figures that live in the database (verification failures, the last
reconciliation, tables by phase, open disputes) are read at scrape time by :class:`DatabaseCollector`, a few
indexed statements.

The endpoint is off unless ``METRICS_TOKEN`` (a bearer token) or ``METRICS_ALLOW_IPS`` (addresses or networks)
is set; then it answers only a request that has the token or comes from an allowed address.

For the live work (WebSockets, async waits): :func:`track_wait` and :func:`track_socket` keep the gauges
``casino_open_waits{kind}`` and ``casino_open_sockets`` right, whichever way the wait ends.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis
from django.conf import settings
from django.db import connection
from django.db.models import Count, Max
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from casino import heartbeat, requestlog
from casino.celery import table_queues
from casino.models import ReconcileRun, VerificationFailure
from tables.errors import TimeoutNotDue
from tables.models import Dispute, Hand, Table
from tables.rules import DomainError

if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # each process writes its values there (created on first use)
    os.makedirs(os.environ["PROMETHEUS_MULTIPROC_DIR"], exist_ok=True)

COMMANDS = Counter(
    "casino_commands", "Table commands run through the pipeline, by command type and outcome", ["type", "outcome"]
)
COMMAND_SECONDS = Histogram(
    "casino_command_seconds",
    "Time of one table command in the pipeline (load, decide, append, ledger, read models)",
    ["type"],
    buckets=(0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.5, 5.0),
)
COMMAND_STATEMENTS = Histogram(
    "casino_command_statements",
    "SQL statements sent by one table command (Django's cursors)",
    ["type"],
    buckets=(1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 30, 50, 100),
)
TIMEOUTS_FIRED = Counter(
    "casino_timeouts_fired", "Waits that timed out (the table acted), by who fired them: timer or sweeper", ["via"]
)
SWEEPER_RUNS = Counter("casino_sweeper_runs", "Runs of the timeout sweeper (beat)")
SWEEPER_CATCHUPS = Counter(
    "casino_sweeper_catchups", "Overdue deadlines the sweeper fired: a timer message was lost, late or its worker died"
)
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
# request at most once a second per process (casino.metrics.observe_pool).
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
RECONCILE_RUNS = Counter("casino_reconcile_runs", "Ledger reconciliations run in this process, by outcome", ["ok"])


# --- what the code calls -------------------------------------------------------------------------------------
def observe_command[F: Callable[..., Any]](execute: F) -> F:
    """Decorate the pipeline's ``execute``: count the command by type and outcome, time it, count its
    statements, note the table and outcome on the request's log line, and give it the request's id."""

    @functools.wraps(execute)
    def observed(**kwargs: Any) -> Any:
        seen = {"type": "unknown"}
        build = kwargs["build"]

        def build_and_see(ctx: Any, state: Any) -> Any:
            command = build(ctx, state)
            seen["type"] = type(command).__name__
            return command

        kwargs["build"] = build_and_see
        if kwargs.get("request_id") is None:
            kwargs["request_id"] = requestlog.current_request_id()
        statements = 0

        def count(execute_sql: Any, sql: Any, params: Any, many: Any, context: Any) -> Any:
            nonlocal statements
            statements += 1
            return execute_sql(sql, params, many, context)

        outcome = "error"
        started = time.perf_counter()
        try:
            with connection.execute_wrapper(count):
                result = execute(**kwargs)
            outcome = "repeat" if result.repeated else ("ok" if result.events else "noop")
            return result
        except DomainError as exc:
            outcome = exc.code
            raise
        except Exception as exc:
            if isinstance(exc, TimeoutNotDue):  # a timer delivered before its deadline: retried, not a fault
                seen["type"], outcome = "Timeout", "not_due"
            raise
        finally:
            command_type = seen["type"]
            COMMANDS.labels(command_type, outcome).inc()
            COMMAND_SECONDS.labels(command_type).observe(time.perf_counter() - started)
            COMMAND_STATEMENTS.labels(command_type).observe(statements)
            requestlog.note(table=kwargs.get("table_id"), command=command_type, outcome=outcome)

    return observed  # type: ignore[return-value]


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


# --- figures read from the database at scrape time ---------------------------------------------------------------
class DatabaseCollector(Collector):
    """Verification failures, the last reconciliation, tables by phase, hands in play and open disputes."""

    def collect(self) -> Iterator[Metric]:
        failures = VerificationFailure.objects.aggregate(n=Count("*"), last=Max("at"))
        # a count that only grows (the failures are never deleted): a counter, so increase() and rate() work
        yield CounterMetricFamily(
            "casino_verification_failures", "Verifications that failed (hands and hash chains)", value=failures["n"]
        )
        yield _gauge(
            "casino_verification_failure_last_timestamp_seconds",
            "When the last verification failed (0: never)",
            failures["last"].timestamp() if failures["last"] else 0,
        )
        run = ReconcileRun.objects.order_by("-at", "-id").first()
        yield _gauge(
            "casino_ledger_reconcile_ok",
            "1 if the last reconciliation found no difference (-1: never run)",
            -1 if run is None else int(run.ok),
        )
        yield _gauge(
            "casino_ledger_reconcile_differences",
            "Differences the last reconciliation found",
            0 if run is None else run.differences,
        )
        yield _gauge(
            "casino_ledger_reconcile_last_run_timestamp_seconds",
            "When the ledger was last reconciled",
            0 if run is None else run.at.timestamp(),
        )
        phases = GaugeMetricFamily("casino_tables", "Tables by phase (lobby read model)", labels=["phase"])
        for phase, n in Table.objects.values_list("phase").annotate(n=Count("*")).order_by("phase"):
            phases.add_metric([phase], n)
        yield phases
        yield _gauge("casino_hands_in_play", "Hands in play now", Hand.objects.filter(status="in_play").count())
        yield _gauge(
            "casino_disputes_open", "Disputes waiting for an operator", Dispute.objects.filter(status="open").count()
        )


class BrokerCollector(Collector):
    """Celery's queues (messages waiting in Redis per queue, messages reserved by workers and not yet
    acknowledged: the timers waiting for their deadline) and which process kinds are alive (heartbeats)."""

    def collect(self) -> Iterator[Metric]:
        depth = GaugeMetricFamily(
            "casino_celery_queue_length",
            "Messages waiting in a Celery queue (not yet taken by a worker)",
            labels=["queue"],
        )
        unacked = GaugeMetricFamily(
            "casino_celery_unacked_messages",
            "Messages workers hold and have not acknowledged (timers before their deadline)",
        )
        up = GaugeMetricFamily(
            "casino_process_up", "1 when a process of this kind beat within HEARTBEAT_STALE_S", labels=["kind"]
        )
        age = GaugeMetricFamily(
            "casino_heartbeat_age_seconds",
            "Seconds since a process of this kind last beat (absent: never)",
            labels=["kind"],
        )
        errors = 0
        try:
            client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2, socket_timeout=2)
            for queue in celery_queues():
                # kombu's Redis transport keeps a list per queue and priority step ("celery", "celery\x06\x163", ...)
                # (after kombu's global_keyprefix: settings.REDIS_KEY_PREFIX)
                name = f"{settings.REDIS_KEY_PREFIX}{queue}"
                names = [name, *(f"{name}\x06\x16{p}" for p in (1, 2, 3, 4, 5, 6, 7, 8, 9))]
                pipe = client.pipeline(transaction=False)
                for name in names:
                    pipe.llen(name)
                depth.add_metric([queue], sum(pipe.execute()))
            unacked.add_metric([], client.hlen(f"{settings.REDIS_KEY_PREFIX}unacked"))
        except (redis.RedisError, ValueError):
            errors += 1
        try:
            heart = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
            for kind in heartbeat.KINDS:
                seen = heartbeat.age(kind, client=heart)
                up.add_metric([kind], 1 if seen is not None and seen <= settings.HEARTBEAT_STALE_S else 0)
                if seen is not None:
                    age.add_metric([kind], seen)
        except redis.RedisError:
            errors += 1
        yield depth
        yield unacked
        yield up
        yield age
        yield _gauge("casino_metrics_redis_errors", "Redis reads of this scrape that failed (0: all read)", errors)


def celery_queues() -> list[str]:
    """The queues the casino's tasks go to: the default, the timers' (and each table shard of it) and the lab's."""
    return sorted({"celery", settings.TABLE_TIMER_QUEUE, *table_queues(), settings.HOUSE_EDGE_QUEUE})


def _gauge(name: str, documentation: str, value: float) -> GaugeMetricFamily:
    return GaugeMetricFamily(name, documentation, value=value)


def registry() -> CollectorRegistry:
    """What a scrape reads: every process's metrics (multiprocess mode) or this one's, plus the database's."""
    from prometheus_client import REGISTRY

    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        scrape = CollectorRegistry()
        multiprocess.MultiProcessCollector(scrape)
    else:
        scrape = CollectorRegistry()
        for collector in list(REGISTRY._collector_to_names):
            scrape.register(collector)
    scrape.register(DatabaseCollector())
    scrape.register(BrokerCollector())
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):  # in one process the default registry already has it
        scrape.register(ProcessCollector(registry=None))
    return scrape


# --- the endpoint ------------------------------------------------------------------------------------------------
def allowed_credentials(authorization: str, remote_addr: str) -> bool:
    """The bearer token, or an allowed address. Both settings empty: the metrics are off (``Http404``)."""
    token = getattr(settings, "METRICS_TOKEN", "")
    networks = getattr(settings, "METRICS_ALLOW_IPS", [])
    if not token and not networks:
        raise Http404("metrics are off (set METRICS_TOKEN or METRICS_ALLOW_IPS)")
    bearer = authorization[7:].strip() if authorization.startswith("Bearer ") else ""
    if token and bearer and hmac.compare_digest(bearer.encode(), token.encode()):
        return True
    try:
        address = ipaddress.ip_address(remote_addr)
    except ValueError:
        return False
    return any(address in ipaddress.ip_network(net, strict=False) for net in networks)


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not allowed_credentials(request.headers.get("Authorization", ""), request.META.get("REMOTE_ADDR", "")):
        response = HttpResponse("forbidden\n", status=403, content_type="text/plain")
        if getattr(settings, "METRICS_TOKEN", ""):
            response["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return response
    return HttpResponse(generate_latest(registry()), content_type=CONTENT_TYPE_LATEST)


def serve_worker_metrics(port: int, address: str = "0.0.0.0") -> Any:
    """``/metrics`` of a Celery worker container (its processes' timers, sweeps and tasks), with the same
    protection as the web's. Started by ``casino.celery`` when ``METRICS_WORKER_PORT`` is set; returns the server."""
    import threading
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    from prometheus_client import make_wsgi_app

    app = make_wsgi_app(registry())

    def guarded(environ: dict[str, Any], start_response: Any) -> Any:
        try:
            ok = allowed_credentials(environ.get("HTTP_AUTHORIZATION", ""), environ.get("REMOTE_ADDR", ""))
        except Http404:
            ok = False
        if not ok:
            start_response("403 Forbidden", [("Content-Type", "text/plain")])
            return [b"forbidden\n"]
        return app(environ, start_response)

    class QuietHandler(WSGIRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:  # scrapes are not logged
            pass

    server = make_server(address, port, guarded, handler_class=QuietHandler)
    threading.Thread(target=server.serve_forever, name="worker-metrics", daemon=True).start()
    return server
