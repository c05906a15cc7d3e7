"""Hand history (API.md ``GET /hands/{id}``) from a table's events: a pure helper for the shell.

The shell adds ids, usernames it keeps elsewhere, the recorded commands (``actions``) and ledger rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .enums import OVER, Phase
from .events import CardDealt, ClientSeedFixed, Event, HandAbandoned, HandOpened, HandSettled
from .evolve import evolve
from .state import HandState, TableState, initial_state
from .view import Viewer, card_visible, no_deck_reason, result_row, settled_deck


def hand_history(
    events: Sequence[Event],
    number: int,
    *,
    start_version: int = 1,
    state: TableState | None = None,
    viewer: Viewer | None = None,
) -> dict[str, Any]:
    """The history of hand ``number`` found in ``events`` (the stream from ``start_version``; ``state`` is
    the state before them, default empty). Deals are in deck order with the stream ``seq`` of each, the
    hand each card ended in (a Hungarian card: the hand it was assigned to), results and the next banker.
    Until the hand is settled, cards ``viewer`` may not see are ``None`` and seed and deck are withheld.
    """
    viewer = viewer or Viewer.auditor()
    opened, fixed, last, deals = _find_hand(events, number, start_version, state)
    hand = last.hand
    assert hand is not None and last.config is not None
    settled = hand.phase in OVER
    names = {s.seat: s.username for s in (opened.seats + last.seats)}
    return {
        "number": number,
        "nonce": number,
        "rules": last.config.rules.to_dict(),
        "seed_commitment": hand.seed_commitment,
        "client_seed": hand.client_seed or None,
        "server_seed": (hand.server_seed or None) if settled else None,
        "deck": settled_deck(hand) if settled else None,
        "deck_reason": no_deck_reason(hand) if settled else "the hand is in play",
        "settled": hand.phase == Phase.SETTLED,
        "abandoned": hand.phase == Phase.ABANDONED,
        "banker": {"seat": hand.banker.seat, "player_id": hand.banker.player_id},
        "participants": _with_client_seeds(_participants(hand, names, settled), fixed),
        "deals": _deal_rows(hand, deals, viewer, settled),
        "results": [result_row(r) for r in hand.results],
        "payouts": dict(hand.payouts),
        "next_banker": {"seat": hand.next_banker_seat, "username": names.get(hand.next_banker_seat or -1)}
        if hand.phase == Phase.SETTLED
        else None,
    }


def _find_hand(
    events: Sequence[Event], number: int, start_version: int, state: TableState | None
) -> tuple[TableState, TableState | None, TableState, list[tuple[int, CardDealt]]]:
    """Fold ``events`` up to hand ``number``'s end: the state at its opening, when its client seed was fixed (None
    if never), at its end (or after the last event) and its deals with their stream ``seq``."""
    current = initial_state() if state is None else state
    deals: list[tuple[int, CardDealt]] = []
    opened: TableState | None = None
    fixed: TableState | None = None
    for offset, event in enumerate(events):
        current = evolve(current, event)
        if isinstance(event, HandOpened) and event.number == number:
            opened = current
            if event.client_seed:  # the old form: the client seed was fixed as the hand opened
                fixed = current
        elif opened is not None:
            if isinstance(event, ClientSeedFixed) and event.number == number:
                fixed = current
            elif isinstance(event, CardDealt) and event.number == number:
                deals.append((start_version + offset, event))
            elif isinstance(event, (HandSettled, HandAbandoned)) and event.number == number:
                break
    if opened is None:
        raise ValueError(f"hand {number} is not in these events")
    return opened, fixed, current, deals


def _with_client_seeds(participants: list[dict[str, Any]], fixed: TableState | None) -> list[dict[str, Any]]:
    """Each participant's client seed as it went into the hand's client seed, and ``client_seed_set_at``: the table
    version at which he set it (or sat down with it); both None for a hand whose client seed was never fixed, or
    for the house."""
    seats = {s.seat: s for s in fixed.seats} if fixed is not None else {}
    for participant in participants:
        seat = seats.get(participant["seat"]) if participant["seat"] is not None else None
        participant["client_seed"] = seat.client_seed if seat is not None else None
        participant["client_seed_set_at"] = seat.client_seed_set_at if seat is not None else None
    return participants


def _deal_rows(
    hand: HandState, deals: list[tuple[int, CardDealt]], viewer: Viewer, settled: bool
) -> list[dict[str, Any]]:
    """One row per card dealt in the hand, with the hand it ended in; a card the viewer may not see is None."""
    where: dict[str, tuple[int | None, int]] = {}
    for h in hand.punters:
        for code in h.cards:
            where[code] = (h.seat, h.hand_index)
    for code in hand.banker.cards:
        where[code] = (hand.banker.seat, 0)
    rows = []
    for seq, d in deals:
        visible = card_visible(viewer, d.player_id, d.face_up, False, settled)
        seat, index = where.get(d.card, (d.seat, d.hand if d.hand is not None else 0))
        rows.append(
            {
                "seq": seq,
                "to_seat": seat,
                "banker": d.banker,
                "hand": index,
                "card": d.card if visible else None,
                "face_up": d.face_up,
            }
        )
    return rows


def _participants(hand: HandState, names: dict[int, str], settled: bool) -> list[dict[str, Any]]:
    """The banker, then each punter in play order with his hands (cards and totals once settled)."""
    participants: list[dict[str, Any]] = [
        {
            "seat": hand.banker.seat,
            "player_id": hand.banker.player_id,
            "username": names.get(hand.banker.seat) if hand.banker.seat is not None else None,
            "role": "banker",
            "hands": [
                {
                    "index": 0,
                    "bet": None,
                    "cards": list(hand.banker.cards) if settled else None,
                    "total_half_points": hand.banker.total_hp if settled else None,
                }
            ],
        }
    ]
    seats_seen: list[int] = []
    for h in hand.punters:
        if h.seat not in seats_seen:
            seats_seen.append(h.seat)
    for seat in seats_seen:
        mine = [h for h in hand.punters if h.seat == seat]
        participants.append(
            {
                "seat": seat,
                "player_id": mine[0].player_id,
                "username": names.get(seat),
                "role": "punter",
                "hands": [
                    {
                        "index": h.hand_index,
                        "bet": h.stake,
                        "cards": list(h.cards) if settled else None,
                        "total_half_points": h.total_hp if settled else None,
                    }
                    for h in mine
                ],
            }
        )
    return participants
