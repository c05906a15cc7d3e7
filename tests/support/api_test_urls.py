"""A URLconf for the API tests: the project's URLs, Django's error handlers of kit.error_views (as
casino/urls.py wires them), and a few views that exist only to exercise the error handler and the
idempotency layer."""

from __future__ import annotations

from typing import Any

from django.urls import include, path
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.urls import urlpatterns as project_urlpatterns
from gamemath.errors import DomainError
from kit.idempotency import idempotent
from ledger.errors import InsufficientFunds, SettlementMismatch
from tables.models import Table

handler400 = "kit.error_views.bad_request"
handler403 = "kit.error_views.permission_denied"
handler404 = "kit.error_views.page_not_found"
handler500 = "kit.error_views.server_error"

calls: list[str] = []


class DomainErrorView(APIView):
    """Raises the domain error named in the body (after writing a table row, which must not survive)."""

    @idempotent
    def post(self, request: Request) -> Response:
        calls.append("domain")
        Table.objects.create(name=f"written-before-{request.data['code']}", preset="classic")
        raise DomainError("refused by the rules", {"why": "test"}, code=request.data["code"])


class LedgerRefusalView(APIView):
    @idempotent
    def post(self, request: Request) -> Response:
        calls.append("ledger")
        Table.objects.create(name="written-before-insufficient", preset="classic")
        raise InsufficientFunds("wallet too small", {"balance": 0})


class ServerFaultView(APIView):
    @idempotent
    def post(self, request: Request) -> Response:
        calls.append("fault")
        Table.objects.create(name="written-before-fault", preset="classic")
        raise SettlementMismatch("a bug in the caller")


class CrashView(APIView):
    def get(self, request: Request) -> Response:
        raise RuntimeError("boom")


class UndecoratedWriteThenRefuseView(APIView):
    """Not idempotent-decorated: only the exception handler's rollback protects its write."""

    def post(self, request: Request) -> Response:
        Table.objects.create(name="written-undecorated", preset="classic")
        raise DomainError("refused", code="wrong_phase")


class OkView(APIView):
    @idempotent
    def post(self, request: Request) -> Response:
        calls.append("ok")
        table = Table.objects.create(name="created", preset="classic")
        return Response({"table": table.pk, "echo": request.data}, status=201)


class EmptyView(APIView):
    @idempotent
    def post(self, request: Request) -> Response:
        calls.append("empty")
        return Response(status=204)


def _views(*pairs: tuple[str, Any]) -> list[Any]:
    return [path(route, view.as_view()) for route, view in pairs]


test_patterns = _views(
    ("domain", DomainErrorView),
    ("ledger-refusal", LedgerRefusalView),
    ("server-fault", ServerFaultView),
    ("crash", CrashView),
    ("undecorated", UndecoratedWriteThenRefuseView),
    ("ok", OkView),
    ("empty", EmptyView),
)

urlpatterns = [path("api/v1/_test/", include(test_patterns)), *project_urlpatterns]
