"""GET /healthz: does the service reach PostgreSQL and Redis?"""

from __future__ import annotations

import redis
from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


def check_database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return "ok"
    except Exception as exc:
        return f"error: {exc.__class__.__name__}"


def check_redis() -> str:
    try:
        client = redis.Redis.from_url(settings.REDIS_URL, socket_connect_timeout=2, socket_timeout=2)
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
    return JsonResponse(body, status=200 if healthy else 503)
