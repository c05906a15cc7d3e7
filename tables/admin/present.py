"""What the admin shows of a table state and of its events, through the core's one hiding rule.

Nothing here decides on its own what may be seen. Every card goes through
:func:`tables.rules.card_visible` with the auditor viewer, and every event through
:func:`tables.rules.view_event`; the server seed and the deck appear only once the hand is over. The one input
the admin adds is ``public``: the hand is settled (or abandoned) *now*. Then, as the rules say, every card
dealt in it is public, and the replay shows every card at every step; while the hand is in play, each step
shows exactly what the core's auditor view of that step shows (no face-down card, no undealt card, no seed).

Recorded commands are shown without their context (``ctx``): its entropy is the server seed of any hand the
command opened and its wallets are other players' balances.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from tables.rules import (
    PRESETS,
    CardDealt,
    Event,
    TableState,
    Viewer,
    card_visible,
    evaluate,
    format_hp,
    result_row,
    view_event,
)
from tables.rules.config import config_to_dict
from tables.rules.enums import HandStatus
from tables.rules.state import HandState
from tables.store import StoredEvent

AUDITOR = Viewer.auditor()

SUIT_SYMBOLS = {"O": "♦", "C": "♥", "E": "♠", "B": "♣"}
SUIT_NAMES = {"O": "coins (oros)", "C": "cups (copas)", "E": "swords (espadas)", "B": "clubs (bastos)"}
RANK_LABELS = {1: "A", 10: "J", 11: "Q", 12: "K"}
RANK_NAMES = {1: "ace", 10: "jack (sota)", 11: "horse (caballo)", 12: "king (rey)"}
CATEGORY_LABELS = {
    "bust": "bust",
    "points": "points",
    "seven_half": "seven and a half",
    "reale": "reale (7½ with a picture and a seven)",
    "pair7": "pair of sevens",
}


def card_label(code: str) -> str:
    """``7O`` -> ``7♦``, ``12E`` -> ``K♠``."""
    rank = int(code[:-1])
    return f"{RANK_LABELS.get(rank, str(rank))}{SUIT_SYMBOLS[code[-1]]}"


def card_title(code: str) -> str:
    rank = int(code[:-1])
    return f"{code}: {RANK_NAMES.get(rank, str(rank))} of {SUIT_NAMES[code[-1]]}"


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
        return card_label(self.code) if self.code else "?"

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


def _visible_cards(
    owner: str | None,
    cards: Sequence[str],
    face_up: Sequence[bool],
    shown: bool,
    settled: bool,
    dealt: Mapping[str, bool],
) -> tuple[list[Card], bool]:
    out: list[Card] = []
    everything = True
    for code, up in zip(cards, face_up, strict=True):
        visible = card_visible(AUDITOR, owner, up, shown, settled)
        everything &= visible
        out.append(Card(code if visible else None, up or shown, dealt.get(code) if visible else None))
    return out, everything


def _score(cards: Sequence[str], state: TableState, *, split: bool) -> dict[str, Any]:
    assert state.config is not None
    score = evaluate(cards, state.config.rules, split=split)
    return {
        "total": format_hp(score.total_hp),
        "total_half_points": score.total_hp,
        "category": score.category,
        "category_label": CATEGORY_LABELS.get(score.category, score.category),
        "matta_value": score.matta_hp,
    }


def dealt_faces(events: Iterable[Event], number: int) -> dict[str, bool]:
    """Card code -> face up as dealt, for the cards dealt in hand ``number``."""
    return {e.card: e.face_up for e in events if isinstance(e, CardDealt) and e.number == number}


def present_hand_state(
    state: TableState, hand: HandState, *, public: bool, names: Mapping[str, str], dealt: Mapping[str, bool]
) -> dict[str, Any]:
    """The hand of ``state`` for the admin: banker first, then each punter's hands in play order, with cards,
    stakes, statuses, totals and categories (only where every card of the hand may be seen) and results."""
    settled = public or hand.phase in ("settled", "abandoned")
    banker = hand.banker
    banker_cards, all_banker = _visible_cards(banker.player_id, banker.cards, banker.face_up, False, settled, dealt)
    banker_row = {
        "seat": banker.seat,
        "username": names.get(banker.player_id or "", "") if banker.player_id else "the house",
        "role": "banker",
        "hands": [
            {
                "index": 0,
                "bet": None,
                "cards": banker_cards,
                "status": banker.status,
                "score": _score(banker.cards, state, split=False) if all_banker and banker.cards else None,
                "result": None,
            }
        ],
    }
    punters: dict[int, dict[str, Any]] = {}
    for h in hand.punters:
        cards, everything = _visible_cards(h.player_id, h.cards, h.face_up, h.shown, settled, dealt)
        row = punters.setdefault(
            h.seat,
            {"seat": h.seat, "username": names.get(h.player_id, h.player_id), "role": "punter", "hands": []},
        )
        result = h.result
        row["hands"].append(
            {
                "index": h.hand_index,
                "bet": h.stake,
                "cards": cards,
                "status": "closed" if h.status == HandStatus.VOID else h.status,
                "score": _score(h.cards, state, split=h.seat in hand.split_seats) if everything and h.cards else None,
                "result": None
                if result is None
                else {"outcome": result.outcome, "tie": result.tie, "multiplier": result.multiplier, "net": result.net},
                "reserves": (h.punter_reserve, h.banker_reserve),
            }
        )
    pending = None
    if hand.pending is not None:  # a Hungarian card waiting to be assigned lies face up
        pending = {"seat": hand.pending[0], "card": Card(hand.pending[1], True, dealt.get(hand.pending[1]))}
    return {
        "number": hand.number,
        "phase": hand.phase,
        "stake": hand.stake,
        "participants": [banker_row, *punters.values()],
        "pending": pending,
        "stock_left": len(hand.deck) - hand.next_card,
        "seed_commitment": hand.seed_commitment,
        "client_seed": hand.client_seed,
        "server_seed": hand.server_seed if settled else None,
        "deck": list(hand.deck) if settled else None,
        "cards_dealt": hand.next_card,
        "results": [
            {
                **result_row(r),
                "username": names.get(r.player_id, r.player_id),
                "category": CATEGORY_LABELS.get(r.category, r.category),
                "total": format_hp(r.total_half_points),
            }
            for r in hand.results
        ]
        if hand.phase == "settled"
        else [],
        "banker_net": -sum(r.net for r in hand.results) if hand.phase == "settled" else None,
        "next_banker_seat": hand.next_banker_seat if hand.phase == "settled" else None,
    }


def present_state(
    state: TableState, number: int, *, public: bool, names: Mapping[str, str], dealt: Mapping[str, bool]
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
    """The table card: the resolved configuration fixed by the table's first event."""
    if state.config is None:
        return None
    table = config_to_dict(state.config)
    table["fixed_stake"] = state.stake if state.stake is not None else table["fixed_stake"]
    return table


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



