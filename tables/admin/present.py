"""What the admin shows of a table state and of its events, through the core's one hiding rule.

Nothing here decides on its own what may be seen. Every card goes through
:func:`rules.card_visible` with the auditor viewer, and every event through
:func:`rules.view_event`; the server seed and the deck appear only once the hand is over. The one input
the admin adds is ``public``: the hand is settled (or abandoned) *now*. Then, as the rules say, every card
dealt in it is public, and the replay shows every card at every step; while the hand is in play, each step
shows exactly what the core's auditor view of that step shows (no face-down card, no undealt card, no seed).

Recorded commands are shown without their context (``ctx``): its entropy is the server seed of any hand the
command opened and its wallets are other players' balances.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from msgspec import to_builtins

from kit.card_names import card_label, card_name
from rules import (
    PRESETS,
    BetPlaced,
    CardAssigned,
    CardDealt,
    CardTurnedUp,
    Event,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandSplit,
    PlayerTimedOut,
    TableState,
    Viewer,
    acted_by,
    describe_event,
    format_hp,
    hand_facts,
    table_settings,
    view_event,
)
from rules.describe import HOUSE_LABEL, ActorKind
from rules.hiding import card_hidden
from rules.state import HandState
from rules.view_records import CardView, HandView, PendingCard
from tables.store import StoredEvent

AUDITOR = Viewer.auditor()

CATEGORY_LABELS = {
    "bust": "bust",
    "points": "points",
    "seven_half": "seven and a half",
    "reale": "reale (7½ with a picture and a seven)",
    "pair7": "pair of sevens",
}


def card_title(code: str) -> str:
    """The card's name in the operator's language with its code: "rey de oros (12O)" (kit.card_names)."""
    return card_label(code)


@dataclass(frozen=True, slots=True)
class Card:
    """A card as the admin draws it. ``code`` is None when the card may not be seen (drawn face down)."""

    code: str | None
    face_up: bool  # lies face up at this step
    dealt_face_up: bool | None = None  # as dealt (None: not known from the events shown)

    @property
    def hidden(self) -> bool:
        return self.code is None

    @property
    def label(self) -> str:
        return card_name(self.code) if self.code else "?"

    @property
    def title(self) -> str:
        if self.code is None:
            return "face down: hidden while the hand is in play"
        how = "dealt face down" if self.dealt_face_up is False else "dealt face up"
        return f"{card_title(self.code)} ({how})"

    @property
    def red(self) -> bool:
        return bool(self.code) and self.code[-1] in ("O", "C")  # type: ignore[index]

    @property
    def dealt_down(self) -> bool:
        return self.dealt_face_up is False or (self.dealt_face_up is None and not self.face_up)


def _card(card: CardView, dealt: Mapping[str, bool]) -> Card:
    return Card(card.code, card.face_up, dealt.get(card.code) if card.code is not None else None)


def pending_view(pending: PendingCard) -> CardView:
    """A Hungarian card waiting to be assigned: it lies face up."""
    return CardView(code=pending.code, face_up=True)


def _score(h: HandView) -> dict[str, Any] | None:
    if h.total is None or h.category is None:
        return None  # a card of the hand may not be seen, or it has no card
    return {
        "total": h.total,
        "total_half_points": h.total_half_points,
        "category": h.category,
        "category_label": CATEGORY_LABELS.get(h.category, h.category),
        "matta_value": h.matta_value,
    }


def dealt_faces(events: Iterable[Event], number: int) -> dict[str, bool]:
    """Card code -> face up as dealt, for the cards dealt in hand ``number``."""
    return {e.card: e.face_up for e in events if isinstance(e, CardDealt) and e.number == number}


def present_hand_state(
    state: TableState, hand: HandState, *, public: bool, names: Mapping[int, str], dealt: Mapping[str, bool]
) -> dict[str, Any]:
    """The core's :func:`~rules.hand_facts` of ``hand`` for the auditor (``public``: the hand is over
    now, so every card dealt in it is shown at every step), drawn for the admin: card chips, category labels,
    the house named as the house. ``names``: seat -> username as the hand went."""
    facts = hand_facts(state, hand, AUDITOR, public=public, names=names)
    pending = facts.pending_card
    return {
        "number": facts.number,
        "phase": facts.phase,
        "stake": facts.stake,
        "participants": [
            {
                "seat": p.seat,
                "username": p.username or HOUSE_LABEL,
                "role": p.role,
                "hands": [
                    {
                        "index": h.index,
                        "bet": h.bet,
                        "cards": [_card(c, dealt) for c in h.cards],
                        "status": h.status,
                        "score": _score(h),
                        "result": h.result,
                    }
                    for h in p.hands
                ],
            }
            for p in facts.participants
        ],
        "pending": None if pending is None else {"seat": pending.seat, "card": _card(pending_view(pending), dealt)},
        "stock_left": facts.stock_left,
        "cards_dealt": facts.cards_dealt,
        "seed_commitment": facts.seed_commitment,
        "client_seed": facts.client_seed,
        "server_seed": facts.server_seed,
        "deck": facts.deck,
        "deck_pairs": [(code, card_name(code)) for code in facts.deck] if facts.deck else None,
        "deck_reason": facts.deck_reason,
        "results": [
            {
                **to_builtins(r),
                "username": names.get(r.seat, r.player_id),
                "category_label": CATEGORY_LABELS.get(r.category, r.category),
                "total": format_hp(r.total_half_points),
            }
            for r in facts.results or ()
        ],
        "banker_net": facts.banker_net,
        "next_banker_seat": facts.next_banker.seat if facts.next_banker is not None else None,
    }


def present_state(
    state: TableState, number: int, *, public: bool, names: Mapping[int, str], dealt: Mapping[str, bool]
) -> dict[str, Any]:
    """The full table state after one step of a hand's replay: phase, version, seats, whom the table waits
    on, and the hand (see :func:`present_hand_state`)."""
    awaiting = state.awaiting
    hand = state.hand if state.hand is not None and state.hand.number == number else None
    return {
        "version": state.version,
        "phase": state.phase if hand is not None else "waiting",
        "banker_seat": state.banker_seat,
        "seats": [
            {
                "seat": s.seat,
                "username": s.username,
                "is_banker": s.seat == state.banker_seat,
                "sitting_out": s.sitting_out,
                "leaving": s.leaving,
                "timeouts": s.timeouts,
            }
            for s in state.seats
        ],
        "awaiting": None
        if awaiting is None
        else {
            "seat": awaiting.seat,
            "hand": awaiting.hand,
            "kind": awaiting.kind,
            "deadline": datetime.fromtimestamp(awaiting.deadline_ms / 1000, tz=UTC),
        },
        "hand": present_hand_state(state, hand, public=public, names=names, dealt=dealt) if hand else None,
    }


def present_rules(state: TableState) -> dict[str, Any] | None:
    """The table card: the table's settings (:func:`~rules.table_settings`) fixed by its first event."""
    settings = table_settings(state)
    return None if settings is None else to_builtins(settings)


