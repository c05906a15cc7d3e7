"""``decide(command, state, context) -> list[event]``: the rules. Pure: the same command, state and context (the
shell's clock, wallets, entropy and seeds, beside the command) give the same events.

A refused command raises a :class:`~gamemath.errors.DomainError` and produces no events.
``handle`` returns the events together with the state they lead to (the fold of the events), which is
what ``decide`` computes anyway; the shell may use it to avoid folding twice.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable
from typing import Any

import msgspec.structs

from gamemath.enums import SitInReason
from gamemath.errors import DomainError, IllegalAction, InvalidRequest, NotFound, invalid
from rules.betting import place_bet
from rules.commands import (
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
    ReleaseIdleSeat,
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
from rules.draft import Draft, SeedUnavailable
from rules.events import Event, SatIn
from rules.flow import run_automatic_steps
from rules.play import hit, raise_stake, stand
from rules.showdown import abandon_without_seed
from rules.splits import assign, split
from rules.state import TableState
from rules.table import (
    create_table,
    leave,
    release_idle,
    retire_bank,
    set_client_seed,
    set_stake,
    sit_down,
    sit_in,
    sit_out,
)
from rules.timeouts import timeout

_HEX64 = re.compile(r"[0-9a-f]{64}")


def _is_int(value: object) -> bool:
    """An integer argument: an ``int`` (or subclass) that is not a ``bool``."""
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def _check_context(ctx: Context) -> None:
    if not _is_int(ctx.now_ms) or ctx.now_ms < 0:
        raise invalid("now_ms", "now_ms must be a non-negative integer (epoch milliseconds)")
    if not isinstance(ctx.entropy, str) or not _HEX64.fullmatch(ctx.entropy):
        raise invalid("entropy", "entropy must be 64 lowercase hex characters")


def _int_fields(kind: type[Command]) -> tuple[tuple[str, bool], ...]:
    """The integer fields of a command type, each with whether it is required (not ``int | None``): read off the
    command's own type, so a command built in Python (not by the JSON codec, which checks) is checked the same."""
    found = []
    for info in msgspec.structs.fields(kind):
        kinds = typing.get_args(info.type) or (info.type,)
        if int in kinds:
            found.append((info.name, type(None) not in kinds))
    return tuple(found)


def _check_arguments(command: Command) -> None:
    for name, required in _INT_FIELDS.get(type(command), ()):
        value = getattr(command, name)
        if not (_is_int(value) or (value is None and not required)):
            raise invalid(name, f"{name} must be an integer")
    if isinstance(command, PlayerCommand) and not isinstance(command.player_id, str):
        raise invalid("player_id", "player_id must be a string")


# -- dispatch ------------------------------------------------------------------------------------------------

#: The handler of each command: it validates the command and records the player's own facts.
_HANDLERS: dict[type[Command], Callable[[Draft, Any], None]] = {
    CreateTable: create_table,
    SitDown: sit_down,
    LeaveSeat: leave,
    ReleaseIdleSeat: release_idle,
    SitOut: sit_out,
    SitIn: sit_in,
    SetClientSeed: set_client_seed,
    PlaceBet: place_bet,
    Hit: hit,
    HitFaceDown: hit,
    Stand: stand,
    Raise: raise_stake,
    Split: split,
    Assign: assign,
    SetStake: set_stake,
    RetireBank: retire_bank,
    Timeout: timeout,
}
#: The integer arguments of each command, read off its type (:func:`_int_fields`).
_INT_FIELDS = {kind: _int_fields(kind) for kind in _HANDLERS}


def handle(
    command: Command, state: TableState, context: Context, *, replaying: bool = False
) -> tuple[list[Event], TableState]:
    """The events ``command`` causes in ``state`` and the state after them (the fold of those events).

    ``replaying``: a verifier re-running a recorded command (with the seeds revealed since put back); a hand whose
    seed is not revealed yet is then not opened (it is checked with its own commands). Raises a
    :class:`DomainError` (no events) when the rules refuse the command.
    """
    try:
        return _run(command, Draft(state, context, command, replaying=replaying))
    except SeedUnavailable as missing:
        return _run_without_seed(command, state, context, missing.number, replaying)


def _run_without_seed(
    command: Command, state: TableState, context: Context, number: int, replaying: bool
) -> tuple[list[Event], TableState]:
    """The command needed the committed seed of hand ``number`` (to deal or to reveal) and does not carry it: its
    sealed form could not be opened (a lost key), or it was never sealed by the shell (a ``plain:`` pledge written
    into the database). The seed is never replaced: the hand in play is abandoned with every stake returned instead
    of the command; a hand that would open and deal at once opens and is abandoned the same way (the command runs).
    A command recorded under contract v1.1 re-runs as it ran then (a fresh seed replaced an unusable commitment
    between hands)."""
    hand = state.hand
    v11 = context.schedule_v11
    draft = Draft(state, context, command, replaying=replaying, unopenable=None if v11 else number)
    if hand is not None and hand.in_play and (hand.number == number or v11):
        abandon_without_seed(draft)
        return draft.events, draft.state
    if v11:
        draft.commit_next_seed()
    return _run(command, draft)


class _Accepted(BaseException):  # not an Exception: nothing on the way may catch it
    """A probe reached its first event: every check before it passed."""


class _ProbeDraft(Draft):
    __slots__ = ()

    def emit(self, event: Event) -> None:
        raise _Accepted


def accepts(command: Command, state: TableState, context: Context) -> bool:
    """Whether ``decide`` would accept ``command`` in ``state`` (raise no :class:`DomainError`).

    First a probe runs the command's checks up to the first event it would emit: a refusal there is final (the
    full run takes the same path up to that point), and most refused probes end here, cheaply. A command that
    gets past it is run in full, since some refuse only after emitting (a bet while the table waits opens the
    hand first, then finds the player is not in it).
    """
    try:
        _run(command, _ProbeDraft(state, context, command))
    except (_Accepted, SeedUnavailable):
        pass
    except DomainError:
        return False
    try:
        _run(command, Draft(state, context, command))
    except SeedUnavailable:  # it passed every check and needs the hand's seed to play out
        return True
    except DomainError:
        return False
    return True


def _run(command: Command, draft: Draft) -> tuple[list[Event], TableState]:
    """Check the command, record its facts (its handler), then move the table on until it waits (``flow``)."""
    state = draft.state
    kind = type(command)
    handler = _HANDLERS.get(kind)
    if handler is None:
        raise InvalidRequest(f"unknown command {kind.__name__}", {"field": "type"})
    _check_context(draft.ctx)
    _check_arguments(command)
    if kind is not CreateTable and state.config is None:
        raise NotFound("the table does not exist")
    handler(draft, command)
    run_automatic_steps(draft)
    if kind is SitIn and _only_ready(draft.events):
        # "ready" opened nothing: sit_in is offered and accepted only when it changes something (API.md v1.2)
        raise IllegalAction("you are already taking part")
    return draft.events, draft.state


def _only_ready(events: list[Event]) -> bool:
    """The events are just a "ready" ``SatIn`` (a player already taking part, and no hand opened)."""
    return len(events) == 1 and isinstance(events[0], SatIn) and events[0].reason == SitInReason.READY


def decide(command: Command, state: TableState, context: Context, *, replaying: bool = False) -> list[Event]:
    """The events ``command`` causes in ``state``; a refused command raises a :class:`DomainError`.

    Deterministic: the same command, state and context (clock, wallets, entropy, seeds) always give the same
    events, which is how a disputed hand is re-run and verified.
    """
    return handle(command, state, context, replaying=replaying)[0]


__all__ = ["accepts", "decide", "handle"]
