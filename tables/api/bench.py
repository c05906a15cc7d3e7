"""A bare endpoint of the same stack, for ``bench/api.py`` only: token auth, JSON in and out, ``@idempotent``,
one INSERT. Routed only when ``settings.BENCH_ENDPOINTS`` is on (environment ``BENCH_ENDPOINTS``, default off)."""

from __future__ import annotations

from django.conf import settings
from django.db import connection
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.api.idempotency import idempotent

_TABLE = "bench_ping"  # created by bench/api.py


def bench_endpoints_enabled() -> bool:
    return bool(settings.BENCH_ENDPOINTS)


class BenchPingView(APIView):
    @extend_schema(exclude=True)
    @idempotent
    def post(self, request: Request) -> Response:
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {_TABLE} (user_id) VALUES (%s) RETURNING id", [request.user.pk])
            row_id = cursor.fetchone()[0]
        return Response({"id": row_id})
