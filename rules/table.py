"""Handlers of the table's commands: creating it, seats (sit down, leave, sit out, sit in), client seeds, and
the player banker's stake and retirement. Each validates, then records the player's own facts."""

from __future__ import annotations

from gamemath.enums import BankReason, HandStatus, LeaveReason, Phase, SitInReason, SitOutReason, SkipReason, StakeMode
from gamemath.errors import (
    AlreadySeated,
    BetOutOfLimits,
    IllegalAction,
    NotFound,
    SeatOccupied,
    TableFull,
    WrongPhase,
    invalid,
)
from rules.banking import pass_bank_from
from rules.client_seed import CLIENT_SEED_MAX_LENGTH, client_seed_error
from rules.commands import (
    CreateTable,
    LeaveSeat,
    ReleaseIdleSeat,
    RetireBank,
    SetClientSeed,
    SetStake,
    SitDown,
    SitIn,
    SitOut,
)
from rules.config import make_table_config
from rules.draft import Draft
from rules.events import (
    HOUSE,
    BankRetirementRequested,
    ClientSeedSet,
    LeaveRequested,
    PunterSkipped,
    SatIn,
    SatOut,
    SeatLeft,
    SeatTaken,
    StakeSet,
    TableCreated,
)
from rules.flow import run_automatic_steps
from rules.play import seated


def _check_client_seed(seed: object) -> str:
    error = client_seed_error(seed)
    if error is not None:
        raise invalid("client_seed", error)
    assert isinstance(seed, str)
    return seed


def _default_client_seed(player_id: str) -> str:
    """A player who names no client seed plays with his player id, when that follows the client-seed rule."""
    return _check_client_seed(player_id[:CLIENT_SEED_MAX_LENGTH])


def create_table(draft: Draft, cmd: CreateTable) -> None:
    if draft.state.config is not None:
        raise WrongPhase("the table already exists")
    config = make_table_config(
        preset=cmd.preset,
        overrides=cmd.overrides,
        min_bet=cmd.min_bet,
        max_bet=cmd.max_bet,
        max_seats=cmd.max_seats,
        bank=cmd.bank,
        fixed_stake=cmd.fixed_stake,
        turn_timeout_s=cmd.turn_timeout_s,
        betting_timeout_s=cmd.betting_timeout_s,
    )
    draft.emit(TableCreated(config=config))
    draft.use_config(config)
    if draft.ctx.schedule_v11:  # a command recorded under contract v1.1 re-runs as it ran then
        draft.commit_next_seed()
        return
    # contract v1.2: the commitments of hands 1 and 2 are public from the table's creation
    draft.commit_seed(1)
    draft.commit_seed(2)


def sit_down(draft: Draft, cmd: SitDown) -> None:
    state = draft.state
    if state.config is None:
        raise NotFound("the table does not exist")
    if not isinstance(cmd.player_id, str) or not cmd.player_id or cmd.player_id == HOUSE:
        raise invalid("player_id", "player_id must be a non-empty string other than 'house'")
    if not isinstance(cmd.username, str) or not cmd.username:
        raise invalid("username", "username must be a non-empty string")
    if state.seat_of(cmd.player_id) is not None:
        raise AlreadySeated("you are already seated at this table")
    if cmd.client_seed is None:
        client_seed = _default_client_seed(cmd.player_id)
    else:
        client_seed = _check_client_seed(cmd.client_seed)
    taken = {s.seat for s in state.seats}
    if cmd.seat is None:
        free = [n for n in range(1, state.config.max_seats + 1) if n not in taken]
        if not free:
            raise TableFull("the table is full")
        number = free[0]
    else:
        if not isinstance(cmd.seat, int) or isinstance(cmd.seat, bool) or not 1 <= cmd.seat <= state.config.max_seats:
            raise NotFound(f"there is no seat {cmd.seat}", {"seat": cmd.seat})
        if cmd.seat in taken:
            raise SeatOccupied(f"seat {cmd.seat} is taken", {"seat": cmd.seat})
        number = cmd.seat
    draft.emit(SeatTaken(seat=number, player_id=cmd.player_id, username=cmd.username, client_seed=client_seed))


def _in_current_hand(draft: Draft, player_id: str, seat: int) -> bool:
    hand = draft.state.hand
    if hand is None or not hand.in_play:
        return False
    if hand.banker.player_id == player_id:
        return True
    return any(h.seat == seat and h.status != HandStatus.VOID and (h.stake > 0 or h.cards) for h in hand.punters)


def _withdraw_from_window(draft: Draft, seat: int, player_id: str, reason: SkipReason) -> bool:
    """A punter who has not staked in a betting window before any deal drops out of this hand (True if he did).

    If the others have all bet, the window closes and the deal follows (``flow``)."""
    hand = draft.state.hand
    if hand is None or not hand.in_play or hand.phase != Phase.BETTING:
        return False
    h = hand.find(seat, 0)
    if h is None or h.stake > 0 or h.cards or h.status == HandStatus.VOID:
        return False
    draft.emit(PunterSkipped(seat=seat, player_id=player_id, reason=reason))
    return True


