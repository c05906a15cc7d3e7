"""The one command pipeline every table command goes through (DESIGN.md principle 4).

    load (snapshot + events) -> decide -> append (expected version) -> ledger postings -> read models -> commit

all in one database transaction. Commands on one table queue on the table row's lock, taken by the load
statement, so each is decided on the latest state and players acting at once never see a spurious error; the
database's UNIQUE (stream, version) remains the concurrency check underneath (a conflict outside a caller's
transaction is decided again, on events only). Only a client's explicit ``expected_version`` turns a moved table
into ``stale_version``. Timers and notifications are scheduled after commit.

The steps have their own modules: the decision (its context, responsible gaming's part) is ``tables.decision``,
what the events record of the command ``tables.command_record``, the read models ``tables.projections``.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from responsible.account import AccountState
from rules import (
    Command,
    Context,
    Event,
    HandAbandoned,
    HandOpened,
    HandSettled,
    TableState,
    command_to_json,
    evolve,
    wallets_after,
)
from tables import (
    after_commit,
    checkpoint_signing,
    command_record,
    decision,
    loader,
    projections,
    signer,
    snapshots,
)
from tables.errors import ConcurrencyConflict, StaleVersion, TableMissing, TableNotFound
from tables.ledger_bridge import post_ledger_entries
from tables.loader import LoadedTable
from tables.metrics import observe_command
from tables.responsible_gate import Gate
from tables.store import StoredEvent, Write, chain, insert

MAX_ATTEMPTS = 5


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command did: the events it appended (empty for a no-op) and the state after them."""

    table_id: int
    state: TableState
    events: list[StoredEvent] = field(default_factory=list)
    # the rules events of ``events``, as decided (empty for a repeat, whose events were read back): the answer
    # shows these, never decoding what the command just encoded (a face-down card's seal opened again)
    decided: list[Event] = field(default_factory=list)
    repeated: bool = False  # an idempotent repeat: the first outcome's events, nothing new written
    name: str = ""  # the table's name
    hand_id: int | None = None  # the read model's id of the current (or last) hand after the command
    ended_hand_id: int | None = None  # the id of the hand this command ended (the table view's ``last_hand``)
    wallets: dict[str, int] | None = None  # wallets of the seated players and the actor after the command
    # the actor's responsible-gaming account after the command: the one the command locked, or, for a command
    # that is none of responsible gaming's business (it changes no account), the one the load read with the table
    # row (the answer's ``you.limits`` then reads no account again); None: not known, to be read
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
    request = _Request(
        table_id=table_id, build=build, actor_id=actor_id, actor_username=actor_username,
        expected_version=expected_version, idempotency_key=idempotency_key, request_id=request_id, reason=reason,
        extra_wallets=extra_wallets, now_ms=now_ms,
    )  # fmt: skip
    if transaction.get_connection().in_atomic_block:
        # in the caller's transaction: a refusal (raised before any write) leaves it usable; a failure while
        # writing marks it for rollback, so the command can never be half applied
        return _attempt(request, retry=False)
    for attempt in range(MAX_ATTEMPTS):
        try:
            with transaction.atomic():
                return _attempt(request, retry=attempt > 0)
        except ConcurrencyConflict:
            if attempt == MAX_ATTEMPTS - 1:
                raise
            time.sleep(0.001 * attempt)
    raise AssertionError("unreachable")


@dataclass(frozen=True, slots=True)
class _Request:
    """One call of :func:`execute`: the command to build, on which table, by whom, and how it is asked."""

    table_id: int
    build: CommandBuilder
    actor_id: int | None
    actor_username: str | None
    expected_version: int | None
    idempotency_key: str | None
    request_id: str | None
    reason: str | None
    extra_wallets: tuple[int, ...]
    now_ms: int | None

    @property
    def actor(self) -> str | None:
        """The actor as events record him (None: the system)."""
        return None if self.actor_id is None else str(self.actor_id)


