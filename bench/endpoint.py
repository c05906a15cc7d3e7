"""A bare endpoint of the same stack, for ``bench/api.py`` only: token auth, JSON in and out, ``@idempotent``,
one INSERT, at ``/api/v1/_bench/ping``. Routed only by the bench's own URL configuration (``bench.urls``, which
the bench's gunicorn sets as ``ROOT_URLCONF``): production's URLs never name it."""

from __future__ import annotations

from django.db import connection
from django.urls import include, path
from drf_spectacular.utils import extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.idempotency import idempotent

_TABLE = "bench_ping"  # created by bench/api.py


class BenchPingView(APIView):
    @extend_schema(exclude=True)
    @idempotent
    def post(self, request: Request) -> Response:
        with connection.cursor() as cursor:
            cursor.execute(f"INSERT INTO {_TABLE} (user_id) VALUES (%s) RETURNING id", [request.user.pk])
            row_id = cursor.fetchone()[0]
        return Response({"id": row_id})


urlpatterns = [
    path("api/v1/_bench/ping", BenchPingView.as_view(), name="api-bench-ping"),
    path("", include("casino.urls")),
]
