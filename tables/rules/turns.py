"""Whose turn it is: evaluation after each card, the next decision, passing the turn on."""

from __future__ import annotations

from . import showdown
from .events import (
    ActionAwaited,
    HandBusted,
    HandMadePairOfSevens,
    HandMadeSevenHalf,
    HandStood,
)
from .scoring import BUST, PAIR7, evaluate
from .state import PLAYING, WAITING
from .tx import Tx


def after_card(tx: Tx, seat: int, index: int) -> None:
    """Evaluate a punter hand after a card: bust, pair of sevens and 15 hp show it and end it at once."""
    hand = tx.hand
    h = hand.find(seat, index)
    assert h is not None
    cards = h.cards
    category, total, matta = evaluate(cards, tx.rules, split=seat in hand.split_seats)
    if category == BUST:
        tx.emit(
            HandBusted(seat=seat, hand=index, banker=False, total_half_points=total, matta_value=matta, cards=cards)
        )
    elif category == PAIR7:
        tx.emit(HandMadePairOfSevens(seat=seat, hand=index, banker=False, cards=cards))
    elif total == 15:
        tx.emit(
            HandMadeSevenHalf(
                seat=seat,
                hand=index,
                banker=False,
                category=category,
                total_half_points=total,
                matta_value=matta,
                cards=cards,
            )
        )


def hungarian_multi(tx: Tx, seat: int) -> bool:
    """True once a Hungarian punter has split: his draws are then assigned to hands."""
    return tx.rules.split_mode == "hungarian" and seat in tx.hand.split_seats


def continue_turn(tx: Tx, seat: int, index: int) -> None:
    """After a punter's action: wait on his next decision (fresh deadline) or pass the turn on."""
    hand = tx.hand
    if hungarian_multi(tx, seat):
        if hand.pending is not None and hand.pending[0] == seat:
            tx.emit(ActionAwaited(seat=seat, hand=None, kind="assign", deadline_ms=tx.turn_deadline()))
            return
        open_hands = [h for h in hand.punters if h.seat == seat and h.status == PLAYING]
        if open_hands:
            tx.emit(
                ActionAwaited(seat=seat, hand=open_hands[0].hand_index, kind="play", deadline_ms=tx.turn_deadline())
            )
            return
    else:
        h = hand.find(seat, index)
        if h is not None and h.status == PLAYING:
            tx.emit(ActionAwaited(seat=seat, hand=index, kind="play", deadline_ms=tx.turn_deadline()))
            return
    start_next_turn(tx)


def start_next_turn(tx: Tx) -> None:
    """Give the turn to the next punter hand that has not played (a bet owed first), else to the banker."""
    for h in tx.hand.punters:
        if h.status == WAITING:
            tx.emit(
                ActionAwaited(
                    seat=h.seat,
                    hand=h.hand_index,
                    kind="bet" if h.stake == 0 else "play",
                    deadline_ms=tx.turn_deadline(),
                )
            )
            return
    showdown.banker_turn(tx)


def stand_all(tx: Tx, seat: int, reason: str) -> None:
    """Stand every hand of ``seat`` that is still live."""
    for h in tx.hand.punters:
        if h.seat == seat and h.status in (WAITING, PLAYING) and h.stake > 0:
            tx.emit(HandStood(seat=seat, hand=h.hand_index, banker=False, reason=reason))
