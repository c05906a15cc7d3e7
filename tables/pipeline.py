"""The one command pipeline every table command goes through (DESIGN.md principle 4).

    load (snapshot + events) -> decide -> append (expected version) -> ledger postings -> read models -> commit

all in one database transaction. Commands on one table queue on the table row's lock, taken by the load
statement, so each is decided on the latest state and players acting at once never see a spurious error; the
database's UNIQUE (stream, version) remains the concurrency check underneath (a conflict outside a caller's
transaction is decided again, on events only). Only a client's explicit ``expected_version`` turns a moved table
into ``stale_version``. Timers and notifications are scheduled after commit.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone
from msgspec.structs import replace

from gamemath.chainhash import HASH_FORM
from ledger import selectors as ledger_selectors
from responsible.account import AccountState
from rules import (
    Command,
    Context,
    DomainError,
    HandAbandoned,
    HandOpened,
    HandSettled,
    LimitReached,
    PlaceBet,
    TableState,
    command_to_json,
    context_to_json,
    handle,
    wallets_after,
)
from tables import after_commit, checkpoint_signing, fairness, loader, projections, signer
from tables.errors import ConcurrencyConflict, IdempotencyConflict, StaleVersion, TableMissing, TableNotFound
from tables.ledger_bridge import post_ledger_entries
from tables.metrics import observe_command
from tables.responsible_gate import Gate, needs_gate, open_gate
from tables.store import StoredEvent, Write, chain, events_of_idempotent_command, insert

MAX_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command did: the events it appended (empty for a no-op) and the state after them."""

    table_id: int
    state: TableState
    events: list[StoredEvent] = field(default_factory=list)
    repeated: bool = False  # an idempotent repeat: the first outcome's events, nothing new written
    name: str = ""  # the table's name
    hand_id: int | None = None  # the read model's id of the current (or last) hand after the command
    ended_hand_id: int | None = None  # the id of the hand this command ended (the table view's ``last_hand``)
    wallets: dict[str, int] | None = None  # wallets of the seated players and the actor after the command
    # the actor's responsible-gaming account after the command, when the command locked it (the answer's
    # ``you.limits`` then reads no account again)
    actor_account: AccountState | None = None


CommandBuilder = Callable[[Context, TableState], Command]


@observe_command  # metrics (type, outcome, latency, statements) and the request's log line: tables/metrics.py
def execute(
    *,
    table_id: int,
    build: CommandBuilder,
    actor_id: int | None,
    actor_username: str | None = None,
    expected_version: int | None = None,
    idempotency_key: str | None = None,
    request_id: str | None = None,
    reason: str | None = None,
    extra_wallets: tuple[int, ...] = (),
    now_ms: int | None = None,
) -> Outcome:
    """Run one command on a table in one transaction. Raises DomainError.

    Commands on one table queue on its row lock (taken by the load statement), so a command is decided on the
    latest state and players acting at once never see a spurious error; the unique (stream, version) is the
    safety net. Inside a caller's transaction (the API's, which also stores the idempotent answer) the command
    adds no savepoint of its own: a refusal is raised before anything is written, and a failure while writing
    marks the caller's transaction for rollback. Outside one, a conflict (a writer that bypassed the lock) is
    decided again, from the events alone. ``now_ms``: the command's clock, when not this process's (a timeout's is
    the database's).
    """
    arguments = {
        "table_id": table_id,
        "build": build,
        "actor_id": actor_id,
        "actor_username": actor_username,
        "expected_version": expected_version,
        "idempotency_key": idempotency_key,
        "request_id": request_id,
        "reason": reason,
        "extra_wallets": extra_wallets,
        "now_ms": now_ms,
    }
    if transaction.get_connection().in_atomic_block:
        # in the caller's transaction: a refusal (raised before any write) leaves it usable; a failure while
        # writing marks it for rollback, so the command can never be half applied
        return _attempt(**arguments, retry=False)
    for attempt in range(MAX_ATTEMPTS):
        try:
            with transaction.atomic():
                return _attempt(**arguments, retry=attempt > 0)
        except ConcurrencyConflict:
            if attempt == MAX_ATTEMPTS - 1:
                raise
            time.sleep(0.001 * attempt)
    raise AssertionError("unreachable")


