"""``decide(command, state) -> list[event]``: the rules. Pure: the same command and state give the same events.

A refused command raises a :class:`~tables.rules.errors.DomainError` and produces no events.
``handle`` returns the events together with the state they lead to (the fold of the events), which is
what ``decide`` computes anyway; the shell may use it to avoid folding twice.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from .banking import offer_from
from .client_seed import CLIENT_SEED_MAX_LENGTH, client_seed_error
from .commands import (
    Assign,
    Command,
    Context,
    CreateTable,
    Hit,
    HitFaceDown,
    LeaveSeat,
    PlaceBet,
    PlayerCommand,
    Raise,
    RetireBank,
    SetClientSeed,
    SetStake,
    SitDown,
    SitIn,
    SitOut,
    Split,
    Stand,
    Timeout,
)
from .config import make_table_config
from .errors import (
    AlreadySeated,
    BetOutOfLimits,
    DomainError,
    IllegalAction,
    InvalidRequest,
    NotFound,
    SeatOccupied,
    TableFull,
    WrongPhase,
    invalid,
)
from .events import (
    HOUSE,
    BankPassed,
    BankRetirementRequested,
    CardAssigned,
    ClientSeedSet,
    Event,
    HandStood,
    LeaveRequested,
    PunterSkipped,
    SatIn,
    SatOut,
    SeatLeft,
    SeatTaken,
    StakeSet,
    TableCreated,
)
from .opening import bet_for_timeout, check_betting_complete, close_betting, record_timeout, try_open_hand
from .play import acted, assign, hit, place_bet, raise_stake, seated, split, stand
from .scoring import BUST, evaluate
from .showdown import abandon_without_seed, settle
from .state import PLAYING, VOID, TableState
from .turns import after_card, stand_all, start_next_turn
from .tx import SeedUnavailable, Tx

_HEX64 = re.compile(r"[0-9a-f]{64}")


def _is_int(value: object) -> bool:
    """An integer argument: an ``int`` (or subclass) that is not a ``bool``."""
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def _check_context(ctx: Context) -> None:
    if not _is_int(ctx.now_ms) or ctx.now_ms < 0:
        raise invalid("now_ms", "now_ms must be a non-negative integer (epoch milliseconds)")
    if not isinstance(ctx.entropy, str) or not _HEX64.fullmatch(ctx.entropy):
        raise invalid("entropy", "entropy must be 64 lowercase hex characters")


#: Integer arguments of each command: (name, required). Commands built in Python skip the JSON codec's checks.
_INT_ARGS: dict[type[Command], tuple[tuple[str, bool], ...]] = {
    PlaceBet: (("amount", True),),
    Raise: (("amount", True), ("hand", False)),
    Split: (("amount", False), ("hand", False)),
    Hit: (("hand", False),),
    HitFaceDown: (("hand", False),),
    Stand: (("hand", False),),
    Assign: (("hand", True),),
    SetStake: (("amount", True),),
    SitDown: (("seat", False),),
    Timeout: (("expected_version", True),),
}


def _check_arguments(command: Command) -> None:
    for name, required in _INT_ARGS.get(type(command), ()):
        value = getattr(command, name)
        if not (_is_int(value) or (value is None and not required)):
            raise invalid(name, f"{name} must be an integer")
    if isinstance(command, PlayerCommand) and not isinstance(command.player_id, str):
        raise invalid("player_id", "player_id must be a string")


def _check_client_seed(seed: object) -> str:
    error = client_seed_error(seed)
    if error is not None:
        raise invalid("client_seed", error)
    assert isinstance(seed, str)
    return seed


def _default_client_seed(player_id: str) -> str:
    """A player who names no client seed plays with his player id, when that follows the client-seed rule."""
    return _check_client_seed(player_id[:CLIENT_SEED_MAX_LENGTH])


# -- table -------------------------------------------------------------------------------------------------


def _create_table(tx: Tx, cmd: CreateTable) -> None:
    if tx.state.config is not None:
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
    tx.emit(TableCreated(config=config))
    tx.use_config(config)
    tx.commit_next_seed()  # hand 1's commitment is public from the table's creation


def _sit_down(tx: Tx, cmd: SitDown) -> None:
    state = tx.state
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
    tx.emit(SeatTaken(seat=number, player_id=cmd.player_id, username=cmd.username, client_seed=client_seed))


def _in_current_hand(tx: Tx, player_id: str, seat: int) -> bool:
    hand = tx.state.hand
    if hand is None or not hand.in_play:
        return False
    if hand.banker.player_id == player_id:
        return True
    return any(h.seat == seat and h.status != VOID and (h.stake > 0 or h.cards) for h in hand.punters)


def _withdraw_from_window(tx: Tx, seat: int, player_id: str, reason: str) -> None:
    """A punter who has not staked in a betting window before any deal drops out of this hand."""
    hand = tx.state.hand
    if hand is None or not hand.in_play or hand.phase != "betting":
        return
    h = hand.find(seat, 0)
    if h is not None and h.stake == 0 and not h.cards and h.status != VOID:
        tx.emit(PunterSkipped(seat=seat, player_id=player_id, reason=reason))
        # With a stake on the table the others have all bet: deal now. With none, the window stays open until
        # its deadline: abandoning it at once would let sit_out / sit_in open and abandon a hand (a new seed,
        # a snapshot, events) per toggle.
        if any(p.stake > 0 for p in tx.hand.punters):
            check_betting_complete(tx)


def _vacate_bank(tx: Tx, seat: int, reason: str) -> None:
    successor = offer_from(tx, seat)
    tx.emit(
        BankPassed(
            from_seat=seat,
            to_seat=successor.seat if successor else None,
            player_id=successor.player_id if successor else None,
            reason=reason,
        )
    )


def _leave(tx: Tx, cmd: LeaveSeat) -> None:
    seat = seated(tx, cmd.player_id)
    if seat.leaving:
        raise IllegalAction("you are already leaving after this hand")
    if _in_current_hand(tx, cmd.player_id, seat.seat):
        tx.emit(LeaveRequested(seat=seat.seat, player_id=cmd.player_id))
        return
    _withdraw_from_window(tx, seat.seat, cmd.player_id, "left")
    if tx.state.banker_seat == seat.seat:
        tx.emit(SeatLeft(seat=seat.seat, player_id=cmd.player_id, reason="request"))
        _vacate_bank(tx, seat.seat, "left")
        return
    tx.emit(SeatLeft(seat=seat.seat, player_id=cmd.player_id, reason="request"))


def _sit_out(tx: Tx, cmd: SitOut) -> None:
    seat = seated(tx, cmd.player_id)
    if seat.sitting_out:
        raise IllegalAction("you are already sitting out")
    tx.emit(SatOut(seat=seat.seat, player_id=cmd.player_id, reason="request"))
    _withdraw_from_window(tx, seat.seat, cmd.player_id, "sat_out")
    if tx.state.banker_seat == seat.seat and not tx.state.hand_in_play:
        _vacate_bank(tx, seat.seat, "sat_out")


def _sit_in(tx: Tx, cmd: SitIn) -> None:
    seat = seated(tx, cmd.player_id)
    if seat.sitting_out:
        tx.emit(SatIn(seat=seat.seat, player_id=cmd.player_id, reason="request"))
    elif not tx.state.hand_in_play:
        tx.emit(SatIn(seat=seat.seat, player_id=cmd.player_id, reason="ready"))
    else:
        raise IllegalAction("you are already taking part")


def _set_client_seed(tx: Tx, cmd: SetClientSeed) -> None:
    seat = seated(tx, cmd.player_id)
    tx.emit(ClientSeedSet(seat=seat.seat, player_id=cmd.player_id, client_seed=_check_client_seed(cmd.client_seed)))


def _banker_seat_of(tx: Tx, player_id: str, action: str) -> int:
    seat = seated(tx, player_id)
    if tx.config.house_bank:
        raise IllegalAction(f"{action}: the house holds the bank at this table")
    if tx.state.banker_seat != seat.seat:
        raise IllegalAction(f"{action}: only the banker may do this")
    return seat.seat


def _set_stake(tx: Tx, cmd: SetStake) -> None:
    seated(tx, cmd.player_id)
    if tx.rules.stake_mode != "bank_fixed":
        raise IllegalAction("set_stake needs stake_mode bank_fixed", {"toggle": "stake_mode"})
    seat = _banker_seat_of(tx, cmd.player_id, "set_stake")
    if not tx.config.min_bet <= cmd.amount <= tx.config.max_bet:
        raise BetOutOfLimits(
            f"the stake must be between {tx.config.min_bet} and {tx.config.max_bet}",
            {"min": tx.config.min_bet, "max": tx.config.max_bet, "amount": cmd.amount},
        )
    tx.emit(StakeSet(seat=seat, player_id=cmd.player_id, amount=cmd.amount))


def _retire_bank(tx: Tx, cmd: RetireBank) -> None:
    seat = _banker_seat_of(tx, cmd.player_id, "retire_bank")
    if tx.state.banker_retiring:
        raise IllegalAction("you already retire after this hand")
    if tx.state.hand_in_play:
        tx.emit(BankRetirementRequested(seat=seat, player_id=cmd.player_id))
        return
    _vacate_bank(tx, seat, "retired")


# -- timeouts ----------------------------------------------------------------------------------------------


def _auto_assign(tx: Tx, seat: int) -> int:
    """A timed-out Hungarian card goes to the first open hand it does not bust, else the first open hand."""
    hand = tx.hand
    assert hand.pending is not None
    card = hand.pending[1]
    open_hands = [h for h in hand.punters if h.seat == seat and h.status == PLAYING]
    target = next(
        (h for h in open_hands if evaluate((*h.cards, card), tx.rules, split=True).category != BUST), open_hands[0]
    )
    tx.emit(CardAssigned(seat=seat, hand=target.hand_index, card=card))
    after_card(tx, seat, target.hand_index)
    return target.hand_index


def _timeout(tx: Tx, cmd: Timeout) -> None:
    state = tx.state
    aw = state.awaiting
    if state.config is None or cmd.expected_version != state.version or aw is None:
        return
    hand = tx.hand
    if aw.kind == "bets":
        owing = [h for h in hand.punters if h.stake == 0 and h.status != VOID]
        for h in owing:
            seat = state.seat_at(h.seat)
            assert seat is not None
            record_timeout(tx, seat, "bets")
            if tx.rules.bet_timing == "before_deal":
                tx.emit(PunterSkipped(seat=h.seat, player_id=h.player_id, reason="timeout"))
            else:
                bet_for_timeout(tx, tx.hand.find(h.seat, h.hand_index) or h)
        close_betting(tx)
        return
    assert aw.seat is not None
    seat = state.seat_at(aw.seat)
    assert seat is not None
    record_timeout(tx, seat, aw.kind)
    if aw.kind == "banker":
        tx.emit(HandStood(seat=aw.seat, hand=0, banker=True, reason="timeout"))
        settle(tx)
        return
    if aw.kind == "bet":
        debtor = tx.hand.find(aw.seat, aw.hand if aw.hand is not None else 0)
        assert debtor is not None
        if not bet_for_timeout(tx, debtor):
            start_next_turn(tx)
            return
    elif aw.kind == "assign":
        _auto_assign(tx, aw.seat)
    stand_all(tx, aw.seat, "timeout")
    start_next_turn(tx)


# -- dispatch ------------------------------------------------------------------------------------------------

_HANDLERS: dict[type[Command], Callable[[Tx, Any], None]] = {
    CreateTable: _create_table,
    SitDown: _sit_down,
    LeaveSeat: _leave,
    SitOut: _sit_out,
    SitIn: _sit_in,
    SetClientSeed: _set_client_seed,
    PlaceBet: place_bet,
    Hit: hit,
    HitFaceDown: hit,
    Stand: stand,
    Raise: raise_stake,
    Split: split,
    Assign: assign,
    SetStake: _set_stake,
    RetireBank: _retire_bank,
    Timeout: _timeout,
}
#: Player commands after which a table that went idle (empty betting window) opens a hand again.
_TRIGGERS = frozenset({SitDown, SitIn, PlaceBet})
_PLAYER_COMMANDS = frozenset(kind for kind in _HANDLERS if issubclass(kind, PlayerCommand))
#: Hand phases in which no hand is in play (``HandState.in_play`` is False).
_OVER = ("settled", "abandoned")


def handle(command: Command, state: TableState) -> tuple[list[Event], TableState]:
    """The events ``command`` causes in ``state`` and the state after them (the fold of those events).

    Raises a :class:`DomainError` (no events) when the rules refuse the command.
    """
    try:
        return _run(command, Tx(state, command.ctx))
    except SeedUnavailable:
        return _run_without_seed(command, state)


def _run_without_seed(command: Command, state: TableState) -> tuple[list[Event], TableState]:
    """The command needed the seed of the hand in play (or of the next hand) and does not carry it (its sealed
    form could not be opened: a lost key). A hand in play is abandoned with every stake returned instead of the
    command; between hands a fresh seed replaces the unusable commitment and the command runs on it."""
    tx = Tx(state, command.ctx)
    if state.hand_in_play:
        abandon_without_seed(tx)
        return tx.events, tx.state
    tx.commit_next_seed()
    return _run(command, tx)


class _Accepted(BaseException):  # not an Exception: nothing on the way may catch it
    """A probe reached its first event: every check before it passed."""


class _ProbeTx(Tx):
    __slots__ = ()

    def emit(self, event: Event) -> None:
        raise _Accepted


def accepts(command: Command, state: TableState) -> bool:
    """Whether ``decide`` would accept ``command`` in ``state`` (raise no :class:`DomainError`).

    First a probe runs the command's checks up to the first event it would emit: a refusal there is final (the
    full run takes the same path up to that point), and most refused probes end here, cheaply. A command that
    gets past it is run in full, since some refuse only after emitting (a bet while the table waits opens the
    hand first, then finds the player is not in it).
    """
    try:
        _run(command, _ProbeTx(state, command.ctx))
    except (_Accepted, SeedUnavailable):
        pass
    except DomainError:
        return False
    try:
        _run(command, Tx(state, command.ctx))
    except SeedUnavailable:  # it passed every check and needs the hand's seed to play out
        return True
    except DomainError:
        return False
    return True


def _run(command: Command, tx: Tx) -> tuple[list[Event], TableState]:
    state = tx.state
    kind = type(command)
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise InvalidRequest(f"unknown command {kind.__name__}", {"field": "type"})
    _check_context(command.ctx)
    _check_arguments(command)
    if kind is not CreateTable and state.config is None:
        raise NotFound("the table does not exist")
    handler(tx, command)
    if kind in _PLAYER_COMMANDS:
        after = tx.state
        hand = after.hand
        # try_open_hand does nothing while a hand is in play: skip the call in that (usual) case
        if after.config is not None and (hand is None or hand.phase in _OVER):
            try_open_hand(tx, trigger=kind in _TRIGGERS)
    if kind is SitIn and _only_ready(tx.events):
        return [], state  # "ready" opened nothing: a toggle that changes nothing writes nothing
    return tx.events, tx.state


def _only_ready(events: list[Event]) -> bool:
    """The events are just a "ready" ``SatIn`` (a player already taking part, and no hand opened)."""
    return len(events) == 1 and isinstance(events[0], SatIn) and events[0].reason == "ready"


def decide(command: Command, state: TableState) -> list[Event]:
    """The events ``command`` causes in ``state``; a refused command raises a :class:`DomainError`.

    Deterministic: the same command (including its context: clock, wallets, entropy) and state always give
    the same events, which is how a disputed hand is re-run and verified.
    """
    return handle(command, state)[0]


__all__ = ["accepts", "acted", "decide", "handle"]
