"""URLs of the REST API v1, mounted at ``/api/v1/`` (spec/API.md)."""

from django.urls import URLPattern, URLResolver, include, path

from accounts.views.auth import LogoutView, RegisterView, TokenView
from accounts.views.cashier import DepositView, WithdrawalView
from accounts.views.me import ClientSeedView, MeView, MyHandsView, MyLedgerView
from accounts.views.responsible import ActivityView, ExclusionView, LimitConfirmView, LimitsView, RealityCheckView

urlpatterns: list[URLPattern | URLResolver] = [
    path("auth/register", RegisterView.as_view(), name="api-register"),
    path("auth/token", TokenView.as_view(), name="api-token"),
    path("auth/logout", LogoutView.as_view(), name="api-logout"),
    path("me", MeView.as_view(), name="api-me"),
    path("me/client-seed", ClientSeedView.as_view(), name="api-me-client-seed"),
    path("me/ledger", MyLedgerView.as_view(), name="api-me-ledger"),
    path("me/hands", MyHandsView.as_view(), name="api-me-hands"),
    path("me/limits", LimitsView.as_view(), name="api-me-limits"),
    path("me/limits/requests/<int:request_id>/confirm", LimitConfirmView.as_view(), name="api-me-limits-confirm"),
    path("me/reality-check", RealityCheckView.as_view(), name="api-me-reality-check"),
    path("me/exclusion", ExclusionView.as_view(), name="api-me-exclusion"),
    path("me/activity", ActivityView.as_view(), name="api-me-activity"),
    path("cashier/deposits", DepositView.as_view(), name="api-cashier-deposits"),
    path("cashier/withdrawals", WithdrawalView.as_view(), name="api-cashier-withdrawals"),
    path("", include("tables.api.urls")),
]
