"""Hands in the Django admin: the list, the hand page (``tables.admin.views``: replay, timeline, ledger) and
its verify URL. Hands are read from their events; nobody edits or deletes one.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from kit.admin_lookups import ViewOnlyAdmin
from kit.paginator import EstimatedCountAdminMixin
from tables.admin.filters import (
    HandStatusFilter,
    HandTableFilter,
    OutcomeFilter,
    PlayerFilter,
    PresetFilter,
    RulesReleaseFilter,
    VerifiedFilter,
)
from tables.admin.views import hand_page_context, verify_view
from tables.models import Hand, HandParticipant


@admin.register(Hand)
class HandAdmin(EstimatedCountAdminMixin, ViewOnlyAdmin):
    """Hands, newest first. At millions of rows: estimated counts (kit/paginator.py), filters that list no
    values from the table (table id typed, presets and statuses from code), no date hierarchy (it reads the
    distinct dates of every hand); the rare filters have partial indexes (tables/models.py)."""

    list_display = (
        "id",
        "table_link",
        "number",
        "preset",
        "status_badge",
        "opened_at",
        "players",
        "banker_net",
        "disputed",
        "verified",
    )
    list_filter = (
        PlayerFilter,
        HandTableFilter,
        "opened_at",
        PresetFilter,
        OutcomeFilter,
        "disputed",
        VerifiedFilter,
        HandStatusFilter,
        RulesReleaseFilter,
    )
    search_fields = ("=id", "participants__user__username")
    search_help_text = "A hand id, or (part of) a username."
    ordering = ("-id",)
    list_per_page = 50
    # the old date bar's links (a day, a month, a year) still work: a range on the indexed opened_at
    extra_lookups = ("opened_at__year", "opened_at__month", "opened_at__day")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Hand]:
        participants = HandParticipant.objects.select_related("user").order_by("seat")
        return (
            super()
            .get_queryset(request)
            .defer("start_state")
            .select_related("table")
            .prefetch_related(Prefetch("participants", queryset=participants))
        )

    @admin.display(description="table", ordering="table_id")
    def table_link(self, hand: Hand) -> SafeString:
        url = reverse("admin:tables_table_change", args=[hand.table_id])
        return format_html('<a href="{}">#{} {}</a>', url, hand.table_id, hand.table.name)

    @admin.display(description="status", ordering="status")
    def status_badge(self, hand: Hand) -> SafeString:
        return format_html('<span class="badge {}">{}</span>', hand.status, hand.status.replace("_", " "))

    @admin.display(description="players (net)")
    def players(self, hand: Hand) -> SafeString:
        return format_html_join(
            ", ",
            "{}{} {}",
            (
                (
                    p.user.get_username(),
                    " (bank)" if p.role == "banker" else "",
                    "" if p.net is None else f"{p.net:+d}",
                )
                for p in hand.participants.all()
            ),
        )

    @admin.display(description="verified", ordering="verified_at")
    def verified(self, hand: Hand) -> SafeString:
        if hand.verified_at is None:
            return SafeString('<span class="verify-none" title="not verified">not yet</span>')
        if hand.verified_ok:
            return format_html('<span class="verify-ok" title="verified {}">✔ ok</span>', hand.verified_at)
        return format_html('<span class="verify-failed" title="verified {}">✘ failed</span>', hand.verified_at)

    def get_urls(self) -> list[URLPattern]:
        urls = [
            path("<path:object_id>/verify/", self.admin_site.admin_view(self.verify), name="tables_hand_verify"),
        ]
        return urls + super().get_urls()

    def _hand_or_denied(self, request: HttpRequest, object_id: str) -> Hand | None:
        hand = self.get_object(request, unquote(object_id))
        if hand is not None and not self.has_view_permission(request, hand):
            raise PermissionDenied
        return hand

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        hand = self._hand_or_denied(request, object_id)
        if hand is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Hand {hand.pk}: table #{hand.table_id}, hand #{hand.number}",
            "subtitle": None,
            **hand_page_context(request, hand),
        }
        return TemplateResponse(request, "admin/tables/hand/hand_page.html", context)

    def verify(self, request: HttpRequest, object_id: str) -> HttpResponse:
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        hand = self._hand_or_denied(request, object_id)
        if hand is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        return verify_view(request, hand)
