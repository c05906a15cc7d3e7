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

from gamemath.enums import BetTiming, HandStatus, SitOutReason, SkipReason, StandReason, WaitKind
from gamemath.errors import BankCannotCover, InsufficientFunds, LimitReached
from gamemath.scoring import BUST, evaluate
from rules.commands import Timeout
from rules.draft import Draft
from rules.events import CardAssigned, HandStood, PlayerTimedOut, PunterSkipped, SatOut
from rules.stakes import check_reserves, place_stake
from rules.state import PunterHand, SeatState
from rules.turns import show_if_done, stand_all


def timeout(draft: Draft, cmd: Timeout) -> None:
    """The deadline of the wait at ``cmd.expected_version`` passed: nothing if the table moved on since."""
    state = draft.state
    awaiting = state.awaiting
    if state.config is None or cmd.expected_version != state.version or awaiting is None:
        return
    if awaiting.kind == WaitKind.BETTING_WINDOW:
        _betting_window_expired(draft)
        return
    assert awaiting.seat is not None
    seat = state.seat_at(awaiting.seat)
    assert seat is not None
    record_timeout(draft, seat, awaiting.kind)
    if awaiting.kind == WaitKind.BANKER:
        draft.emit(HandStood(seat=awaiting.seat, hand=0, banker=True, reason=StandReason.TIMEOUT))
        return
    if awaiting.kind == WaitKind.OWED_BET:
        debtor = draft.hand.find(awaiting.seat, awaiting.hand if awaiting.hand is not None else 0)
        assert debtor is not None
        if not bet_for_timeout(draft, debtor):
            return
    elif awaiting.kind == WaitKind.ASSIGN:
        _assign_for_timeout(draft, awaiting.seat)
    stand_all(draft, awaiting.seat, StandReason.TIMEOUT)


def _betting_window_expired(draft: Draft) -> None:
    """Every entrant who has not bet times out: he sits the hand out (``before_deal``) or is bet for."""
    state = draft.state
    owing = [h for h in draft.hand.punters if h.stake == 0 and h.status != HandStatus.VOID]
    for h in owing:
        seat = state.seat_at(h.seat)
        assert seat is not None
        record_timeout(draft, seat, WaitKind.BETTING_WINDOW)
        if draft.rules.bet_timing == BetTiming.BEFORE_DEAL:
            draft.emit(PunterSkipped(seat=h.seat, player_id=h.player_id, reason=SkipReason.TIMEOUT))
        else:
            bet_for_timeout(draft, draft.hand.find(h.seat, h.hand_index) or h)


def record_timeout(draft: Draft, seat: SeatState, waiting_for: WaitKind) -> None:
    """Count a timeout; the second in a row marks the player sitting out for later hands (§7)."""
    streak = seat.timeouts + 1
    draft.emit(PlayerTimedOut(seat=seat.seat, player_id=seat.player_id, streak=streak, waiting_for=waiting_for))
    if streak >= 2 and not seat.sitting_out:
        draft.emit(SatOut(seat=seat.seat, player_id=seat.player_id, reason=SitOutReason.TIMEOUT))


def bet_for_timeout(draft: Draft, h: PunterHand) -> bool:
    """Bet the minimum (or S) for a punter who owes a bet and did not act; skip him if it cannot be covered."""
    amount = draft.min_stake(draft.hand)
    try:
        reserves = check_reserves(draft, h.player_id, amount, (h.seat, h.hand_index))
    except (InsufficientFunds, BankCannotCover, LimitReached) as refused:
        draft.emit(PunterSkipped(seat=h.seat, player_id=h.player_id, reason=SkipReason(refused.code)))
        return False
    place_stake(
        draft, seat=h.seat, player_id=h.player_id, hand=h.hand_index, amount=amount, reserves=reserves, by_timeout=True
    )
    return True


def _assign_for_timeout(draft: Draft, seat: int) -> None:
    """A timed-out Hungarian card goes to the first open hand it does not bust, else the first open hand."""
    hand = draft.hand
    assert hand.pending is not None
    card = hand.pending[1]
    open_hands = [h for h in hand.punters if h.seat == seat and h.status == HandStatus.PLAYING]
    target = next(
        (h for h in open_hands if evaluate((*h.cards, card), draft.rules, split=True).category != BUST), open_hands[0]
    )
    draft.emit(CardAssigned(seat=seat, hand=target.hand_index, card=card))
    show_if_done(draft, seat, target.hand_index)
