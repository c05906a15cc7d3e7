"""``PlaceBet``: a stake when one is owed (§3.2), in a betting window or at the start of one's turn."""

from __future__ import annotations

from gamemath.enums import BetTiming, HandStatus, Phase, WaitKind
from gamemath.errors import IllegalAction, NotYourTurn, WrongPhase
from rules.commands import PlaceBet
from rules.draft import Draft
from rules.flow import run_automatic_steps
from rules.play import acted, seated
from rules.stakes import check_amount, check_reserves, place_stake


def place_bet(draft: Draft, cmd: PlaceBet) -> None:
    """Bet when a stake is owed (§3.2): in a betting window, or at the start of one's turn."""
    seat = seated(draft, cmd.player_id)
    state = draft.state
    if not state.hand_in_play and draft.rules.bet_timing == BetTiming.BEFORE_DEAL and state.banker_seat != seat.seat:
        run_automatic_steps(draft)  # "the table waits until a seated punter acts again (bets)": a hand opens
        state = draft.state
    hand = state.hand
    if hand is None or not hand.in_play:
        raise WrongPhase("no hand is open for betting")
    if hand.banker.player_id == cmd.player_id:
        raise IllegalAction("the banker does not bet")
    h = hand.find(seat.seat, 0)
    if h is None or h.status == HandStatus.VOID:
        raise IllegalAction("you are not in this hand; you take part from the next one")
    if h.stake > 0:
        raise IllegalAction("you have already bet on this hand")
    aw = state.awaiting
    if hand.phase == Phase.PUNTERS and draft.rules.bet_timing == BetTiming.AT_TURN_AFTER_PEEK:
        if aw is None or aw.seat != seat.seat or aw.kind != WaitKind.OWED_BET:
            raise NotYourTurn("you bet at the start of your turn")
    elif hand.phase != Phase.BETTING:
        raise WrongPhase("bets are closed")
    check_amount(draft, cmd.amount, low=draft.config.min_bet, high=draft.config.max_bet)
    reserves = check_reserves(draft, cmd.player_id, cmd.amount, (seat.seat, 0))
    acted(draft, seat)
    place_stake(
        draft, seat=seat.seat, player_id=cmd.player_id, hand=0, amount=cmd.amount, reserves=reserves, by_timeout=False
    )