def _seat(seat: Any, names: Mapping[int, str]) -> str:
    if seat is None:
        return "the house"
    name = names.get(seat)
    return f"seat {seat} ({name})" if name else f"seat {seat}"


def _cards_text(codes: Iterable[Any]) -> str:
    return " ".join(card_label(c) if c else "?" for c in codes)


def describe_event(kind: str, data: Mapping[str, Any], seats: Mapping[int, str]) -> str:
    """One line saying what an event (already filtered by :func:`visible_event_data`) records."""
    d = data
    seat = _seat(d.get("seat"), seats) if "seat" in d else ""
    hand = f" hand {d['hand']}" if d.get("hand") not in (None, 0) else ""
    if kind == "TableCreated":
        c = d.get("config", {})
        return f"table created: {c.get('preset')}, {c.get('bank')} bank, bets {c.get('min_bet')}-{c.get('max_bet')}"
    if kind == "SeatTaken":
        return f"{d.get('username')} takes seat {d.get('seat')}"
    if kind in ("SatOut", "SatIn", "SeatLeft"):
        verb = {"SatOut": "sits out", "SatIn": "sits in", "SeatLeft": "leaves"}[kind]
        return f"{seat} {verb} ({d.get('reason')})"
    if kind == "LeaveRequested":
        return f"{seat} will leave after the hand"
    if kind == "PlayerTimedOut":
        return f"{seat} timed out waiting for {d.get('waiting_for')} (streak {d.get('streak')})"
    if kind == "TimeoutStreakReset":
        return f"{seat} acted again: timeout streak reset"
    if kind == "HandOpened":
        banker = _seat(d.get("banker_seat"), seats)
        seed = d.get("server_seed") or "hidden until settlement"
        return (
            f"hand #{d.get('number')} opened, banker {banker}, entrants {list(d.get('entrants') or [])}; "
            f"commitment {d.get('seed_commitment')}; server seed {seed}"
        )
    if kind == "ActionAwaited":
        who = "every punter owing a bet" if d.get("seat") is None else _seat(d.get("seat"), seats) + hand
        deadline = datetime.fromtimestamp(int(d.get("deadline_ms") or 0) / 1000, tz=UTC)
        return f"waiting for {who}: {d.get('kind')} until {deadline:%H:%M:%S} UTC"
    if kind == "BetPlaced":
        how = " by timeout" if d.get("by_timeout") else ""
        return (
            f"{seat}{hand} bets {d.get('amount')}{how} (stake {d.get('stake')}; reserves: punter "
            f"{d.get('punter_reserve')}, banker {d.get('banker_reserve')})"
        )
    if kind == "StakeRaised":
        return f"{seat}{hand} raises {d.get('amount')} to {d.get('stake')}"
    if kind == "PunterSkipped":
        return f"{seat} is out of this hand ({d.get('reason')})"
    if kind == "BettingClosed":
        return "betting closed"
    if kind == "CardDealt":
        to = "the banker" if d.get("banker") else _seat(d.get("seat"), seats) + hand
        face = "face up" if d.get("face_up") else "face down"
        card = card_label(d["card"]) if d.get("card") else "a hidden card"
        index = f" (deck index {d['deck_index']})" if d.get("deck_index") is not None else ""
        return f"{card} dealt {face} to {to}{index}"
    if kind == "CardTurnedUp":
        who = "the banker" if d.get("banker") else _seat(d.get("seat"), seats) + hand
        return f"{who} turns up {card_label(d['card'])}"
    if kind == "CardAssigned":
        return f"{seat} assigns {card_label(d['card'])} to hand {d.get('hand')}"
    if kind == "HandSplit":
        return f"{seat} splits: {card_label(d['card'])} starts hand {d.get('new_hand')} with stake {d.get('amount')}"
    if kind == "HandStood":
        who = "the banker" if d.get("banker") else seat + hand
        return f"{who} stands ({d.get('reason')})"
    if kind in ("HandBusted", "HandMadeSevenHalf", "HandMadePairOfSevens"):
        who = "the banker" if d.get("banker") else seat + hand
        what = {"HandBusted": "busts", "HandMadeSevenHalf": "makes seven and a half", "HandMadePairOfSevens": ""}
        verb = what[kind] or "makes a pair of sevens"
        total = f" with {format_hp(d['total_half_points'])}" if d.get("total_half_points") is not None else ""
        return f"{who} {verb}{total}: {_cards_text(d.get('cards') or [])}"
    if kind == "BankerTurnStarted":
        return f"banker's turn ({_seat(d.get('seat'), seats)})"
    if kind == "BankerTurnSkipped":
        return "no punter hand left: the banker does not play"
    if kind == "HandSettled":
        return (
            f"hand #{d.get('number')} settled: banker net {d.get('banker_net')}, next banker "
            f"{_seat(d.get('next_banker_seat'), seats)} ({d.get('bank_reason')}); server seed {d.get('server_seed')}"
        )
    if kind == "HandAbandoned":
        return f"hand #{d.get('number')} abandoned ({d.get('reason')}); server seed {d.get('server_seed')}"
    if kind == "BankPassed":
        to = _seat(d.get("to_seat"), seats) if d.get("to_seat") is not None else "nobody"
        return f"bank passes from {_seat(d.get('from_seat'), seats)} to {to} ({d.get('reason')})"
    if kind == "FirstBankerDrawn":
        return f"first banker drawn: {seat} among seats {list(d.get('candidates') or [])}"
    if kind == "StakeSet":
        return f"{seat} sets the stake S to {d.get('amount')}"
    if kind == "BankRetirementRequested":
        return f"{seat} retires the bank after the hand"
    if kind == "ClientSeedSet":
        return f"{seat} sets client seed {d.get('client_seed')}"
    return ", ".join(f"{k}={v}" for k, v in d.items())


