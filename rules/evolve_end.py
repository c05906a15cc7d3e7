"""``evolve`` for the end of a hand: hands shown as they end, the banker's turn, settlement and abandonment."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gamemath.enums import Category, HandStatus, Phase
from gamemath.scoring import PAIR7, PAIR7_HP
from rules.events import (
    BankerTurnSkipped,
    BankerTurnStarted,
    Event,
    HandAbandoned,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandSettled,
)
from rules.evolve_hand import hand_of, next_state, with_banker, with_hand, with_punter, without_pledge
from rules.state import EndedHand, HandState, TableState, replace


def _ended(state: TableState, hand: HandState) -> EndedHand:
    """The record of ``hand`` as it ended, with the names of the seats as they are now. It keeps no deck: the
    cards dealt are on the hands, and the rest follows from the revealed seed (``settled_deck``)."""
    return EndedHand(hand=replace(hand, deck=()), usernames=tuple((s.seat, s.username) for s in state.seats))


def _shown(state: TableState, seat: int | None, index: int, banker: bool, **changes: Any) -> TableState:
    """A hand that ended by itself is shown with its score (``changes``)."""
    hand = hand_of(state)
    if banker:
        return with_hand(state, with_banker(hand, **changes))
    return with_hand(state, with_punter(hand, seat, index, shown=True, **changes))


def _hand_busted(state: TableState, e: HandBusted) -> TableState:
    return _shown(
        state,
        e.seat,
        e.hand,
        e.banker,
        status=HandStatus.BUST,
        category=Category.BUST,
        total_hp=e.total_half_points,
        matta_hp=e.matta_value,
    )


def _hand_made_75(state: TableState, e: HandMadeSevenHalf) -> TableState:
    return _shown(
        state,
        e.seat,
        e.hand,
        e.banker,
        status=HandStatus.CLOSED,
        category=e.category,
        total_hp=e.total_half_points,
        matta_hp=e.matta_value,
    )


def _hand_made_pair7(state: TableState, e: HandMadePairOfSevens) -> TableState:
    """A punter's pair of sevens is settled at once; the banker's ends his turn."""
    status = HandStatus.CLOSED if e.banker else HandStatus.SETTLED
    return _shown(state, e.seat, e.hand, e.banker, status=status, category=PAIR7, total_hp=PAIR7_HP, matta_hp=None)


def _banker_turn_started(state: TableState, e: BankerTurnStarted) -> TableState:
    hand = hand_of(state)
    banker = replace(hand.banker, status=HandStatus.PLAYING, played=True)
    return next_state(state, hand=replace(hand, phase=Phase.BANKER, banker=banker), awaiting=None)


def _banker_turn_skipped(state: TableState, e: BankerTurnSkipped) -> TableState:
    """No punter hand is left for the banker to play against: his turn is over before it began."""
    return next_state(state, hand=replace(hand_of(state), phase=Phase.BANKER), awaiting=None)


def _hand_settled(state: TableState, e: HandSettled) -> TableState:
    """Every hand is shown; staked hands carry their result; the bank goes to the next banker; the seed is
    revealed (a hand committed ahead)."""
    hand = hand_of(state)
    results = {(r.seat, r.hand): r for r in e.results}
    punters = []
    for h in hand.punters:
        r = results.get((h.seat, h.hand_index))
        if r is None:
            punters.append(replace(h, shown=True))
        else:
            punters.append(
                replace(
                    h,
                    shown=True,
                    category=r.category,
                    total_hp=r.total_half_points,
                    matta_hp=r.matta_value,
                    result=r,
                )
            )
    banker = hand.banker
    if banker.played:
        banker = replace(
            banker, category=e.banker_category, total_hp=e.banker_total_half_points, matta_hp=e.banker_matta_value
        )
    hand = replace(
        hand,
        phase=Phase.SETTLED,
        banker=banker,
        server_seed=hand.server_seed or e.server_seed,
        punters=tuple(punters),
        results=e.results,
        payouts=tuple(sorted(e.payouts.items())),  # stored events decode sorted: a live state and a fold agree
        next_banker_seat=e.next_banker_seat,
    )
    return next_state(
        state,
        banker_seat=e.next_banker_seat,
        last_banker_seat=e.next_banker_seat if e.next_banker_seat is not None else state.last_banker_seat,
        banker_retiring=False,
        settled_through=e.number,
        hand=hand,
        last_hand=_ended(state, hand),
        awaiting=None,
        pledges=without_pledge(state, e.number),  # revealed
    )


def _hand_abandoned(state: TableState, e: HandAbandoned) -> TableState:
    hand = hand_of(state)
    hand = replace(hand, phase=Phase.ABANDONED, server_seed=hand.server_seed or e.server_seed)
    return next_state(
        state,
        hand=hand,
        last_hand=_ended(state, hand),
        idle=True,
        settled_through=e.number,
        awaiting=None,
        pledges=without_pledge(state, e.number),
    )


END_HANDLERS: dict[type[Event], Callable[[TableState, Any], TableState]] = {
    HandBusted: _hand_busted,
    HandMadeSevenHalf: _hand_made_75,
    HandMadePairOfSevens: _hand_made_pair7,
    BankerTurnStarted: _banker_turn_started,
    BankerTurnSkipped: _banker_turn_skipped,
    HandSettled: _hand_settled,
    HandAbandoned: _hand_abandoned,
}