def leave(draft: Draft, cmd: LeaveSeat) -> None:
    seat = seated(draft, cmd.player_id)
    if seat.leaving and draft.state.hand_in_play:
        raise IllegalAction("you are already leaving after this hand")
    if _in_current_hand(draft, cmd.player_id, seat.seat):
        draft.emit(LeaveRequested(seat=seat.seat, player_id=cmd.player_id))
        return
    if _withdraw_from_window(draft, seat.seat, cmd.player_id, SkipReason.LEFT):
        run_automatic_steps(draft)  # if the others have all bet, the deal follows his withdrawal before he leaves
    was_banker = draft.state.banker_seat == seat.seat
    draft.emit(SeatLeft(seat=seat.seat, player_id=cmd.player_id, reason=LeaveReason.REQUEST))
    if was_banker:
        pass_bank_from(draft, seat.seat, BankReason.LEFT)


def release_idle(draft: Draft, cmd: ReleaseIdleSeat) -> None:
    """The server releases an idle seat (``SeatLeft`` with reason ``idle``): never one in the hand in play."""
    if not isinstance(cmd.player_id, str):
        raise invalid("player_id", "player_id must be a string")
    seat = seated(draft, cmd.player_id)
    if _in_current_hand(draft, cmd.player_id, seat.seat):
        raise IllegalAction("the seat takes part in the hand in play")
    if _withdraw_from_window(draft, seat.seat, cmd.player_id, SkipReason.LEFT):
        run_automatic_steps(draft)
    was_banker = draft.state.banker_seat == seat.seat
    draft.emit(SeatLeft(seat=seat.seat, player_id=cmd.player_id, reason=LeaveReason.IDLE))
    if was_banker:
        pass_bank_from(draft, seat.seat, BankReason.LEFT)


def sit_out(draft: Draft, cmd: SitOut) -> None:
    seat = seated(draft, cmd.player_id)
    if seat.sitting_out:
        raise IllegalAction("you are already sitting out")
    draft.emit(SatOut(seat=seat.seat, player_id=cmd.player_id, reason=SitOutReason.REQUEST))
    _withdraw_from_window(draft, seat.seat, cmd.player_id, SkipReason.SAT_OUT)
    if draft.state.banker_seat == seat.seat and not draft.state.hand_in_play:
        pass_bank_from(draft, seat.seat, BankReason.SAT_OUT)


def sit_in(draft: Draft, cmd: SitIn) -> None:
    seat = seated(draft, cmd.player_id)
    if seat.sitting_out:
        draft.emit(SatIn(seat=seat.seat, player_id=cmd.player_id, reason=SitInReason.REQUEST))
    elif not draft.state.hand_in_play:
        draft.emit(SatIn(seat=seat.seat, player_id=cmd.player_id, reason=SitInReason.READY))
    else:
        raise IllegalAction("you are already taking part")


def set_client_seed(draft: Draft, cmd: SetClientSeed) -> None:
    seat = seated(draft, cmd.player_id)
    draft.emit(ClientSeedSet(seat=seat.seat, player_id=cmd.player_id, client_seed=_check_client_seed(cmd.client_seed)))


def _banker_seat_of(draft: Draft, player_id: str, action: str) -> int:
    seat = seated(draft, player_id)
    if draft.config.house_bank:
        raise IllegalAction(f"{action}: the house holds the bank at this table")
    if draft.state.banker_seat != seat.seat:
        raise IllegalAction(f"{action}: only the banker may do this")
    return seat.seat


def set_stake(draft: Draft, cmd: SetStake) -> None:
    seated(draft, cmd.player_id)
    if draft.rules.stake_mode != StakeMode.BANK_FIXED:
        raise IllegalAction("set_stake needs stake_mode bank_fixed", {"toggle": "stake_mode"})
    seat = _banker_seat_of(draft, cmd.player_id, "set_stake")
    hand = draft.state.hand
    if hand is not None and hand.phase == Phase.BANKER:
        # his turn is for his own cards: the stake of later hands is set between hands or while punters play
        raise IllegalAction("set_stake: not during your own turn; set the stake between hands or before it")
    if not draft.config.min_bet <= cmd.amount <= draft.config.max_bet:
        raise BetOutOfLimits(
            f"the stake must be between {draft.config.min_bet} and {draft.config.max_bet}",
            {"min": draft.config.min_bet, "max": draft.config.max_bet, "amount": cmd.amount},
        )
    if cmd.amount == draft.state.stake:
        raise IllegalAction(f"the stake is already {cmd.amount}: set_stake would change nothing")
    draft.emit(StakeSet(seat=seat, player_id=cmd.player_id, amount=cmd.amount))


def retire_bank(draft: Draft, cmd: RetireBank) -> None:
    seat = _banker_seat_of(draft, cmd.player_id, "retire_bank")
    if draft.state.banker_retiring:
        raise IllegalAction("you already retire after this hand")
    if draft.state.hand_in_play:
        draft.emit(BankRetirementRequested(seat=seat, player_id=cmd.player_id))
        return
    pass_bank_from(draft, seat, BankReason.RETIRED)
