"""Hand history (API.md ``GET /hands/{id}``) from a table's events: a pure helper for the shell.

The shell adds ids, the recorded commands (``actions``, beside the house banker's own steps found here) and
ledger rows.
"""

from __future__ import annotations

from collections.abc import Sequence

from gamemath.enums import OVER
from rules.events import (
    BankerTurnStarted,
    CardDealt,
    ClientSeedFixed,
    Event,
    HandAbandoned,
    HandOpened,
    HandSettled,
    HandStood,
)
from rules.evolve import evolve
from rules.hiding import Viewer, card_visible
from rules.state import HandState, TableState, initial_state
from rules.view import hand_facts
from rules.view_records import ClientSeedRow, DealRow, HandHistory, HouseAction

HOUSE_RULE = "house_rule"


def hand_history(
    events: Sequence[Event],
    number: int,
    *,
    start_version: int = 1,
    state: TableState | None = None,
    viewer: Viewer | None = None,
) -> HandHistory:
    """The history of hand ``number`` found in ``events`` (the stream from ``start_version``; ``state`` is
    the state before them, default empty). The hand is :func:`hand_facts` of its last state for ``viewer``
    (default the auditor): until it is over, cards the viewer may not see are None and seed and deck are
    withheld. Deals are in deck order with the stream ``seq`` of each; a house banker's draws and stand in its
    turn are ``house_actions`` (``hit`` and ``stand``, reason ``house_rule`` unless the stand says another).
    """
    viewer = viewer or Viewer.auditor()
    opened, fixed, last, deals, house = _find_hand(events, number, start_version, state)
    hand = last.hand
    assert hand is not None and last.config is not None
    names = {s.seat: s.username for s in (opened.seats + last.seats)}
    facts = hand_facts(last, hand, viewer, names=names)
    return HandHistory(
        hand=facts,
        rules=last.config.rules.to_dict(),
        client_seeds=tuple(
            ClientSeedRow(seat=s.seat, client_seed=s.client_seed, client_seed_set_at=s.client_seed_set_at)
            for s in (fixed.seats if fixed is not None else ())
        ),
        deals=_deal_rows(hand, deals, viewer),
        house_actions=tuple(house),
    )


def _find_hand(
    events: Sequence[Event], number: int, start_version: int, state: TableState | None
) -> tuple[TableState, TableState | None, TableState, list[tuple[int, CardDealt]], list[HouseAction]]:
    """Fold ``events`` up to hand ``number``'s end: the state at its opening, when its client seed was fixed (None
    if never), at its end (or after the last event), its deals with their stream ``seq`` and the house banker's
    steps in its turn."""
    current = initial_state() if state is None else state
    deals: list[tuple[int, CardDealt]] = []
    house: list[HouseAction] = []
    house_turn = False
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
                if house_turn and event.banker:
                    house.append(HouseAction(seq=start_version + offset, action="hit", reason=HOUSE_RULE))
            elif isinstance(event, BankerTurnStarted):
                house_turn = event.seat is None
            elif house_turn and isinstance(event, HandStood) and event.banker and event.seat is None:
                house.append(HouseAction(seq=start_version + offset, action="stand", reason=str(event.reason)))
            elif isinstance(event, (HandSettled, HandAbandoned)) and event.number == number:
                break
    if opened is None:
        raise ValueError(f"hand {number} is not in these events")
    return opened, fixed, current, deals, house


def _deal_rows(hand: HandState, deals: list[tuple[int, CardDealt]], viewer: Viewer) -> tuple[DealRow, ...]:
    """One row per card dealt in the hand, with the hand it ended in; a card the viewer may not see is None."""
    where: dict[str, tuple[int | None, int]] = {}
    for h in hand.punters:
        for code in h.cards:
            where[code] = (h.seat, h.hand_index)
    for code in hand.banker.cards:
        where[code] = (hand.banker.seat, 0)
    over = hand.phase in OVER
    rows = []
    for seq, d in deals:
        visible = card_visible(viewer, d.player_id, d.face_up, False, over)
        seat, index = where.get(d.card, (d.seat, d.hand if d.hand is not None else 0))
        rows.append(
            DealRow(
                seq=seq, to_seat=seat, banker=d.banker, hand=index, card=d.card if visible else None, face_up=d.face_up
            )
        )
    return tuple(rows)
