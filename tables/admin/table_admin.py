"""The game in the Django admin: tables, hands (with replay and verification), events and disputes.

- Tables are created through ``tables.services.table_create`` (the form validates exactly like the API). A
  table's rules are fixed by its first event (``TableCreated``): "edit" changes only its name, which is no
  part of any event, and shows the resolved rules read-only.
- Hands are read from their events; the hand page is ``tables.admin.views``. Events are read-only for
  everybody, superusers included (the database refuses UPDATE and DELETE anyway).
- Disputes are resolved with a note and, when chips are owed, a compensating ledger entry
  (``tables.services.dispute_resolve``), never an edit.
- What a card or a seed shows goes through ``tables.admin.present`` (the core's hiding rule). Every operator
  action writes a ``LogEntry``.
See docs/admin.md.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.models import ADDITION, CHANGE
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.db.models import Prefetch, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.loader import render_to_string
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from kit.admin_lookups import DeclaredLookupsOnly, ViewOnlyAdmin
from kit.paginator import EstimatedCountAdminMixin
from lab.admin import house_edge_for
from ledger.errors import LedgerError
from ledger.models import Transaction
from rules import DomainError, TableState, acted_by
from tables import loader, services
from tables.admin.filters import (
    EventTypeFilter,
    HandStatusFilter,
    HandTableFilter,
    OutcomeFilter,
    PlayerFilter,
    PresetFilter,
    RulesReleaseFilter,
    StreamFilter,
    VerifiedFilter,
)
from tables.admin.forms import RULE_PREFIX, RULE_TOGGLES, DisputeResolveForm, TableCreateForm, TableRenameForm
from tables.admin.log import log_action
from tables.admin.present import present_rules, rules_rows, visible_event_data
from tables.admin.views import hand_page_context, verify_view
from tables.errors import DisputeAlreadyResolved, TableMissing
from tables.models import Dispute, Event, Hand, HandParticipant, Table
from tables.services import dispute_resolve
from tables.store import StoredEvent, public_metadata

RECENT_HANDS = 10


def _hand_url(hand_id: int) -> str:
    return reverse("admin:tables_hand_change", args=[hand_id])


def _player_url(user_id: int | str) -> str:
    return reverse("admin:casino_player_change", args=[user_id])


# --- tables -------------------------------------------------------------------------------------------------------


@admin.register(Table)
class TableAdmin(DeclaredLookupsOnly):
    list_display = ("id", "name", "preset", "bank", "limits", "seats", "phase", "hands_played", "banker_username")
    list_display_links = ("id", "name")
    list_filter = ("preset", "bank", "phase")
    search_fields = ("=id", "name")
    ordering = ("-id",)
    change_form_template = "admin/tables/table/change_form.html"
    readonly_fields = (
        "preset",
        "bank",
        "limits",
        "resolved_rules",
        "house_edge",
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
            ("Resolved rules", {"fields": ("resolved_rules", "house_edge")}),
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
            self.house_edge(obj)  # asks for the house-edge figure now (lab/)
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

    @admin.display(description="house edge (default strategies)")
    def house_edge(self, obj: Table) -> SafeString:
        state = self._state(obj)
        return house_edge_for(state.config if state is not None else None)

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
                    _player_url(s.player_id),
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
        return format_html('<a href="{}">hand {} (#{}, in play)</a>', _hand_url(hand.pk), hand.pk, hand.number)

    @admin.display(description="recent hands")
    def recent_hands(self, obj: Table) -> SafeString:
        hands = list(Hand.objects.filter(table=obj).order_by("-number").defer("start_state")[:RECENT_HANDS])
        return SafeString(render_to_string("admin/tables/table/_recent_hands.html", {"hands": hands, "table": obj}))


# --- hands --------------------------------------------------------------------------------------------------------


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


# --- events -------------------------------------------------------------------------------------------------------


@admin.register(Event)
class EventAdmin(EstimatedCountAdminMixin, ViewOnlyAdmin):
    """The event store, read-only. Data and metadata are shown through the hiding rule (a face-down card or
    the seed of a hand in play is hidden, the command's context never shown), never as stored. Estimated
    counts (kit/paginator.py); one table's events are read through ``UNIQUE (stream_id, version)``."""

    list_display = ("position", "table_id", "version", "type", "recorded_at", "who")
    list_filter = (StreamFilter, EventTypeFilter)
    ordering = ("-position",)
    list_per_page = 100
    fields = (
        "position",
        "table",
        "version",
        "type",
        "recorded_at",
        "who",
        "visible_data",
        "visible_metadata",
        "tx_id",
        "prev_hash",
        "hash",
    )
    readonly_fields = fields

    def get_ordering(self, request: HttpRequest) -> tuple[str, ...]:
        # one table's events newest first, in the order of its (stream_id, version) index (the same order as
        # position within a stream); walking the position index backwards would skip every other table's rows
        if (request.GET.get(StreamFilter.parameter_name) or "").strip().isdigit():
            return ("-table", "-version")
        return ("-position",)

    @admin.display(description="who")
    def who(self, event: Event) -> str:
        try:
            decoded = loader.decode(_stored(event))
        except DomainError as error:  # a row the core cannot read: the list still shows it, and says so
            return f"(cannot be read: {error.message})"
        return acted_by(decoded, event.metadata or {}).label

    @admin.display(description="data (as an auditor may see it now)")
    def visible_data(self, event: Event) -> SafeString:
        try:
            state = loader.load_table(event.table_id).state
        except TableMissing:
            return SafeString("—")
        decoded = loader.decode(_stored(event))
        data = visible_event_data(decoded, state)
        return format_html("<pre>{}</pre>", json.dumps(data, indent=2, sort_keys=True))

    @admin.display(description="metadata (the command without its context)")
    def visible_metadata(self, event: Event) -> SafeString:
        shown = public_metadata(event.metadata or {})
        return format_html("<pre>{}</pre>", json.dumps(shown, indent=2, sort_keys=True))


def _stored(event: Event) -> StoredEvent:
    return StoredEvent(
        position=event.position,
        stream_id=event.table_id,
        version=event.version,
        type=event.type,
        data=event.data,
        metadata=event.metadata,
        recorded_at=event.recorded_at,
        prev_hash=event.prev_hash,
        hash=event.hash,
    )


# --- disputes -----------------------------------------------------------------------------------------------------


@admin.register(Dispute)
class DisputeAdmin(DeclaredLookupsOnly):
    list_display = ("id", "hand_link", "user", "created_at", "status", "resolved_by", "resolved_at", "correction")
    list_filter = ("status", "created_at")
    search_fields = ("=hand__id", "user__username")
    ordering = ("-id",)
    list_select_related = ("hand", "user", "resolved_by")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False  # players file disputes through the API

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="hand", ordering="hand_id")
    def hand_link(self, dispute: Dispute) -> SafeString:
        return format_html(
            '<a href="{}">hand {} (table #{}, #{})</a>',
            _hand_url(dispute.hand_id),
            dispute.hand_id,
            dispute.hand.table_id,
            dispute.hand.number,
        )

    @admin.display(description="compensating entry")
    def correction(self, dispute: Dispute) -> SafeString | str:
        if dispute.correction_transaction_id is None:
            return "—"
        url = reverse("admin:ledger_transaction_change", args=[dispute.correction_transaction_id])
        return format_html('<a href="{}">transaction {}</a>', url, dispute.correction_transaction_id)

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        dispute = self.get_object(request, unquote(object_id))
        if dispute is None:
            return self._get_obj_does_not_exist_redirect(request, self.opts, object_id)
        if not self.has_view_permission(request, dispute):
            raise PermissionDenied
        can_resolve = dispute.status == "open" and self.has_change_permission(request, dispute)
        accounts = [
            f"player:{p.user.get_username()}"
            for p in HandParticipant.objects.filter(hand_id=dispute.hand_id).select_related("user").order_by("seat")
        ]
        if f"player:{dispute.user.get_username()}" not in accounts:
            accounts.insert(0, f"player:{dispute.user.get_username()}")
        form = None
        if request.method == "POST":
            if not can_resolve:
                raise PermissionDenied
            form = DisputeResolveForm(request.POST, dispute=dispute, accounts=accounts)
            if form.is_valid():
                response = self._resolve(request, dispute, form)
                if response is not None:
                    return response
        elif can_resolve:
            form = DisputeResolveForm(dispute=dispute, accounts=accounts)
        correction = None
        if dispute.correction_transaction_id is not None:
            correction = (
                Transaction.objects.filter(pk=dispute.correction_transaction_id)
                .prefetch_related("postings__account")
                .first()
            )
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Dispute {dispute.pk} on hand {dispute.hand_id}",
            "dispute": dispute,
            "hand_url": _hand_url(dispute.hand_id),
            "form": form,
            "can_resolve": can_resolve,
            "correction": correction,
        }
        return TemplateResponse(request, "admin/tables/dispute/dispute_page.html", context)

    def _resolve(self, request: HttpRequest, dispute: Dispute, form: DisputeResolveForm) -> HttpResponse | None:
        compensation = form.compensation()
        try:
            resolved = dispute_resolve(
                dispute_id=dispute.pk,
                operator=request.user,
                resolution=form.cleaned_data["resolution"],
                compensation=compensation,
            )
        except DisputeAlreadyResolved as exc:
            messages.error(request, str(exc))
            return HttpResponseRedirect(request.path)
        except LedgerError as exc:
            form.add_error(None, exc.message)
            return None
        if resolved.correction_transaction_id is not None:
            entry = Transaction.objects.get(pk=resolved.correction_transaction_id)
            log_action(
                request,
                entry,
                ADDITION,
                f"Compensating entry for dispute {resolved.pk} on hand {resolved.hand_id}: "
                + ", ".join(f"{code} {amount:+d}" for code, amount in (compensation or {}).items()),
            )
        paid = f"; compensation {compensation}" if compensation else "; no chips owed"
        log_action(request, resolved, CHANGE, f"Resolved dispute {resolved.pk}: {resolved.resolution}{paid}")
        messages.success(request, f"Dispute {resolved.pk} resolved.")
        return HttpResponseRedirect(request.path)
