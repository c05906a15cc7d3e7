"""URLs of the game endpoints, included by ``accounts.urls`` under ``/api/v1/``."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path, register_converter

from tables.api import fairness_views, hand_views, views
from tables.live import longpoll


class IdConverter:
    """A database id: 1 to 18 digits (anything longer is no id of ours: 404, never a database error)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: int) -> str:
        return str(value)


register_converter(IdConverter, "dbid")

urlpatterns: list[URLPattern | URLResolver] = [
    path("tables", views.TableListView.as_view(), name="api-tables"),
    path("tables/rtp", views.TableRtpView.as_view(), name="api-tables-rtp"),
    path("tables/<dbid:table_id>", views.TableDetailView.as_view(), name="api-table"),
    path("tables/<dbid:table_id>/seats", views.SeatsView.as_view(), name="api-table-seats"),
    path("tables/<dbid:table_id>/seats/me", views.MySeatView.as_view(), name="api-table-my-seat"),
    path("tables/<dbid:table_id>/actions", views.ActionsView.as_view(), name="api-table-actions"),
    path("tables/<dbid:table_id>/events", longpoll.events_view, name="api-table-events"),
    path("tables/<dbid:table_id>/checkpoints", fairness_views.CheckpointsView.as_view(), name="api-table-checkpoints"),
    path("fairness/public-key", fairness_views.PublicKeyView.as_view(), name="api-fairness-public-key"),
    path("hands/<dbid:hand_id>", hand_views.HandView.as_view(), name="api-hand"),
    path("hands/<dbid:hand_id>/verify", hand_views.HandVerifyView.as_view(), name="api-hand-verify"),
    path("hands/<dbid:hand_id>/export", hand_views.HandExportView.as_view(), name="api-hand-export"),
    path("hands/<dbid:hand_id>/disputes", hand_views.DisputesView.as_view(), name="api-hand-disputes"),
]
