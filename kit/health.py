"""GET /healthz: does this process reach PostgreSQL and Redis (liveness)? GET /readyz: can the casino deal, i.e.
also is a Celery worker consuming the timers, is beat scheduling the sweeper, and every other process of
``READINESS_REQUIRES`` (the checkpoint signer) alive, by its heartbeat (kit/heartbeat.py)?

Both answer within about :data:`CHECK_TIMEOUT_S` whatever is down or hung (a load balancer must see an outage as a
503, promptly, from every web process), and a 503 carries ``Retry-After`` like every other 503 of the service:

- the checks run side by side, each on a thread of its own that the probe waits for at most ``CHECK_TIMEOUT_S``:
  a check stuck on a server that accepted the connection and never answers (a hung or half-dead host) is given up
  on, and the probe says 503 naming it;
- the database check opens a connection of its own (``connect_timeout``), never a slot of the request pool: a pool
  whose connections all hang, or all lent to busy requests, neither delays the probe nor makes it lie; it connects
  the way the requests do (every host of a multi-host ``DATABASE_URL``, ``target_session_attrs``), so a server
  that is up but only a read-only standby is "error" too;
- at most :data:`MAX_STUCK_CHECKS` checks of a service may run at once (threads given up on finish when their
  socket does); beyond, the probe answers 503 at once instead of starting more.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import psycopg
import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from kit import heartbeat
from kit.api_errors import RETRY_AFTER_S

CHECK_TIMEOUT_S = 2
MAX_STUCK_CHECKS = 16  # per service
_running: dict[str, threading.BoundedSemaphore] = {
    name: threading.BoundedSemaphore(MAX_STUCK_CHECKS) for name in ("database", "redis")
}


def _ping_database() -> None:
    params = {**connection.get_connection_params(), "connect_timeout": CHECK_TIMEOUT_S, "autocommit": True}
    with psycopg.connect(**params) as conn:
        conn.execute("SELECT 1")


def _ping_redis() -> None:
    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_connect_timeout=CHECK_TIMEOUT_S, socket_timeout=CHECK_TIMEOUT_S
    )
    try:
        client.ping()
    finally:
        client.close()


class _Check(threading.Thread):
    """One check on a daemon thread: "ok", or "error: <exception class>" (or "error: timeout")."""

    def __init__(self, name: str, ping: Callable[[], None]) -> None:
        super().__init__(name=f"healthz-{name}", daemon=True)
        self.service = name
        self.ping = ping
        self.result = "error: timeout"

    def run(self) -> None:
        try:
            self.ping()
            self.result = "ok"
        except Exception as exc:
            self.result = f"error: {exc.__class__.__name__}"
        finally:
            _running[self.service].release()


def run_checks(pings: dict[str, Callable[[], None]], timeout: float = CHECK_TIMEOUT_S) -> dict[str, str]:
    """Run ``pings`` side by side; each one's result, "error: timeout" for one still running after ``timeout``
    seconds, "error: checks stuck" when too many earlier ones still hang."""
    checks: dict[str, _Check] = {}
    results: dict[str, str] = {}
    for name, ping in pings.items():
        if not _running[name].acquire(blocking=False):
            results[name] = "error: checks stuck"
            continue
        checks[name] = _Check(name, ping)
        checks[name].start()
    deadline = time.monotonic() + timeout
    for name, check in checks.items():
        check.join(max(0.0, deadline - time.monotonic()))
        results[name] = check.result if not check.is_alive() else "error: timeout"
    return {name: results[name] for name in pings}


def check_services() -> dict[str, str]:
    """The database and Redis, checked side by side (together within ``CHECK_TIMEOUT_S``)."""
    return run_checks({"database": _ping_database, "redis": _ping_redis})


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 with every check "ok"; 503 with the failing check named (its value starts with "error")."""
    body = check_services()
    healthy = all(value == "ok" for value in body.values())
    response = JsonResponse(body, status=200 if healthy else 503)
    if not healthy:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response


def check_heartbeat(kind: str) -> str:
    """``ok (N s ago)``, or an error naming why the process kind is not alive."""
    try:
        seen = heartbeat.age(kind)
    except Exception as exc:
        return f"error: {exc.__class__.__name__}"
    if seen is None:
        return "error: never seen"
    if seen > settings.HEARTBEAT_STALE_S:
        return f"error: last seen {seen:.0f} s ago"
    return "ok"


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """200 when the database, Redis and a process of every kind in ``READINESS_REQUIRES`` are alive; else 503
    naming what is not. Kinds not required (the lab worker) are reported, never failing."""
    body = check_services()
    for kind in settings.READINESS_REQUIRES:
        body[kind] = check_heartbeat(kind)
    ready = all(value == "ok" for value in body.values())
    for kind in heartbeat.KINDS:
        if kind not in body:
            body[kind] = check_heartbeat(kind) if body["redis"] == "ok" else "unknown"
            body[kind] = body[kind] if body[kind] == "ok" else f"not required ({body[kind]})"
    response = JsonResponse(body, status=200 if ready else 503)
    if not ready:
        response["Retry-After"] = str(RETRY_AFTER_S)
    return response


PROBES: dict[str, Callable[[HttpRequest], HttpResponse]] = {"/healthz": healthz, "/readyz": readyz}


class ProbeMiddleware:
    """Answers ``/healthz`` and ``/readyz`` before the host check, the HTTPS redirect and the sessions: a container's
    healthcheck asks ``http://127.0.0.1:8000/healthz``, whatever ``ALLOWED_HOSTS`` and ``SECURE_SSL_REDIRECT`` say
    (the probes reveal nothing but up or down)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        probe = PROBES.get(request.path_info)
        if probe is not None:
            return probe(request)
        return self.get_response(request)
