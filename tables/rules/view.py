"""What a viewer may see: the one place where cards are hidden (DESIGN.md principle 7).

A card is visible to a viewer if it lies face up, if its hand was shown (bust, 15 hp, pair of sevens, the
showdown), if its hand is settled (then everything dealt is public, and the server seed is revealed), or
if the viewer owns it (a player sees his own face-down cards; a player banker his own). Nobody else sees a
face-down card, the banker included, nor any undealt card. An auditor sees what a spectator sees until
the hand is settled, and the whole deck order after.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .cards import CANONICAL_DECK, format_hp
from .codec import event_to_json
from .config import config_to_dict
from .enums import HandStatus, Phase
from .events import CardDealt, Event, HandOpened, HandResult, SeedCommitted
from .legal import legal_actions, legal_hands
from .scoring import Score, evaluate
from .shuffle import shuffle_deck
from .state import BankerHand, EndedHand, HandState, PunterHand, TableState


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: ``player`` (with ``player_id``), ``spectator`` or ``auditor``."""

    kind: str
    player_id: str | None = None

    @staticmethod
    def player(player_id: str) -> Viewer:
        """A player (seated or not) looking at the table."""
        return Viewer("player", player_id)

    @staticmethod
    def spectator() -> Viewer:
        """Anyone signed in who is not playing."""
        return Viewer("spectator")

    @staticmethod
    def auditor() -> Viewer:
        """An operator checking a settled hand: sees everything once the hand is settled."""
        return Viewer("auditor")


def card_visible(viewer: Viewer, owner_id: str | None, face_up: bool, shown: bool, settled: bool) -> bool:
    """The single hiding rule: may ``viewer`` see a card held by ``owner_id``?"""
    if face_up or shown or settled:
        return True
    return viewer.kind == "player" and owner_id is not None and viewer.player_id == owner_id


def result_row(result: HandResult) -> dict[str, Any]:
    """One settled punter hand as the API shows it: the one shape of a result row, in the table view, the hand
    history and the back office."""
    return {
        "seat": result.seat,
        "player_id": result.player_id,
        "hand": result.hand,
        "bet": result.bet,
        "category": result.category,
        "total_half_points": result.total_half_points,
        "matta_value": result.matta_value,
        "outcome": result.outcome,
        "tie": result.tie,
        "multiplier": result.multiplier,
        "net": result.net,
    }


def _total_fields(score: Score | None) -> dict[str, Any]:
    if score is None:
        return {"total": None, "total_half_points": None, "category": None}
    return {"total": format_hp(score.total_hp), "total_half_points": score.total_hp, "category": score.category}


def _cards(
    viewer: Viewer, owner: str | None, cards: tuple[str, ...], face_up: tuple[bool, ...], shown: bool, settled: bool
) -> tuple[list[dict[str, Any]], bool]:
    out = []
    all_visible = True
    for code, up in zip(cards, face_up, strict=True):
        visible = card_visible(viewer, owner, up, shown, settled)
        all_visible &= visible
        out.append({"code": code if visible else None, "face_up": up or shown or settled})
    return out, all_visible


def _punter_hand_view(viewer: Viewer, hand: HandState, h: PunterHand, state: TableState) -> dict[str, Any]:
    settled = hand.phase == Phase.SETTLED
    cards, all_visible = _cards(viewer, h.player_id, h.cards, h.face_up, h.shown, settled)
    score: Score | None = None
    if all_visible and h.cards:
        if h.category is not None and h.total_hp is not None:
            score = Score(h.category, h.total_hp, h.matta_hp)
        else:
            assert state.config is not None
            score = evaluate(h.cards, state.config.rules, split=h.seat in hand.split_seats)
    out: dict[str, Any] = {
        "index": h.hand_index,
        "bet": h.stake,
        "cards": cards,
        **_total_fields(score),
        "matta_value": score.matta_hp if score is not None else None,
        "status": "closed" if h.status == HandStatus.VOID else h.status,
    }
    if h.result is not None:
        r = h.result
        out["result"] = {"outcome": r.outcome, "tie": r.tie, "multiplier": r.multiplier, "net": r.net}
    return out


