"""A card and what it makes: the showing of a hand that ends by itself, and whose decision comes next.

These are facts and questions about one hand; they neither wait nor move the game on (``flow`` does).
"""

from __future__ import annotations

from gamemath.enums import HandStatus, SplitMode, StandReason, WaitKind
from gamemath.scoring import BUST, PAIR7, evaluate
from rules.draft import Draft
from rules.events import HandBusted, HandMadePairOfSevens, HandMadeSevenHalf, HandStood
from rules.state import HandState


def show_if_done(draft: Draft, seat: int | None, index: int, *, banker: bool = False) -> None:
    """After a card to a hand (the banker's with ``banker``): bust, a pair of sevens or 15 hp shows it and ends it
    at once."""
    hand = draft.hand
    if banker:
        cards, split = hand.banker.cards, False
    else:
        assert seat is not None
        h = hand.find(seat, index)
        assert h is not None
        cards, split = h.cards, seat in hand.split_seats
    score = evaluate(cards, draft.rules, split=split)
    if score.category == BUST:
        draft.emit(
            HandBusted(
                seat=seat,
                hand=index,
                banker=banker,
                total_half_points=score.total_hp,
                matta_value=score.matta_hp,
                cards=cards,
            )
        )
    elif score.category == PAIR7:
        draft.emit(HandMadePairOfSevens(seat=seat, hand=index, banker=banker, cards=cards))
    elif score.total_hp == 15:
        draft.emit(
            HandMadeSevenHalf(
                seat=seat,
                hand=index,
                banker=banker,
                category=score.category,
                total_half_points=score.total_hp,
                matta_value=score.matta_hp,
                cards=cards,
            )
        )


def hungarian_multi(draft: Draft, seat: int) -> bool:
    """True once a Hungarian punter has split: his draws are then assigned to hands."""
    return seat in draft.hand.split_seats and draft.rules.split_mode == SplitMode.HUNGARIAN


def stand_all(draft: Draft, seat: int, reason: StandReason) -> None:
    """Stand every hand of ``seat`` that is still live."""
    for h in draft.hand.punters:
        if h.seat == seat and h.status in (HandStatus.WAITING, HandStatus.PLAYING) and h.stake > 0:
            draft.emit(HandStood(seat=seat, hand=h.hand_index, banker=False, reason=reason))


def same_punters_next_decision(draft: Draft, seat: int, index: int | None) -> tuple[int | None, WaitKind] | None:
    """The next decision of the punter who just acted on hand ``index`` (his turn goes on), or None.

    A Hungarian punter who has split gives a drawn card to a hand first, then plays his first open hand; any
    other punter plays on the same hand while it is open.
    """
    hand = draft.hand
    if hungarian_multi(draft, seat):
        if hand.pending is not None and hand.pending[0] == seat:
            return None, WaitKind.ASSIGN
        for h in hand.punters:
            if h.seat == seat and h.status == HandStatus.PLAYING:
                return h.hand_index, WaitKind.PLAY
        return None
    played = hand.find(seat, index) if index is not None else None
    if played is not None and played.status == HandStatus.PLAYING:
        return index, WaitKind.PLAY
    return None


def first_hand_to_play(hand: HandState) -> tuple[int, int, WaitKind] | None:
    """The next punter hand that has not played, in play order: (seat, hand, owed bet or play), or None."""
    for h in hand.punters:
        if h.status == HandStatus.WAITING:
            return h.seat, h.hand_index, WaitKind.OWED_BET if h.stake == 0 else WaitKind.PLAY
    return None