def event_cards(kind: str, data: Mapping[str, Any]) -> list[Card]:
    """The cards an event shows (as chips on the timeline); hidden ones as face-down backs."""
    if kind == "CardDealt":
        return [Card(data.get("card"), bool(data.get("face_up")), bool(data.get("face_up")))]
    if kind in ("CardTurnedUp", "CardAssigned", "HandSplit"):
        return [Card(data.get("card"), True)]
    if kind in ("HandBusted", "HandMadeSevenHalf", "HandMadePairOfSevens"):
        return [Card(code, True) for code in data.get("cards") or []]
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
    """An event for the timeline: who (the actor, or the system with its reason), what, when."""
    data = visible_event_data(event, state)
    metadata = stored.metadata
    actor = metadata.get("actor")
    reason = metadata.get("reason")
    system = actor is None
    who = str(metadata.get("actor_username") or f"user {actor}") if not system else f"system ({reason or 'rule'})"
    return TimelineRow(
        seq=stored.version,
        at=stored.recorded_at,
        type=stored.type,
        who=who,
        system=system,
        timeout=reason == "timeout" or stored.type == "PlayerTimedOut" or bool(data.get("by_timeout")),
        what=describe_event(stored.type, data, seats),
        cards=event_cards(stored.type, data),
        command=command,
    )
