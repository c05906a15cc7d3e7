"""Tables in the Django admin.

Tables are created through ``tables.services.table_create`` (the form validates exactly like the API, the
casino's return-to-player limits included, and prices the card before it is saved). A table's rules are fixed by
its first event (``TableCreated``): "edit" changes only its name, which is no part of any event, and shows the
resolved rules, what the table returns to a punter (``tables.worth``), the seats and the recent hands read-only.
The list and the dashboard flag house-banked tables outside the limits. Nobody deletes a table. See
docs/admin.md.
"""

from __future__ import annotations

import json
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from kit.admin_lookups import DeclaredLookupsOnly
from rules import TableState
from tables import loader, services
from tables.admin.filters import RtpLimitsFilter
from tables.admin.forms import RULE_PREFIX, RULE_TOGGLES, TableCreateForm, TableRenameForm
from tables.admin.links import hand_url, player_url
from tables.admin.present import present_rules, rules_rows
from tables.errors import TableMissing
from tables.models import Hand, Table
from tables.worth import TableWorth, judge, limits, percent, table_configs, worth_of, worths_of

RECENT_HANDS = 10


@admin.register(Table)
class TableAdmin(DeclaredLookupsOnly):
    list_display = (
        "id",
        "name",
        "preset",
        "bank",
        "limits",
        "rtp_column",
        "seats",
        "phase",
        "hands_played",
        "banker_username",
    )
    list_display_links = ("id", "name")
    list_filter = ("preset", "bank", "phase", RtpLimitsFilter)
    search_fields = ("=id", "name")
    ordering = ("-id",)
    change_form_template = "admin/tables/table/change_form.html"
    readonly_fields = (
        "preset",
        "bank",
        "limits",
        "resolved_rules",
        "rtp",
        "phase_now",
        "seats_now",
        "current_hand",
        "recent_hands",
        "version",
        "hands_played",
        "created_at",
        "created_by",
    )

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return () if obj is None else self.readonly_fields

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> list[tuple[str | None, dict[str, Any]]]:
        if obj is None:
            table = ("name", "preset", "bank", "min_bet", "max_bet", "max_seats", "fixed_stake")
            return [
                (None, {"fields": table}),
                ("Timeouts", {"fields": ("turn_timeout_s", "betting_timeout_s")}),
                (
                    "Rule overrides (blank: the preset's value; RULES.md §4)",
                    {"fields": tuple(RULE_PREFIX + t for t in RULE_TOGGLES), "classes": ("collapse",)},
                ),
            ]
        return [
            (None, {"fields": ("name",)}),
            ("Rules: fixed by the table's first event (TableCreated)", {"fields": ("preset", "bank", "limits")}),
            ("Resolved rules", {"fields": ("resolved_rules", "rtp")}),
            ("Now", {"fields": ("phase_now", "seats_now", "current_hand", "recent_hands")}),
            ("Record", {"fields": ("version", "hands_played", "created_at", "created_by")}),
        ]

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any) -> Any:
        if obj is None:
            return TableCreateForm  # its toggle fields are built per instance (one per toggle of the rules core)
        kwargs["form"] = TableRenameForm
        return super().get_form(request, obj, change=change, **kwargs)

    def save_model(self, request: HttpRequest, obj: Table, form: Any, change: bool) -> None:
        if not change:
            table = services.table_create(operator=request.user, name=form.body["name"], spec=form.spec)
            obj.pk = table.pk
            obj.refresh_from_db()
            obj._created_with = form.body  # for the log line
            return
        if "name" in form.changed_data:  # only the name: the lobby columns belong to the projections
            Table.objects.filter(pk=obj.pk).update(name=obj.name)

    def log_addition(self, request: HttpRequest, obj: Any, message: Any) -> Any:
        body = json.dumps(getattr(obj, "_created_with", {}), sort_keys=True)
        return super().log_addition(request, obj, f"Created table {obj.pk} {obj.name!r} with {body}")

    # the read-only facts, from the table's events
    def _state(self, obj: Table) -> TableState | None:
        if not hasattr(obj, "_admin_state"):
            try:
                obj._admin_state = loader.load_table(obj.pk).state
            except TableMissing:
                obj._admin_state = None
        state: TableState | None = obj._admin_state
        return state

    @admin.display(description="bets")
    def limits(self, obj: Table) -> str:
        return f"{obj.min_bet}-{obj.max_bet}"

    @admin.display(description="seats")
    def seats(self, obj: Table) -> str:
        return f"{obj.seats_taken}/{obj.max_seats}"

    @admin.display(description="resolved rules")
    def resolved_rules(self, obj: Table) -> SafeString:
        state = self._state(obj)
        rules = present_rules(state) if state is not None else None
        if rules is None:
            return SafeString("—")
        rows = rules_rows(rules)
        return SafeString(render_to_string("admin/tables/table/_rules.html", {"table": rules, "rows": rows}))

    def get_changelist_instance(self, request: HttpRequest) -> Any:
        changelist = super().get_changelist_instance(request)
        page = list(changelist.result_list)  # the page's tables (cached in the queryset: the rows shown are these)
        configs = table_configs(t.pk for t in page)
        worths = worths_of(configs)
        for table in page:
            config = configs.get(table.pk)
            table._worth = worths.get(table.pk)
            table._refusal = judge(config, table._worth) if config is not None else None
        return changelist

    def changeform_view(
        self, request: HttpRequest, object_id: str | None = None, form_url: str = "", extra_context: Any = None
    ) -> Any:
        low, high = limits()
        context = {
            **(extra_context or {}),
            "rtp_url": reverse("api-tables-rtp"),
            "rtp_limits": {"min": str(settings.MIN_RTP), "max": str(settings.MAX_RTP)},
            "rtp_limits_shown": (percent(low), percent(high)),
        }
        return super().changeform_view(request, object_id, form_url, context)

    @admin.display(description="return to player")
    def rtp_column(self, obj: Table) -> SafeString | str:
        worth: TableWorth | None = getattr(obj, "_worth", None)
        if worth is None:
            return "—"
        refusal = getattr(obj, "_refusal", None)
        text = _figures(worth)
        if refusal is None:
            return format_html('<span class="rtp" data-outside="false">{}</span>', text)
        return format_html(
            '<span class="rtp rtp-outside" data-outside="true" data-reason="{}" title="{}">⚠ {} · outside the '
            "limits ({})</span>",
            refusal.reason,
            refusal.sentence(),
            text,
            refusal.reason.replace("_", " "),
        )

    @admin.display(description="return to player")
    def rtp(self, obj: Table) -> SafeString:
        state = self._state(obj)
        config = state.config if state is not None else None
        if config is None:
            return SafeString("—")
        worth = worth_of(config)
        refusal = judge(config, worth)
        low, high = limits()
        return SafeString(
            render_to_string(
                "admin/tables/table/_rtp.html",
                {
                    "worth": worth,
                    "published": worth.published(),
                    "figures": _figures(worth),
                    "best_play": percent(worth.best_play),
                    "flat": percent(worth.flat),
                    "margin": percent(worth.margin),
                    "refusal": refusal,
                    "low": percent(low),
                    "high": percent(high),
                },
            )
        )

    @admin.display(description="phase")
    def phase_now(self, obj: Table) -> str:
        state = self._state(obj)
        if state is None:
            return "—"
        waiting = state.awaiting
        who = ""
        if waiting is not None:
            who = f"; waiting for {'every punter' if waiting.seat is None else f'seat {waiting.seat}'}: {waiting.kind}"
        return f"{state.phase} (version {state.version}){who}"

    @admin.display(description="seats")
    def seats_now(self, obj: Table) -> SafeString:
        state = self._state(obj)
        if state is None or not state.seats:
            return SafeString("nobody is seated")
        return format_html_join(
            "",
            '<div>seat {} <a href="{}">{}</a>{}</div>',
            (
                (
                    s.seat,
                    player_url(s.player_id),
                    s.username,
                    " · banker" * (s.seat == state.banker_seat)
                    + " · sitting out" * s.sitting_out
                    + " · leaving" * s.leaving,
                )
                for s in state.seats
            ),
        )

    @admin.display(description="current hand")
    def current_hand(self, obj: Table) -> SafeString | str:
        hand = Hand.objects.filter(table=obj, status="in_play").order_by("-number").only("id", "number").first()
        if hand is None:
            return "none in play"
        return format_html('<a href="{}">hand {} (#{}, in play)</a>', hand_url(hand.pk), hand.pk, hand.number)

    @admin.display(description="recent hands")
    def recent_hands(self, obj: Table) -> SafeString:
        hands = list(Hand.objects.filter(table=obj).order_by("-number").defer("start_state")[:RECENT_HANDS])
        return SafeString(render_to_string("admin/tables/table/_recent_hands.html", {"hands": hands, "table": obj}))


def _figures(worth: TableWorth) -> str:
    """The figures in one line: best play and flat (exact), or flat ± margin (simulated), or why not yet."""
    if worth.method == "exact":
        return f"best play {percent(worth.best_play)} · flat {percent(worth.flat)} (exact)"
    if worth.flat is None:
        return "computing…" if worth.status == "computing" else "could not be computed"
    return f"flat {percent(worth.flat)} ± {percent(worth.margin)} (simulated)"
