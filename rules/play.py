"""Handlers of the commands played in one's turn: hit, hit face down, stand, raise, and a player banker's hit
and stand (bets: ``betting``; splits: ``splits``). Each validates first, then records the player's own facts (a
card comes with what it makes: a bust, 15 hp or a pair of sevens is shown at once); ``flow`` moves the table on."""

from __future__ import annotations

from gamemath.enums import HandStatus, Phase, SitInReason, SitOutReason, StandReason, WaitKind
from gamemath.errors import BetOutOfLimits, IllegalAction, NotFound, NotSeated, NotYourTurn, WrongPhase, invalid
from rules.commands import Hit, HitFaceDown, PlayerCommand, Raise, Stand
from rules.draft import Draft
from rules.events import (
    CardTurnedUp,
    HandStood,
    SatIn,
    StakeRaised,
    TimeoutStreakReset,
)
from rules.opening import deal, draw
from rules.stakes import banker_party, check_reserves
from rules.state import Awaiting, PunterHand, SeatState
from rules.turns import hungarian_multi, show_if_done, stand_all


def seated(draft: Draft, player_id: str) -> SeatState:
    """The player's seat; ``not_seated`` when he has none (``not_found`` when the table does not exist)."""
    if draft.state.config is None:
        raise NotFound("the table does not exist")
    seat = draft.state.seat_of(player_id)
    if seat is None:
        raise NotSeated("you are not seated at this table", {"player_id": player_id})
    return seat


def own_hand(draft: Draft, seat: SeatState, index: int) -> PunterHand:
    """The seat's hand ``index`` in the current hand: an index beyond what the table allows a punter to hold is
    ``invalid_request``; one within those limits that the seat does not hold is ``illegal_action``."""
    limit = draft.rules.hands_per_punter
    if not 0 <= index < limit:
        raise invalid("hand", f"a hand index at this table is from 0 to {limit - 1}")
    h = draft.hand.find(seat.seat, index)
    if h is None:
        raise IllegalAction(f"you have no hand {index}", {"hand": index})
    return h


def acted(draft: Draft, seat: SeatState) -> None:
    """A voluntary action ends a timeout streak (and a sit-out caused by timeouts)."""
    if seat.sitting_out and seat.sit_out_reason == SitOutReason.TIMEOUT:
        draft.emit(SatIn(seat=seat.seat, player_id=seat.player_id, reason=SitInReason.ACTED))
    elif seat.timeouts:
        draft.emit(TimeoutStreakReset(seat=seat.seat, player_id=seat.player_id))


def in_turn(draft: Draft, cmd: PlayerCommand) -> tuple[SeatState, Awaiting]:
    seat = seated(draft, cmd.player_id)
    state = draft.state
    hand = state.hand
    if hand is None:
        raise WrongPhase("no hand is in play")
    phase = hand.phase
    if phase != Phase.PUNTERS and phase != Phase.BANKER:
        if not hand.in_play:
            raise WrongPhase("no hand is in play")
        raise WrongPhase(f"the hand is in its {phase} phase")
    aw = state.awaiting
    if aw is None or aw.seat != seat.seat:
        raise NotYourTurn("it is not your turn")
    return seat, aw


def target_hand(
    draft: Draft, seat: SeatState, aw: Awaiting, hand_arg: int | None, multi: bool | None = None
) -> PunterHand:
    """The hand a turn command acts on; ``multi`` is ``hungarian_multi`` for the seat when already known."""
    if aw.kind == WaitKind.OWED_BET:
        raise IllegalAction("bet first: a stake is owed before anything else")
    if hand_arg is None:
        index = aw.hand
        if index is None:
            raise IllegalAction("give the drawn card to a hand first")
    else:
        index = hand_arg
    h = own_hand(draft, seat, index)
    if multi is None:
        multi = hungarian_multi(draft, seat.seat)
    if multi:
        if h.status != HandStatus.PLAYING:
            raise IllegalAction(f"hand {index} is not open", {"hand": index})
    elif index != aw.hand:
        raise IllegalAction(f"hand {index} is not the hand being played", {"hand": index})
    return h


