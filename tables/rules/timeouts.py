"""``Timeout``: what happens when the table waited in vain (RULES.md §7), all of it in one place.

The handler records the facts of the timeout (who timed out, the bets placed or skipped for him, the card
given for him, the hands that stand); the automatic steps (``flow``) then move the table on as after any
decision: a betting window closes (or, with no stake, the hand is abandoned), the turn passes, the banker's
stand leads to the settlement.

- Every timeout counts against the player (``PlayerTimedOut.streak``); the second in a row also sits him out
  for later hands.
- A betting window: ``before_deal``, every punter who has not bet sits the hand out; ``after_deal_all``, each
  is bet the minimum (or S) for, or skipped if that cannot be covered.
- A bet owed at the start of a turn is placed the same way, and the punter then stands.
- A punter's turn: all his live hands stand; a pending Hungarian card first goes to the first open hand it does
  not bust (else the first open hand).
- A player banker stands.
"""

from __future__ import annotations

from .commands import Timeout
from .enums import BetTiming, HandStatus, SitOutReason, SkipReason, StandReason, WaitKind
from .errors import BankCannotCover, InsufficientFunds, LimitReached
from .events import BetPlaced, CardAssigned, HandStood, PlayerTimedOut, PunterSkipped, SatOut
from .scoring import BUST, evaluate
from .stakes import banker_party, check_reserves
from .state import PunterHand, SeatState
from .turns import show_if_done, stand_all
from .tx import Tx


def timeout(tx: Tx, cmd: Timeout) -> None:
    """The deadline of the wait at ``cmd.expected_version`` passed: nothing if the table moved on since."""
    state = tx.state
    awaiting = state.awaiting
    if state.config is None or cmd.expected_version != state.version or awaiting is None:
        return
    if awaiting.kind == WaitKind.BETTING_WINDOW:
        _betting_window_expired(tx)
        return
    assert awaiting.seat is not None
    seat = state.seat_at(awaiting.seat)
    assert seat is not None
    record_timeout(tx, seat, awaiting.kind)
    if awaiting.kind == WaitKind.BANKER:
        tx.emit(HandStood(seat=awaiting.seat, hand=0, banker=True, reason=StandReason.TIMEOUT))
        return
    if awaiting.kind == WaitKind.OWED_BET:
        debtor = tx.hand.find(awaiting.seat, awaiting.hand if awaiting.hand is not None else 0)
        assert debtor is not None
        if not bet_for_timeout(tx, debtor):
            return
    elif awaiting.kind == WaitKind.ASSIGN:
        _assign_for_timeout(tx, awaiting.seat)
    stand_all(tx, awaiting.seat, StandReason.TIMEOUT)


def _betting_window_expired(tx: Tx) -> None:
    """Every entrant who has not bet times out: he sits the hand out (``before_deal``) or is bet for."""
    state = tx.state
    owing = [h for h in tx.hand.punters if h.stake == 0 and h.status != HandStatus.VOID]
    for h in owing:
        seat = state.seat_at(h.seat)
        assert seat is not None
        record_timeout(tx, seat, WaitKind.BETTING_WINDOW)
        if tx.rules.bet_timing == BetTiming.BEFORE_DEAL:
            tx.emit(PunterSkipped(seat=h.seat, player_id=h.player_id, reason=SkipReason.TIMEOUT))
        else:
            bet_for_timeout(tx, tx.hand.find(h.seat, h.hand_index) or h)


def record_timeout(tx: Tx, seat: SeatState, waiting_for: WaitKind) -> None:
    """Count a timeout; the second in a row marks the player sitting out for later hands (§7)."""
    streak = seat.timeouts + 1
    tx.emit(PlayerTimedOut(seat=seat.seat, player_id=seat.player_id, streak=streak, waiting_for=waiting_for))
    if streak >= 2 and not seat.sitting_out:
        tx.emit(SatOut(seat=seat.seat, player_id=seat.player_id, reason=SitOutReason.TIMEOUT))


def bet_for_timeout(tx: Tx, h: PunterHand) -> bool:
    """Bet the minimum (or S) for a punter who owes a bet and did not act; skip him if it cannot be covered."""
    amount = tx.min_stake(tx.hand)
    try:
        punter_reserve, banker_reserve = check_reserves(tx, h.player_id, amount, (h.seat, h.hand_index))
    except (InsufficientFunds, BankCannotCover, LimitReached) as refused:
        tx.emit(PunterSkipped(seat=h.seat, player_id=h.player_id, reason=SkipReason(refused.code)))
        return False
    tx.emit(
        BetPlaced(
            seat=h.seat,
            player_id=h.player_id,
            hand=h.hand_index,
            amount=amount,
            stake=amount,
            punter_reserve=punter_reserve,
            banker_reserve=banker_reserve,
            banker_id=banker_party(tx),
            by_timeout=True,
        )
    )
    return True


def _assign_for_timeout(tx: Tx, seat: int) -> None:
    """A timed-out Hungarian card goes to the first open hand it does not bust, else the first open hand."""
    hand = tx.hand
    assert hand.pending is not None
    card = hand.pending[1]
    open_hands = [h for h in hand.punters if h.seat == seat and h.status == HandStatus.PLAYING]
    target = next(
        (h for h in open_hands if evaluate((*h.cards, card), tx.rules, split=True).category != BUST), open_hands[0]
    )
    tx.emit(CardAssigned(seat=seat, hand=target.hand_index, card=card))
    show_if_done(tx, seat, target.hand_index)