def _banker_hand_view(viewer: Viewer, hand: HandState, b: BankerHand, state: TableState) -> dict[str, Any]:
    settled = hand.phase == Phase.SETTLED
    cards, all_visible = _cards(viewer, b.player_id, b.cards, b.face_up, False, settled)
    score: Score | None = None
    if all_visible and b.cards:
        assert state.config is not None
        score = evaluate(b.cards, state.config.rules)
    return {
        "index": 0,
        "bet": None,
        "cards": cards,
        **_total_fields(score),
        "matta_value": score.matta_hp if score is not None else None,
        "status": b.status,
        "played": b.played,
    }


def _hand_view(viewer: Viewer, state: TableState, hand: HandState) -> dict[str, Any]:
    settled = hand.phase == Phase.SETTLED
    names = {s.seat: s.username for s in state.seats}
    b = hand.banker
    participants: list[dict[str, Any]] = [
        {
            "seat": b.seat,
            "player_id": b.player_id,
            "username": names.get(b.seat) if b.seat is not None else None,
            "role": "banker",
            "hands": [_banker_hand_view(viewer, hand, b, state)],
        }
    ]
    by_seat: dict[int, list[dict[str, Any]]] = {}
    for h in hand.punters:
        by_seat.setdefault(h.seat, []).append(_punter_hand_view(viewer, hand, h, state))
    for seat, hands in by_seat.items():
        first = hand.find(seat, 0) or next(h for h in hand.punters if h.seat == seat)
        participants.append(
            {"seat": seat, "player_id": first.player_id, "username": names.get(seat), "role": "punter", "hands": hands}
        )
    aw = state.awaiting
    out: dict[str, Any] = {
        "number": hand.number,
        "nonce": hand.number,
        "seed_commitment": hand.seed_commitment,
        "client_seed": hand.client_seed or None,
        "server_seed": (hand.server_seed or None) if settled or hand.phase == Phase.ABANDONED else None,
        "stake": hand.stake,
        "phase": hand.phase,
        "turn": {"seat": aw.seat, "hand": aw.hand, "kind": aw.kind, "deadline": aw.deadline_ms} if aw else None,
        "participants": participants,
        "pending_card": {"seat": hand.pending[0], "code": hand.pending[1]} if hand.pending else None,
        "stock_left": len(CANONICAL_DECK) - hand.next_card,
    }
    if settled:
        out["results"] = [result_row(r) for r in hand.results]
        out["payouts"] = dict(hand.payouts)
        out["next_banker"] = {"seat": hand.next_banker_seat, "username": names.get(hand.next_banker_seat or -1)}
        if viewer.kind == "auditor":
            out["deck"] = settled_deck(hand)
    return out


def last_hand_view(state: TableState) -> dict[str, Any] | None:
    """How the last hand that ended (``state.last_hand``) ended, the same for every viewer: every card of an
    ended hand is public (its seed is revealed). The banker's cards and total, then one row per punter hand
    with its cards, total, category, outcome and net (the rows of :func:`result_row`, with the cards).
    ``number`` says which hand it was; the shell adds its ``id``."""
    ended: EndedHand | None = state.last_hand
    if ended is None or state.config is None:
        return None
    hand = ended.hand
    names = dict(ended.usernames)
    rules = state.config.rules
    b = hand.banker
    banker_score: Score | None = None
    if b.total_hp is not None and b.category is not None:
        banker_score = Score(b.category, b.total_hp, b.matta_hp)
    elif b.cards:
        banker_score = evaluate(b.cards, rules)
    cards = {(h.seat, h.hand_index): h.cards for h in hand.punters}
    return {
        "number": hand.number,
        "status": "settled" if hand.phase == Phase.SETTLED else "abandoned",
        "banker": {
            "seat": b.seat,
            "username": names.get(b.seat) if b.seat is not None else None,
            "cards": list(b.cards),
            **_total_fields(banker_score),
        },
        "results": [
            {
                "seat": r.seat,
                "username": names.get(r.seat),
                "hand": r.hand,
                "bet": r.bet,
                "cards": list(cards.get((r.seat, r.hand), ())),
                "total": format_hp(r.total_half_points),
                "total_half_points": r.total_half_points,
                "category": r.category,
                "outcome": r.outcome,
                "net": r.net,
            }
            for r in hand.results
        ],
        "next_banker": {"seat": hand.next_banker_seat, "username": names.get(hand.next_banker_seat)}
        if hand.next_banker_seat is not None
        else None,
    }