def hit(draft: Draft, cmd: Hit | HitFaceDown) -> None:
    """A card from the stock, face up (``hit``) or, after turning the hidden card up, face down."""
    seat, aw = in_turn(draft, cmd)
    if aw.kind == WaitKind.BANKER:
        if type(cmd) is HitFaceDown:
            raise IllegalAction("the banker draws face up")
        banker_hit(draft, seat)
        return
    face_down = type(cmd) is HitFaceDown
    if aw.kind == WaitKind.ASSIGN:
        raise IllegalAction("give the drawn card to a hand first")
    if face_down and not draft.rules.hidden_card_swap:
        raise IllegalAction("hit_face_down needs the hidden_card_swap rule", {"toggle": "hidden_card_swap"})
    multi = hungarian_multi(draft, seat.seat)
    if face_down and multi:
        raise IllegalAction("after a Hungarian split every card is dealt face up")
    h = target_hand(draft, seat, aw, cmd.hand, multi)
    acted(draft, seat)
    drawn = draw(draft)
    if drawn is None:
        if multi:
            stand_all(draft, seat.seat, StandReason.STOCK_EXHAUSTED)
        else:
            draft.emit(HandStood(seat=seat.seat, hand=h.hand_index, banker=False, reason=StandReason.STOCK_EXHAUSTED))
        return
    if multi:
        deal(draft, drawn, seat=seat.seat, player_id=seat.player_id, hand=None, banker=False, face_up=True)
        return
    if face_down:
        for code, up in zip(h.cards, h.face_up, strict=True):
            if not up:
                draft.emit(CardTurnedUp(seat=seat.seat, hand=h.hand_index, banker=False, card=code))
    deal(draft, drawn, seat=seat.seat, player_id=seat.player_id, hand=h.hand_index, banker=False, face_up=not face_down)
    show_if_done(draft, seat.seat, h.hand_index)


def stand(draft: Draft, cmd: Stand) -> None:
    """End the turn on a hand (a Hungarian punter may stand any open hand)."""
    seat, aw = in_turn(draft, cmd)
    if aw.kind == WaitKind.BANKER:
        acted(draft, seat)
        draft.emit(HandStood(seat=seat.seat, hand=0, banker=True, reason=StandReason.ACTION))
        return
    if aw.kind == WaitKind.ASSIGN:
        raise IllegalAction("give the drawn card to a hand first")
    h = target_hand(draft, seat, aw, cmd.hand)
    acted(draft, seat)
    draft.emit(HandStood(seat=seat.seat, hand=h.hand_index, banker=False, reason=StandReason.ACTION))


def raise_stake(draft: Draft, cmd: Raise) -> None:
    """Add to the stake of the live hand during one's turn (``raise_on_draw``), total within the maximum."""
    seat, aw = in_turn(draft, cmd)
    if aw.kind == WaitKind.BANKER:
        raise IllegalAction("the banker does not raise")
    if not draft.rules.raise_on_draw:
        raise IllegalAction("raising needs the raise_on_draw rule", {"toggle": "raise_on_draw"})
    if aw.kind == WaitKind.ASSIGN:
        raise IllegalAction("give the drawn card to a hand first")
    h = target_hand(draft, seat, aw, cmd.hand)
    room = draft.config.max_bet - h.stake
    if cmd.amount < 1 or cmd.amount > room:
        raise BetOutOfLimits(
            f"a raise adds 1 to {room} chips (the stake may not exceed {draft.config.max_bet})",
            {"max": draft.config.max_bet, "stake": h.stake, "amount": cmd.amount},
        )
    pr, br = check_reserves(draft, cmd.player_id, cmd.amount, None)
    acted(draft, seat)
    total = h.stake + cmd.amount
    draft.emit(
        StakeRaised(
            seat=seat.seat,
            player_id=cmd.player_id,
            hand=h.hand_index,
            amount=cmd.amount,
            stake=total,
            punter_reserve=pr,
            banker_reserve=br,
            banker_id=banker_party(draft),
        )
    )


# -- the player banker ---------------------------------------------------------------------------------------


def banker_hit(draft: Draft, seat: SeatState) -> None:
    """The player banker draws face up; his turn ends by itself on bust, 15 hp or a pair of sevens."""
    acted(draft, seat)
    drawn = draw(draft)
    if drawn is None:
        draft.emit(HandStood(seat=seat.seat, hand=0, banker=True, reason=StandReason.STOCK_EXHAUSTED))
        return
    deal(draft, drawn, seat=seat.seat, player_id=seat.player_id, hand=0, banker=True, face_up=True)
    show_if_done(draft, seat.seat, 0, banker=True)
