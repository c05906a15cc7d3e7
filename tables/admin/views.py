"""The admin's hand page: the table card, the participants' cards, results and nets, the timeline of every
event, the ledger, the step-by-step replay and the verification (DESIGN.md principle 10).

The page is built from the hand's events (``tables.hand_events.replay_hand``), never from a cache, and everything it
shows goes through ``tables.admin.present`` (the core's hiding rule): while the hand is in play there is no
face-down card, no undealt card and no server seed in the HTML.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.contrib.admin.models import CHANGE
from django.db.models import Q
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse

from ledger.models import Transaction, TransactionKind
from rules import TableState
from tables import loader
from tables.admin.log import log_action
from tables.admin.present import (
    TimelineRow,
    dealt_faces,
    present_rules,
    present_state,
    rules_rows,
    timeline_row,
)
from tables.errors import HandInPlay
from tables.hand_events import replay_hand
from tables.models import Dispute, Hand
from tables.public_metadata import public_command
from tables.store import StoredEvent
from tables.verify import CHECKS, verification_ok, verify_hand

VERIFY_SESSION_KEY = "admin-verify:{hand}"
#: What the timeline leaves out of a public command: the ids the actor column already gives.
COMMAND_SHOWN_ELSEWHERE = ("type", "player_id", "username")


@dataclass(frozen=True, slots=True)
class HandReplay:
    """A hand's steps (the state after each event from HandOpened to its settlement) and what the admin needs
    to draw them: whether the hand is over (then every card dealt in it is public), seat and player names and
    how each card was dealt."""

    hand: Hand
    steps: list[tuple[StoredEvent, TableState]]
    public: bool
    names: dict[str, str]  # player id -> username
    seat_names: dict[int, str]
    dealt: dict[str, bool]

    @property
    def final(self) -> TableState:
        return self.steps[-1][1]

    def state_at(self, step: int) -> dict[str, Any]:
        """The full table state after step ``step`` (1-based), as the admin may show it."""
        _, state = self.steps[step - 1]
        return present_state(state, self.hand.number, public=self.public, names=self.seat_names, dealt=self.dealt)

    def timeline(self) -> list[TimelineRow]:
        """Every event of the hand, each with who, what and when (filtered against the latest state)."""
        rows = []
        for stored, _ in self.steps:
            command = public_command(stored.metadata)
            shown = None
            if command is not None and stored.metadata.get("command_version") == stored.version:
                args = {k: v for k, v in command.items() if k not in COMMAND_SHOWN_ELSEWHERE and v is not None}
                shown = {"type": command.get("type"), "args": args}
            rows.append(timeline_row(stored, loader.decode(stored), self.final, self.seat_names, shown))
        return rows


def load_replay(hand: Hand) -> HandReplay:
    """Replay ``hand`` from its events."""
    steps = replay_hand(hand)
    final = steps[-1][1]
    current = final.hand
    public = current is not None and current.number == hand.number and not current.in_play
    names: dict[str, str] = {}
    seat_names: dict[int, str] = {}
    for _, state in steps[:1] + steps[-1:]:
        for seat in state.seats:
            names.setdefault(seat.player_id, seat.username)
            seat_names.setdefault(seat.seat, seat.username)
    for stored, _ in steps:
        if stored.type == "SeatTaken":
            names[str(stored.data.get("player_id"))] = str(stored.data.get("username"))
    dealt = dealt_faces((loader.decode(s) for s, _ in steps if s.type == "CardDealt"), hand.number)
    return HandReplay(hand, steps, public, names, seat_names, dealt)


def _ledger_rows(hand: Hand, disputes: list[Dispute]) -> list[dict[str, Any]]:
    dispute_ids = [d.pk for d in disputes]
    query = Q(table_id=hand.table_id, hand_id=hand.pk)
    if dispute_ids:
        query |= Q(kind=TransactionKind.CORRECTION, details__dispute_id__in=dispute_ids)
    transactions = (
        Transaction.objects.filter(query).select_related("actor").prefetch_related("postings__account").order_by("id")
    )
    return [
        {
            "transaction": tx,
            "url": reverse("admin:ledger_transaction_change", args=[tx.pk]),
            "postings": sorted(tx.postings.all(), key=lambda p: p.pk),
        }
        for tx in transactions
    ]


def _step(request: HttpRequest, count: int) -> int:
    try:
        step = int(request.GET.get("step", "1"))
    except ValueError:
        step = 1
    return min(max(step, 1), count)


def hand_page_context(request: HttpRequest, hand: Hand) -> dict[str, Any]:
    """Everything the hand page shows."""
    replay = load_replay(hand)
    count = len(replay.steps)
    step = _step(request, count)
    disputes = list(Dispute.objects.filter(hand=hand).select_related("user", "resolved_by").order_by("id"))
    final = replay.final
    report = request.session.pop(VERIFY_SESSION_KEY.format(hand=hand.pk), None)
    timeline = replay.timeline()
    rules = present_rules(final)
    return {
        "hand": hand,
        "table": hand.table,
        "rules": rules,
        "rules_rows": rules_rows(rules) if rules is not None else [],
        "public": replay.public,
        "now": replay.state_at(count),
        "participants": list(hand.participants.select_related("user").order_by("seat")),
        "timeline": timeline,
        "ledger": _ledger_rows(hand, disputes),
        "disputes": disputes,
        "replay": {
            "step": step,
            "count": count,
            "event": timeline[step - 1],
            "state": replay.state_at(step),
            "first": 1,
            "previous": max(step - 1, 1),
            "next": min(step + 1, count),
            "last": count,
        },
        "verification": None
        if report is None
        else {"rows": [(check, report.get(check, "not run")) for check in CHECKS], "ok": verification_ok(report)},
        "can_verify": hand.status != "in_play",
    }


def verify_view(request: HttpRequest, hand: Hand) -> HttpResponse:
    """POST: run every check of the hand, record the outcome on the hand, log who ran it and show the report."""
    page = reverse("admin:tables_hand_change", args=[hand.pk])
    try:
        report = verify_hand(Hand.objects.get(pk=hand.pk), source="admin")
    except HandInPlay as exc:
        messages.warning(request, exc.message)
        return HttpResponseRedirect(page)
    ok = report.ok
    request.session[VERIFY_SESSION_KEY.format(hand=hand.pk)] = report.checks
    summary = "every check passed" if ok else "; ".join(f"{k}: {v}" for k, v in report.failing().items())
    log_action(request, hand, CHANGE, f"Verified hand {hand.pk}: {summary}")
    (messages.success if ok else messages.error)(request, f"Verification of hand {hand.pk}: {summary}.")
    return HttpResponseRedirect(page + "#verification")
