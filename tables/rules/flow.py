"""How a hand moves on by itself: the automatic steps that follow a command until the table waits for someone.

A command's handler validates it and records the player's own facts (his bet, his card and what it makes, his
stand, his timeout). Then ``decide`` runs::

    while (step := next_automatic_step(tx)) is not None:
        step(tx)

``next_automatic_step`` reads the state the events so far lead to, and what the command did (``tx.may_open``,
``tx.trigger``, ``tx.wait_answered``, ``tx.wait_expired``), and names the next move of the game; every move
of a hand that nobody decides is here, in the order a hand goes:

1. between hands: open the next hand (once per player command or settlement);
2. betting: open the betting window; close it once nobody owes a bet (abandon the hand if the window
   expired with no stake);
3. the deal, then the punters' turns: the same punter's next decision, else the next hand to play;
4. the banker's turn (or its skipping), a house banker's draws, then the settlement.

A step emits the events of one move; ``None`` means the table waits for someone (or, between hands, that no
hand can open now).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from .enums import OVER, HandStatus, Phase, WaitKind
from .events import ActionAwaited, BettingClosed
from .opening import deal_round, open_next_hand
from .showdown import abandon_empty_hand, abandon_without_seed, house_banker_plays, settle, start_banker_turn
from .state import HandState
from .turns import first_hand_to_play, same_punters_next_decision
from .tx import Tx

Step = Callable[[Tx], None]


def run_automatic_steps(tx: Tx) -> None:
    """Move the table on by itself until it waits for someone."""
    while (step := next_automatic_step(tx)) is not None:
        step(tx)


def next_automatic_step(tx: Tx) -> Step | None:
    """The next move nobody decides, or None when the table waits."""
    hand = tx.state.hand
    if hand is None or hand.phase in OVER:
        return open_next_hand if tx.may_open else None
    if hand.phase == Phase.BETTING:
        return _betting_step(tx, hand)
    if hand.phase == Phase.BANKER:
        return _banker_step(tx, hand)
    return _punters_step(tx, hand)


def _owes_bet(hand: HandState) -> bool:
    return any(h.stake == 0 and h.status != HandStatus.VOID for h in hand.punters)


def _betting_step(tx: Tx, hand: HandState) -> Step | None:
    """A betting window: every entrant owes a bet until he stakes (or drops out)."""
    if tx.state.awaiting is None:
        return await_bets
    if _owes_bet(hand):
        return None
    if any(h.stake > 0 for h in hand.punters):
        return close_betting
    # Nobody owes a bet and nobody staked (all dropped out): the window stays open until its deadline, so that
    # toggling sit_out / sit_in cannot open and abandon a hand (a seed, a snapshot, events) per toggle.
    return abandon_empty_hand if tx.wait_expired else None


def _punters_step(tx: Tx, hand: HandState) -> Step | None:
    """The deal and the punters' turns (phases ``dealing`` and ``punters``)."""
    if not hand.banker.cards:
        # a hand whose committed seed cannot be opened is abandoned before its first card (``decide``)
        return abandon_without_seed if tx.unopenable == hand.number else deal_round
    awaiting = tx.state.awaiting
    if awaiting is not None and not tx.wait_answered:
        return None
    if awaiting is None and tx.rules.bet_timing == "after_deal_all" and _owes_bet(hand):
        return await_bets  # everybody has seen his card: the bets, all at once
    if awaiting is not None and awaiting.seat is not None:
        decision = same_punters_next_decision(tx, awaiting.seat, awaiting.hand)
        if decision is not None:
            return partial(await_decision, seat=awaiting.seat, index=decision[0], kind=decision[1])
    turn = first_hand_to_play(hand)
    if turn is not None:
        seat, index, kind = turn
        return partial(await_decision, seat=seat, index=index, kind=kind)
    if not any(h.stake > 0 for h in hand.punters):
        # every punter dropped out without a stake (skipped at his turn: the bank could not cover him, or his
        # limits allow no stake): nothing to settle, the hand is abandoned like an empty betting window
        return abandon_empty_hand
    return start_banker_turn


def _banker_step(tx: Tx, hand: HandState) -> Step | None:
    """The banker's turn: a player banker decides each move, a house banker follows its rule; then settle."""
    banker = hand.banker
    if banker.status != HandStatus.PLAYING:  # stood, bust, 15 hp, pair of sevens, or his turn was skipped
        return settle
    if banker.player_id is None:
        return house_banker_plays
    if tx.state.awaiting is None or tx.wait_answered:
        return partial(await_decision, seat=banker.seat, index=0, kind=WaitKind.BANKER)
    return None


def await_bets(tx: Tx) -> None:
    """Open the betting window for every entrant who owes a bet (``betting_timeout_s``)."""
    tx.emit(ActionAwaited(seat=None, hand=None, kind=WaitKind.BETTING_WINDOW, deadline_ms=tx.betting_deadline()))


def await_decision(tx: Tx, *, seat: int | None, index: int | None, kind: WaitKind) -> None:
    """Wait on one player's next decision, with a fresh deadline (``turn_timeout_s``)."""
    tx.emit(ActionAwaited(seat=seat, hand=index, kind=kind, deadline_ms=tx.turn_deadline()))
    tx.wait_answered = False


def close_betting(tx: Tx) -> None:
    """Every stake of the window is in: bets close (the deal follows under ``before_deal``)."""
    tx.emit(BettingClosed(number=tx.hand.number))