def _attempt(request: _Request, *, retry: bool) -> Outcome:
    """One try of a command in the current transaction: load the table (its row locked), decide, and unless the
    command is an idempotent repeat or changes nothing, append its events with everything that goes with them."""
    loaded = _load(request, retry=retry)
    state = loaded.state
    wallets = decision.command_wallets(loaded, actor_id=request.actor_id, extra_wallets=request.extra_wallets)
    context = decision.command_context(request.table_id, state, wallets, now_ms=request.now_ms)
    command = request.build(context, state)
    context, gate, first = decision.responsible_gaming(command, state, context, request.actor_id)
    command_json = command_to_json(command)
    previous = _idempotent_repeat(request, command_json)
    if previous is not None:
        return Outcome(
            request.table_id, state, previous, repeated=True, name=loaded.name, hand_id=loaded.current_hand_id
        )
    new_events, new_state = decision.decide_command(
        command, state, context, gate=gate, first=first, actor_id=request.actor_id
    )
    if not new_events:
        return Outcome(
            request.table_id,
            state,
            name=loaded.name,
            hand_id=loaded.current_hand_id,
            wallets=wallets,
            actor_account=decision.actor_account(gate, request.actor_id, loaded.account),
        )
    chained = _chained(request, loaded, new_events, command_json, context)
    stored, hand_ids = _write(request.table_id, loaded, new_state, new_events, chained, gate)
    last_hash = stored[-1].hash
    transaction.on_commit(lambda: loader.remember(request.table_id, new_state, last_hash))
    transaction.on_commit(lambda: after_commit.table_changed(request.table_id, new_state))
    return _outcome(request, loaded, new_state, new_events, stored, hand_ids, wallets, gate)


def _load(request: _Request, *, retry: bool) -> LoadedTable:
    """The table, its row locked (a retry trusts nothing but the events); TableNotFound if there is none, and
    StaleVersion if the client expected another version."""
    wallets_of = (*request.extra_wallets, *([request.actor_id] if request.actor_id else []))
    try:
        loaded = loader.load_table(
            request.table_id, lock=True, use_cache=not retry, wallets_of=wallets_of, account_of=request.actor_id
        )
    except TableMissing:
        raise TableNotFound(f"there is no table {request.table_id}", {"table": request.table_id}) from None
    if request.expected_version is not None and request.expected_version != loaded.state.version:
        raise StaleVersion(request.expected_version, loaded.state.version)
    return loaded


def _idempotent_repeat(request: _Request, command_json: dict[str, Any]) -> list[StoredEvent] | None:
    """The events of the command this one repeats (``tables.command_record``), or None; none without a key."""
    if request.idempotency_key is None:
        return None
    return command_record.repeated_events(
        request.table_id, actor=request.actor, key=request.idempotency_key, command_json=command_json
    )


def _chained(
    request: _Request,
    loaded: LoadedTable,
    new_events: list[Event],
    command_json: dict[str, Any],
    context: Context,
) -> list[StoredEvent]:
    """The command's events as they will be stored, chained after the table's last one and recorded now, with
    what they record of the command (``tables.command_record``)."""
    common = command_record.event_metadata(
        actor=request.actor,
        actor_username=request.actor_username,
        command_version=loaded.state.version + 1,
        request_id=request.request_id,
        reason=request.reason,
        idempotency_key=request.idempotency_key,
    )
    first_metadata = command_record.first_event_metadata(common, command_json, context)
    encoded = [
        loader.encode(event, first_metadata if i == 0 else common, table_id=request.table_id)
        for i, event in enumerate(new_events)
    ]
    return chain(
        stream_id=request.table_id,
        expected_version=loaded.state.version,
        prev_hash=loaded.last_hash,
        events=encoded,
        recorded_at=timezone.now(),
    )


