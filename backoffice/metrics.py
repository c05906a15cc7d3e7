"""``GET /metrics`` (Prometheus): every process's metrics (kit/metrics.py, tables/metrics.py) plus figures read from
the database and the broker at scrape time (docs/operations.md lists them with example alerts).

Figures that live in the database (verification failures, the last reconciliation, tables by phase, open
disputes) are read at scrape time by :class:`DatabaseCollector`, a few indexed statements.

The endpoint is off unless ``METRICS_TOKEN`` (a bearer token) or ``METRICS_ALLOW_IPS`` (addresses or networks)
is set; then it answers only a request that has the token or comes from an allowed address.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
from collections.abc import Iterator
from typing import Any

import redis
from django.conf import settings
from django.db.models import Count, Max
from django.http import Http404, HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, ProcessCollector, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from backoffice.models import ReconcileRun, VerificationFailure
from certify import metrics as audit_metrics
from gamemath.enums import DisputeStatus
from kit import heartbeat
from tables.models import Dispute, Hand, Table
from tables.queues import table_queues
from tables.worth import house_tables_outside_limits

RECONCILE_RUNS = Counter("casino_reconcile_runs", "Ledger reconciliations run in this process, by outcome", ["ok"])


# --- figures read from the database at scrape time ---------------------------------------------------------------
class DatabaseCollector(Collector):
    """Verification failures, the last reconciliation, tables by phase, hands in play, open disputes and the
    house tables outside the return-to-player limits."""

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
        open_disputes = Dispute.objects.filter(status=DisputeStatus.OPEN).count()
        yield _gauge("casino_disputes_open", "Disputes waiting for an operator", open_disputes)
        outside = GaugeMetricFamily(
            "casino_tables_outside_rtp_limits",
            "House-banked tables whose return to player the casino's limits (MIN_RTP, MAX_RTP) refuse now, by reason",
            labels=["reason"],
        )
        reasons = [refusal.reason for refusal in house_tables_outside_limits().values()]
        for reason in ("player_advantage", "below_minimum"):
            outside.add_metric([reason], reasons.count(reason))
        yield outside
        yield from audit_metrics.collect()


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