def _fingerprint(command_json: dict[str, Any]) -> str:
    body = {k: v for k, v in command_json.items() if k != "ctx"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _attempt(
    *,
    table_id: int,
    build: CommandBuilder,
    actor_id: int | None,
    actor_username: str | None,
    expected_version: int | None,
    idempotency_key: str | None,
    request_id: str | None,
    reason: str | None,
    extra_wallets: tuple[int, ...],
    now_ms: int | None,
    retry: bool,
) -> Outcome:
    try:
        loaded = loader.load_table(
            table_id, lock=True, use_cache=not retry, wallets_of=(*extra_wallets, *([actor_id] if actor_id else []))
        )
    except TableMissing:
        raise TableNotFound(f"there is no table {table_id}", {"table": table_id}) from None
    current_hand_id = loaded.current_hand_id
    state = loaded.state
    if expected_version is not None and expected_version != state.version:
        raise StaleVersion(expected_version, state.version)

    user_ids = {int(s.player_id) for s in state.seats} | set(extra_wallets)
    if actor_id is not None:
        user_ids.add(actor_id)
    if loaded.wallets is not None and user_ids <= loaded.wallet_users:  # read with the table row
        wallets = {str(uid): loaded.wallets[uid] for uid in user_ids}
    else:
        wallets = {str(uid): amount for uid, amount in ledger_selectors.wallet_balances(user_ids).items()}
    context = Context(
        now_ms=int(time.time() * 1000) if now_ms is None else now_ms,
        wallets=wallets,
        entropy=secrets.token_hex(32),
        # the committed seeds, unsealed for this command only, and a fresh sealed seed for each hand this command
        # may commit (committed only if it creates the table or opens a hand: contract v1.2)
        seeds=fairness.unseal_all(table_id, state.pledges),
        next_seeds=fairness.draw_next_seeds(table_id, state),
    )
    command = build(context, state)
    context, gate, first = _responsible_gaming(command, state, context, actor_id)
    command_json = command_to_json(command)

    if idempotency_key is not None:
        previous = events_of_idempotent_command(
            table_id, actor=None if actor_id is None else str(actor_id), key=idempotency_key
        )
        if previous is not None:
            if previous[0].metadata.get("fingerprint") != _fingerprint(command_json):
                raise IdempotencyConflict(
                    "this idempotency key was used for a different command", {"idempotency_key": idempotency_key}
                )
            return Outcome(table_id, state, previous, repeated=True, name=loaded.name, hand_id=current_hand_id)

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
    if not new_events:
        return Outcome(table_id, state, name=loaded.name, hand_id=current_hand_id, wallets=wallets)

    first_version = state.version + 1
    common: dict[str, Any] = {
        "actor": None if actor_id is None else str(actor_id),
        "actor_username": actor_username,
        "command_version": first_version,
        "request_id": request_id,
        "hash_form": HASH_FORM,  # the chain hash covers what the event shows (gamemath.chainhash)
    }
    if reason:
        common["reason"] = reason
    if idempotency_key is not None:
        common["idempotency_key"] = idempotency_key
    # the context is recorded once, beside the command, without its plain seeds (``context_to_json``)
    first_metadata = {
        **common,
        "command": command_json,
        "context": context_to_json(context),
        "fingerprint": _fingerprint(command_json),
    }
    encoded = [
        loader.encode(event, first_metadata if i == 0 else common, table_id=table_id)
        for i, event in enumerate(new_events)
    ]
    now = timezone.now()
    chained = chain(
        stream_id=table_id, expected_version=state.version, prev_hash=loaded.last_hash, events=encoded, recorded_at=now
    )
    with transaction.atomic(savepoint=False):  # the writes stand or fall together
        # the read models' and the snapshot's writes go with the events, in one statement (a new hand's row
        # before it: the others need its id); then the ledger's entries, one function call each
        writes: list[Write] = []
        hand_ids = projections.apply(
            table_id=table_id,
            before=state,
            after=new_state,
            events=list(zip(chained, new_events, strict=True)),
            current_hand_id=current_hand_id,
            at=now,
            writes=writes,
        )
        if any(isinstance(e, (HandOpened, HandSettled, HandAbandoned)) for e in new_events):
            writes.append(loader.snapshot_write(table_id, new_state, chained[-1].hash))
        signed = _checkpoint_position(new_events)
        if signed is not None and settings.CHECKPOINT_SIGNER == "inline":
            # a hand ended: this process signs its end, and the signer's role writes it once this commits (before
            # the table's watchers are woken: they see the hand's chain hashes public)
            end = chained[signed]
            transaction.on_commit(lambda: signer.write_inline(table_id, end.version, end.hash, now))
        elif signed is not None:  # the signer replays the hand, then signs (tables/signer.py)
            transaction.on_commit(lambda: after_commit.hand_ended(table_id))
        stored = insert(chained, also=writes)
        post_ledger_entries(table_id=table_id, events=list(zip(stored, new_events, strict=True)), hand_ids=hand_ids)
        if gate is not None:
            gate.record(table_id=table_id, events=new_events)

    last_hash = stored[-1].hash
    transaction.on_commit(lambda: loader.remember(table_id, new_state, last_hash))
    transaction.on_commit(lambda: after_commit.table_changed(table_id, new_state))
    ended_hand_id = None
    if new_state.last_hand is not None and new_state.last_hand is not state.last_hand:
        ended = new_state.last_hand.hand.number
        ended_hand_id = hand_ids.get(ended, current_hand_id if state.hand and state.hand.number == ended else None)
    if new_state.hand is not None and new_state.hand.number in hand_ids:
        current_hand_id = hand_ids[new_state.hand.number]
    return Outcome(
        table_id,
        new_state,
        stored,
        name=loaded.name,
        hand_id=current_hand_id,
        ended_hand_id=ended_hand_id,
        wallets=wallets_after(wallets, new_events),
        actor_account=_actor_account(gate, actor_id),
    )


def _actor_account(gate: Gate | None, actor_id: int | None) -> AccountState | None:
    loaded = None if gate is None or actor_id is None else gate.accounts.get(actor_id)
    return None if loaded is None else loaded.state


def _responsible_gaming(
    command: Command, state: TableState, context: Context, actor_id: int | None
) -> tuple[Context, Gate | None, tuple[list[Any], TableState] | None]:
    """Responsible gaming's part of a command (tables.responsible_gate): when its events stake, seat or open a hand,
    lock the players' accounts and, for those with a loss limit, decide again with their loss rooms in the
    context (recorded with the command, so replays agree). Returns the context to decide with and record, the
    gate (None when the command is none of its business) and the outcome already decided, if it still holds."""
    try:
        first: tuple[list[Any], TableState] | None = handle(command, state, context)
    except DomainError:
        if isinstance(command, PlaceBet) and actor_id is not None:  # a bet the rules refuse: is it his limits?
            gate = open_gate(state=state, actor_id=actor_id, events=[], now_ms=context.now_ms)
            gate.refuse_bet(actor_id=actor_id, amount=command.amount, state=state)
        return context, None, None  # refused anyway: decided again below, where the refusal is raised
    assert first is not None
    if not needs_gate(first[0]):
        return context, None, first
    gate = open_gate(state=state, actor_id=actor_id, events=first[0], now_ms=context.now_ms)
    if not gate.needed():
        return context, gate, first
    return replace(context, loss_room=gate.loss_room()), gate, None


def _checkpoint_position(events: list[Any]) -> int | None:
    """Where a command's checkpoint goes: after the event that ended a hand and what the end itself brings (the
    players who leave with it, the bank passing on, the next hand's seed commitment), before anything of the next
    hand, whose hidden cards must not be exposed through the chain hashes published up to a checkpoint
    (``fairness.END_OF_HAND``)."""
    ends = [i for i, e in enumerate(events) if isinstance(e, (HandSettled, HandAbandoned))]
    if not ends:
        return None
    position = ends[-1]
    while position + 1 < len(events) and type(events[position + 1]).__name__ in checkpoint_signing.END_OF_HAND:
        position += 1
    return position