def _write(
    table_id: int,
    loaded: LoadedTable,
    new_state: TableState,
    new_events: list[Event],
    chained: list[StoredEvent],
    gate: Gate | None,
) -> tuple[list[StoredEvent], dict[int, int]]:
    """Write the command's effects, standing or falling together: the read models' and the snapshot's writes with
    the events, in one statement (a new hand's row before it: the others need its id), the checkpoint of a hand it
    ended scheduled, then the ledger's entries and responsible gaming's records. Returns the stored events and the
    ids of the hands the command touched, by number."""
    with transaction.atomic(savepoint=False):
        writes: list[Write] = []
        hand_ids = projections.apply(
            table_id=table_id,
            before=loaded.state,
            after=new_state,
            events=list(zip(chained, new_events, strict=True)),
            current_hand_id=loaded.current_hand_id,
            at=chained[0].recorded_at,
            writes=writes,
        )
        if any(isinstance(e, (HandOpened, HandSettled, HandAbandoned)) for e in new_events):
            writes.append(snapshots.snapshot_write(table_id, new_state, chained[-1].hash))
        _schedule_checkpoint(table_id, loaded.state, new_events, chained)
        stored = insert(chained, also=writes)
        post_ledger_entries(table_id=table_id, events=list(zip(stored, new_events, strict=True)), hand_ids=hand_ids)
        if gate is not None:
            gate.record(table_id=table_id, events=new_events)
    return stored, hand_ids


def _schedule_checkpoint(
    table_id: int, before: TableState, new_events: list[Event], chained: list[StoredEvent]
) -> None:
    """When the command ended a hand, have its end signed once the command commits: inline by this process (the
    signer's role writes it before the table's watchers are woken: they see the hand's chain hashes public), or by
    the signer, which replays the hand first (tables/signer.py)."""
    signed = _checkpoint_position(new_events)
    if signed is None:
        return
    if settings.CHECKPOINT_SIGNER == "inline":
        end, at = chained[signed], chained[signed].recorded_at
        state = before
        for event in new_events[: signed + 1]:  # the table at the checkpoint: its facts are signed (API.md v1.3)
            state = evolve(state, event)
        transaction.on_commit(lambda: signer.write_inline(table_id, end.version, end.hash, at, state))
    else:
        transaction.on_commit(lambda: after_commit.hand_ended(table_id))


def _outcome(
    request: _Request,
    loaded: LoadedTable,
    new_state: TableState,
    new_events: list[Event],
    stored: list[StoredEvent],
    hand_ids: dict[int, int],
    wallets: dict[str, int],
    gate: Gate | None,
) -> Outcome:
    """What the command did: its stored events, the state after them, the hand it ended and the one now current
    (their read model ids), the wallets after it and the actor's account."""
    state, current_hand_id = loaded.state, loaded.current_hand_id
    ended_hand_id = None
    if new_state.last_hand is not None and new_state.last_hand is not state.last_hand:
        ended = new_state.last_hand.hand.number
        ended_hand_id = hand_ids.get(ended, current_hand_id if state.hand and state.hand.number == ended else None)
    if new_state.hand is not None and new_state.hand.number in hand_ids:
        current_hand_id = hand_ids[new_state.hand.number]
    return Outcome(
        request.table_id,
        new_state,
        stored,
        new_events,
        name=loaded.name,
        hand_id=current_hand_id,
        ended_hand_id=ended_hand_id,
        wallets=wallets_after(wallets, new_events),
        actor_account=decision.actor_account(gate, request.actor_id, loaded.account),
    )


def _checkpoint_position(events: list[Any]) -> int | None:
    """Where a command's checkpoint goes: after the event that ended a hand and what the end itself brings (the
    players who leave with it, the bank passing on, the next hand's seed commitment), before anything of the next
    hand, whose hidden cards must not be exposed through the chain hashes published up to a checkpoint
    (``checkpoint_signing.END_OF_HAND``)."""
    ends = [i for i, e in enumerate(events) if isinstance(e, (HandSettled, HandAbandoned))]
    if not ends:
        return None
    position = ends[-1]
    while position + 1 < len(events) and type(events[position + 1]).__name__ in checkpoint_signing.END_OF_HAND:
        position += 1
    return position
