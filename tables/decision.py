"""The decide step of the command pipeline (``tables.pipeline``): the context a command is decided in and the rules
core's decision, with responsible gaming's part.

The context is the command's clock, the wallets of everyone it may touch, fresh entropy, the table's committed
seeds (unsealed for this command only) and a fresh sealed seed for each hand it may commit. Responsible gaming
(``tables.responsible_gate``) locks the accounts of the players a command stakes, seats or deals in, refuses what
their limits forbid and, for a loss limit, has the command decided again with their loss rooms in the context
(recorded with the command, so replays agree).
"""

from __future__ import annotations

import secrets
import time

from msgspec.structs import replace

from ledger import selectors as ledger_selectors
from responsible.account import AccountState
from rules import Command, Context, DomainError, Event, LimitReached, PlaceBet, TableState, handle
from tables import fairness
from tables.loader import LoadedTable
from tables.responsible_gate import Gate, needs_gate, open_gate

#: What the rules core decided: the new events and the state after them.
Decided = tuple[list[Event], TableState]


def command_wallets(loaded: LoadedTable, *, actor_id: int | None, extra_wallets: tuple[int, ...]) -> dict[str, int]:
    """The wallet balances (user id as text -> chips) a command is decided with: of the seated players, the actor
    and ``extra_wallets``; those read with the table row when they are current (``LoadedTable.wallets``), else
    read now."""
    user_ids = {int(s.player_id) for s in loaded.state.seats} | set(extra_wallets)
    if actor_id is not None:
        user_ids.add(actor_id)
    if loaded.wallets is not None and user_ids <= loaded.wallet_users:  # read with the table row
        return {str(uid): loaded.wallets[uid] for uid in user_ids}
    return {str(uid): amount for uid, amount in ledger_selectors.wallet_balances(user_ids).items()}


def command_context(table_id: int, state: TableState, wallets: dict[str, int], *, now_ms: int | None) -> Context:
    """The context of a command on the table in ``state``: its clock (``now_ms``, else this process's), the wallets,
    fresh entropy, the committed seeds unsealed for this command only, and a fresh sealed seed for each hand this
    command may commit (committed only if it creates the table or opens a hand: contract v1.2)."""
    return Context(
        now_ms=int(time.time() * 1000) if now_ms is None else now_ms,
        wallets=wallets,
        entropy=secrets.token_hex(32),
        seeds=fairness.unseal_all(table_id, state.pledges),
        next_seeds=fairness.draw_next_seeds(table_id, state),
    )


def responsible_gaming(
    command: Command, state: TableState, context: Context, actor_id: int | None
) -> tuple[Context, Gate | None, Decided | None]:
    """Responsible gaming's part of a command (tables.responsible_gate): when its events stake, seat or open a hand,
    lock the players' accounts and, for those with a loss limit, decide again with their loss rooms in the
    context (recorded with the command, so replays agree). Returns the context to decide with and record, the
    gate (None when the command is none of its business) and the outcome already decided, if it still holds."""
    try:
        first: Decided | None = handle(command, state, context)
    except DomainError:
        if isinstance(command, PlaceBet) and actor_id is not None:  # a bet the rules refuse: is it his limits?
            gate = open_gate(state=state, actor_id=actor_id, events=[], now_ms=context.now_ms)
            gate.refuse_bet(actor_id=actor_id, amount=command.amount, state=state)
        return context, None, None  # refused anyway: decided again in decide_command(), where the refusal is raised
    assert first is not None
    if not needs_gate(first[0]):
        return context, None, first
    gate = open_gate(state=state, actor_id=actor_id, events=first[0], now_ms=context.now_ms)
    if not gate.needed():
        return context, gate, first
    return replace(context, loss_room=gate.loss_room(), loss_ceiling=gate.loss_ceiling()), gate, None


def decide_command(
    command: Command,
    state: TableState,
    context: Context,
    *,
    gate: Gate | None,
    first: Decided | None,
    actor_id: int | None,
) -> Decided:
    """The command's events and the state after them: ``first`` (decided by :func:`responsible_gaming`) when it
    still holds, else decided now. Raises the rules' DomainError, explained by the player's limits when they are
    why (a limit reached, a bet his limits refuse); the gate then checks the events against every limit."""
    try:
        new_events, new_state = first if first is not None else handle(command, state, context)
    except LimitReached as exc:
        raise (gate.explain(exc, str(actor_id)) if gate is not None and actor_id is not None else exc) from None
    except DomainError:
        if gate is not None and actor_id is not None and isinstance(command, PlaceBet):
            gate.refuse_bet(actor_id=actor_id, amount=command.amount, state=state)  # his limits, if that is why
        raise
    if gate is not None:
        gate.check(actor_id=actor_id, events=new_events)
    return new_events, new_state


def actor_account(gate: Gate | None, actor_id: int | None, read: AccountState | None = None) -> AccountState | None:
    """The actor's responsible-gaming account after the command: the one the command locked; with no gate (the
    command changed no account), ``read`` (the one the load read with the table row, if any); else None."""
    if actor_id is None:
        return None
    if gate is None:
        return read
    loaded = gate.accounts.get(actor_id)
    return None if loaded is None else loaded.state