def view(
    state: TableState,
    viewer: Viewer,
    wallets: Mapping[str, int] | None = None,
    *,
    legal: Sequence[str] | None = None,
    hands: Mapping[str, Sequence[int]] | None = None,
) -> dict[str, Any]:
    """The table as ``viewer`` may see it, as a JSON-ready dict in the shape of API.md's table view.

    For a player viewer ``you.legal_actions`` lists what he may send now (funds are checked against
    ``wallets`` when given): ``legal`` when the caller already worked it out for this state, player and
    wallets (the shell keeps the answers, so a state is probed once), else :func:`legal_actions`; likewise
    ``you.legal_hands`` (``hands``, else :func:`legal_hands`). ``last_hand`` is :func:`last_hand_view`. The
    shell adds the table id and name and the player's balance.
    """
    config = state.config
    out: dict[str, Any] = {
        "version": state.version,
        "phase": state.phase,
        "banker_seat": state.banker_seat,
        "seats": [
            {
                "seat": s.seat,
                "player_id": s.player_id,
                "username": s.username,
                "is_banker": s.seat == state.banker_seat,
                "sitting_out": s.sitting_out,
                "leaving": s.leaving,
            }
            for s in state.seats
        ],
        "next_seed_commitment": state.next_seed_commitment,
        "hand": None,
        "last_hand": last_hand_view(state),
    }
    if config is not None:
        table = config_to_dict(config)
        table["fixed_stake"] = state.stake
        out.update(table)
    hand = state.hand
    if hand is not None and hand.phase != Phase.ABANDONED:
        out["hand"] = _hand_view(viewer, state, hand)
    if viewer.kind == "player" and viewer.player_id is not None:
        seat = state.seat_of(viewer.player_id)
        actions = list(legal) if legal is not None else legal_actions(state, viewer.player_id, wallets)
        if hands is None:
            hands = legal_hands(state, viewer.player_id, wallets, legal=actions)
        out["you"] = {
            "player_id": viewer.player_id,
            "seat": seat.seat if seat else None,
            "legal_actions": actions,
            "legal_hands": {name: list(indexes) for name, indexes in hands.items()},
        }
    return out


def view_event(event: Event, viewer: Viewer, state: TableState) -> dict[str, Any]:
    """One event as ``viewer`` may see it in the events feed (the same hiding rule as :func:`view`).

    ``state`` is any state at or after the event: a face-down card of someone else and the server seed stay
    hidden until the event's hand is settled (``state.settled_through >= number``).
    """
    data = event_to_json(event)
    if isinstance(event, CardDealt):
        settled = state.settled_through >= event.number
        if not card_visible(viewer, event.player_id, event.face_up, False, settled):
            data["card"] = None
            data["deck_index"] = None
    elif isinstance(event, HandOpened) and state.settled_through < event.number:
        data["server_seed"] = None
    elif isinstance(event, SeedCommitted):
        data["sealed_seed"] = None  # nobody reads the sealed seed; the seed itself is revealed when its hand ends
    return data


def settled_deck(hand: HandState) -> list[str] | None:
    """The whole deck of an ended hand in dealing order (None if its seed was never revealed, or if no card was
    ever dealt: its client seed was never fixed, so no deck was ever shuffled; ``no_deck_reason`` says which)."""
    if hand.deck:
        return list(hand.deck)
    if no_deck_reason(hand) is not None:
        return None
    return shuffle_deck(bytes.fromhex(hand.server_seed), hand.client_seed, hand.number)


def no_deck_reason(hand: HandState) -> str | None:
    """Why an ended hand shows no deck (None: it shows one): its seed was never revealed, or no card was ever dealt
    (the client seed is fixed by the first card, so no deck was ever shuffled and none is published)."""
    if hand.deck:
        return None
    if not hand.server_seed:
        return "the hand's server seed was never revealed (it could not be opened), so its deck cannot be shown"
    if not hand.client_seed:
        return "no card was dealt: the hand's client seed was never fixed, so no deck was shuffled"
    return None