def rules_rows(table: Mapping[str, Any]) -> list[tuple[str, Any, bool]]:
    """Every resolved toggle with its value and whether it overrides the table's preset."""
    preset = PRESETS.get(str(table.get("preset")))
    return [
        (name, value, preset is not None and getattr(preset, name, value) != value)
        for name, value in table["rules"].items()
    ]


# --- events -------------------------------------------------------------------------------------------------------


def visible_event_data(event: Event, state: TableState) -> dict[str, Any]:
    """The event's data as the auditor may see it now (``state``: the table at or after the event)."""
    data = view_event(event, AUDITOR, state)
    data.pop("type", None)
    return data


def event_cards(event: Event, state: TableState) -> list[Card]:
    """The cards an event shows (as chips on the timeline); hidden ones as face-down backs."""
    match event:
        case CardDealt(card=card, face_up=face_up):
            return [Card(None if card_hidden(event, AUDITOR, state) else card, face_up, face_up)]
        case CardTurnedUp(card=card) | CardAssigned(card=card) | HandSplit(card=card):
            return [Card(card, True)]
        case HandBusted(cards=cards) | HandMadeSevenHalf(cards=cards) | HandMadePairOfSevens(cards=cards):
            return [Card(code, True) for code in cards]
    return []


@dataclass(frozen=True, slots=True)
class TimelineRow:
    """One event on a hand's timeline."""

    seq: int
    at: datetime
    type: str
    who: str
    system: bool
    timeout: bool
    what: str
    cards: list[Card]
    command: dict[str, Any] | None


def timeline_row(
    stored: StoredEvent,
    event: Event,
    state: TableState,
    seats: Mapping[int, str],
    command: dict[str, Any] | None = None,
) -> TimelineRow:
    """An event for the timeline: who (:func:`~rules.acted_by`), what, when."""
    actor = acted_by(event, stored.metadata)
    return TimelineRow(
        seq=stored.version,
        at=stored.recorded_at,
        type=stored.type,
        who=actor.label,
        system=actor.kind == ActorKind.SYSTEM,
        timeout=actor.reason == "timeout"
        or isinstance(event, PlayerTimedOut)
        or (isinstance(event, BetPlaced) and event.by_timeout),
        what=describe_event(event, seats, AUDITOR, state),
        cards=event_cards(event, state),
        command=command,
    )
