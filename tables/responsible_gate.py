"""Responsible gaming inside a table command's transaction (DESIGN.md principle 14).

The pipeline asks :func:`needs_gate` whether a command's events touch what responsible gaming governs (a stake,
a seat, a hand opening or the bank changing hands); only then :func:`open_gate` locks the accounts of the
players concerned (the lock a stake, a deposit or a seat of theirs elsewhere waits for, so two tables cannot
together pass a loss limit), and gives each player with a loss limit his *loss room*: what he may still put at
risk. The core receives the rooms in the context (``Context.loss_room``): a stake beyond them is refused, and a
banker is covered only as far as his room reaches, so a banker who could pass his limit passes the bank.
:meth:`Gate.check` refuses the actor's stake or seat while he is excluded, his reality check is due or his
session limit is used up, or a stake above his stake limit; :meth:`Gate.record` writes the sessions that the
command starts or ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from gamemath.enums import StakeMode
from responsible import account as acc
from responsible.errors import RealityCheckDue, excluded, limit_reached
from responsible.policy import (
    LONGEST_PERIOD_MS,
    Kind,
    LossRoom,
    Usage,
    binding,
    loss_room,
    loss_usages,
    stake_refusal,
)
from responsible.services import record_session_block
from responsible.store import Loaded, append, lock_accounts, loss_facts
from rules import (
    BankPassed,
    BetPlaced,
    Event,
    FirstBankerDrawn,
    HandOpened,
    HandSplit,
    SeatLeft,
    SeatTaken,
    StakeRaised,
    TableState,
)
from rules import LimitReached as CoreLimitReached

_TRIGGERS = (BetPlaced, StakeRaised, HandSplit, HandOpened, BankPassed, FirstBankerDrawn, SeatTaken, SeatLeft)
_STAKES = (BetPlaced, StakeRaised, HandSplit)


def needs_gate(events: Sequence[Event]) -> bool:
    """Whether a command's events are any of responsible gaming's business."""
    return any(isinstance(e, _TRIGGERS) for e in events)


@dataclass(slots=True)
class Gate:
    now_ms: int
    accounts: dict[int, Loaded]
    loss: dict[int, Usage] = field(default_factory=dict)  # the binding loss limit of each player who has one
    rooms: dict[int, LossRoom] = field(default_factory=dict)  # and his room under all of them (policy.loss_room)
    # players who may stake nothing now (excluded, session limit used up, reality check due), with the reason
    blocked: dict[int, Exception] = field(default_factory=dict)

    def needed(self) -> bool:
        """Whether the core must decide with loss rooms (someone has a loss limit or may stake nothing)."""
        return bool(self.loss or self.blocked)

    def loss_room(self) -> dict[str, int]:
        """``Context.loss_room``: player id -> his headroom under his loss limits (``LossRoom.headroom``: with
        ``loss_ceiling``, what the core follows through the command's settlements); 0 for a blocked player, so no
        stake is placed for him by a timeout and he cannot hold the bank."""
        rooms = {str(uid): room.headroom for uid, room in self.rooms.items()}
        return rooms | {str(uid): 0 for uid in self.blocked}

    def loss_ceiling(self) -> dict[str, int]:
        """``Context.loss_ceiling``: player id -> his lowest loss limit less his chips at risk (not for a blocked
        player: his room stays 0 whatever the command settles)."""
        return {str(uid): room.ceiling for uid, room in self.rooms.items() if uid not in self.blocked}

    def explain(self, exc: CoreLimitReached, player_id: str) -> Exception:
        """The core's refusal of a stake with its reason: the player's block, or the loss limit with the
        contract's details ``{kind, period, limit, used, remaining}``."""
        blocked = self.blocked.get(int(player_id))
        if blocked is not None:
            return blocked
        usage = self.loss.get(int(player_id))
        if usage is None:
            return exc
        return limit_reached(usage, exc.message)

    def refuse_bet(self, *, actor_id: int, amount: int, state: TableState) -> None:
        """A bet the rules refused (a player is not dealt in when his loss room does not cover the minimum
        stake): raise the responsible-gaming reason, if it is one."""
        block = self.blocked.get(actor_id)
        if block is not None:
            raise block
        usage = self.loss.get(actor_id)
        multiplier = state.config.rules.punter_loss_multiplier if state.config is not None else 1
        if usage is not None and usage.remaining < amount * multiplier:
            raise limit_reached(usage)

    def check(self, *, actor_id: int | None, events: Sequence[Event]) -> None:
        """Refuse the actor's stake or seat that his account does not allow now."""
        if actor_id is None:
            return
        loaded = self.accounts.get(actor_id)
        state = loaded.state if loaded is not None else acc.AccountState()
        actor = str(actor_id)
        stakes = [e for e in events if isinstance(e, _STAKES) and e.player_id == actor and not _by_timeout(e)]
        sits = [e for e in events if isinstance(e, SeatTaken) and e.player_id == actor]
        if not stakes and not sits:
            return
        now = self.now_ms
        if state.excluded(now):
            raise excluded(state.exclusion_kind, state.excluded_until_ms)
        if sits and (acc.session_blocked(state, now) or acc.session_limit_reached(state, now)):
            raise limit_reached(
                _session_usage(state, now), "Your session limit is reached: a new session may start tomorrow."
            )
        if not stakes:
            return
        block = _block(state, now)
        if block is not None:
            raise block
        for e in stakes:
            over = stake_refusal(state.limits, e.amount)
            if over is not None:
                raise limit_reached(over, f"A stake of {e.amount} passes your stake limit ({over.limit}).")

    def record(self, *, table_id: int, events: Sequence[Event]) -> None:
        """A stake starts the player's session when none is running (API.md v1.3: from the first stake after
        signing in; leaving a table or sitting at another restarts neither it nor the reality check's clock) and
        now and then records it as active; leaving a table when the session limit is used up records the block
        until the next day."""
        for e in events:
            if isinstance(e, _STAKES):
                loaded = self.accounts.get(int(e.player_id))
                if loaded is not None:
                    append(loaded, acc.session_stake_events(loaded.state, self.now_ms))
            elif isinstance(e, SeatLeft):
                loaded = self.accounts.get(int(e.player_id))
                if loaded is not None:
                    record_session_block(loaded, self.now_ms)


def _block(state: acc.AccountState, now: int) -> Exception | None:
    """Why the player may stake nothing now, or None."""
    if state.excluded(now):
        return excluded(state.exclusion_kind, state.excluded_until_ms)
    if acc.session_limit_reached(state, now):
        return limit_reached(_session_usage(state, now), "Your session limit is reached.")
    if acc.reality_check_due(state, now):
        return RealityCheckDue(
            "A reality check is due: acknowledge it (POST /api/v1/me/reality-check) before staking again.",
            {"elapsed_s": acc.session_elapsed_ms(state, now) // 1000},
        )
    return None


def _by_timeout(event: Event) -> bool:
    return bool(getattr(event, "by_timeout", False))


def _session_usage(state: acc.AccountState, now_ms: int) -> Usage:
    minutes = state.limits.get(str(Kind.SESSION), 0)
    return Usage(Kind.SESSION, None, minutes, acc.session_elapsed_ms(state, now_ms) // 60_000)


def _least_stake(state: TableState) -> int | None:
    """The least stake at the table: what a timeout stakes for a punter who owes a bet (RULES.md 7), S under
    ``bank_fixed``, else the minimum bet."""
    config = state.config
    if config is None:
        return None
    if config.rules.stake_mode == StakeMode.BANK_FIXED:
        stake = state.hand.stake if state.hand is not None else state.stake
        if stake is not None:
            return stake
    return config.min_bet


def open_gate(*, state: TableState, actor_id: int | None, events: Sequence[Event], now_ms: int) -> Gate:
    """Lock the accounts of everyone the command concerns (creating those of players sitting down) and work out
    the loss rooms of those with a loss limit. A player whose stake limit is below the table's least stake may
    stake nothing here (blocked: room 0), so no timeout stakes the minimum for him, and he does not hold the bank
    either (a bank risks more than any stake)."""
    users = {int(s.player_id) for s in state.seats}
    sitting = {int(e.player_id) for e in events if isinstance(e, SeatTaken)}
    if actor_id is not None:
        users.add(actor_id)
    accounts = lock_accounts(users | sitting, create=bool(sitting))
    gate = Gate(now_ms=now_ms, accounts=accounts)
    since = datetime.fromtimestamp((now_ms - LONGEST_PERIOD_MS) / 1000, tz=UTC)
    least = _least_stake(state)
    for uid, loaded in accounts.items():
        block = _block(loaded.state, now_ms)
        over = stake_refusal(loaded.state.limits, least) if block is None and least is not None else None
        if over is not None:  # a stake limit below the least stake: no timeout stakes the minimum for him (#43)
            block = limit_reached(over, f"The least stake here ({least}) passes your stake limit ({over.limit}).")
        if block is not None:
            gate.blocked[uid] = block
        if any(key.startswith(f"{Kind.LOSS}:") for key in loaded.state.limits):
            settled, at_risk = loss_facts(uid, since=since, now_ms=now_ms)
            usage = binding(loss_usages(loaded.state.limits, settled, at_risk=at_risk, now_ms=now_ms))
            room = loss_room(loaded.state.limits, settled, at_risk=at_risk, now_ms=now_ms)
            if usage is not None and room is not None:
                gate.loss[uid] = usage
                gate.rooms[uid] = room
    return gate
