"""GET /healthz: does the service reach PostgreSQL and Redis?

Answers within about :data:`CHECK_TIMEOUT_S` whatever is down (a load balancer must not wait on it), and a 503
carries ``Retry-After`` like every other 503 of the service.
"""

from __future__ import annotations

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

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
