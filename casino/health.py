"""GET /healthz: does this process reach PostgreSQL and Redis (liveness)? GET /readyz: can the casino deal, i.e.
also is a Celery worker consuming the timers, is beat scheduling the sweeper, and every other process of
``READINESS_REQUIRES`` (the checkpoint signer) alive, by its heartbeat (casino/heartbeat.py)?

Both answer within about :data:`CHECK_TIMEOUT_S` whatever is down (a load balancer must not wait on it), and a 503
carries ``Retry-After`` like every other 503 of the service.
"""

from __future__ import annotations

from collections.abc import Callable

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from casino import heartbeat
from casino.api.errors import RETRY_AFTER_S

CHECK_TIMEOUT_S = 2


def check_database() -> str:
    try:
        pool = connection.pool
        if pool is not None:
            # through the pool (which checks what it lends), but without waiting its full timeout
            pool.open()
            with pool.connection(timeout=CHECK_TIMEOUT_S) as conn:
                conn.execute("SELECT 1")
        else:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
                cursor.fetchone()
        return "ok"
    except Exception as exc:
        return f"error: {exc.__class__.__name__}"


def check_redis() -> str:
    try:
        client = redis.Redis.from_url(
            settings.REDIS_URL, socket_connect_timeout=CHECK_TIMEOUT_S, socket_timeout=CHECK_TIMEOUT_S
        )
        client.ping()
        return "ok"
    except Exception as exc:
        return f"error: {exc.__class__.__name__}"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 with every check "ok"; 503 with the failing check named (its value starts with "error")."""
    body = {"database": check_database(), "redis": check_redis()}
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
    body = {"database": check_database(), "redis": check_redis()}
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
