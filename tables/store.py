"""The event store: append with an expected version, load a stream, follow the global log, check the chain.

Every event's ``hash`` is ``sha256(prev_hash || canonical JSON of ...)``, the first event of a stream chaining
from ``GENESIS``. What the canonical JSON holds is ``gamemath.chainhash``: events written since API v1.2
(``metadata["hash_form"] == 2``) hash what they show and a digest of what they never show, so anyone can recompute
the hash from the event as served and no hash lets anyone test a guess about a hidden card; older events hash
the whole stored event. Canonical JSON is sorted keys, no spaces, UTF-8, so it survives PostgreSQL's jsonb
normalisation byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import IntegrityError, connection
from django.db.models import Count, Q
from django.db.models.functions import TruncHour

from gamemath.chainhash import (
    HASH_FORM,
    canonical_time,
    form1_hash,
    form2_hash,
    hash_form,
    private_sha256,
    stored_public_data,
)
from tables.errors import ConcurrencyConflict
from tables.models import Event

GENESIS = "0" * 64
_COLUMNS = "position, stream_id, version, type, data, metadata, recorded_at, prev_hash, hash"


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event to append: its stable type name, its JSON data and its metadata."""

    type: str
    data: dict[str, Any]
    metadata: dict[str, Any]


@dataclass(frozen=True, slots=True)
class StoredEvent:
    """An event as recorded."""

    position: int
    stream_id: int
    version: int
    type: str
    data: dict[str, Any]
    metadata: dict[str, Any]
    recorded_at: datetime
    prev_hash: str
    hash: str


def event_hash(
    *, prev_hash: str, stream_id: int, version: int, type: str, data: Any, metadata: Any, recorded_at: datetime
) -> str:
    """The chained hash of one stored event, in the form its metadata names (``gamemath.chainhash``)."""
    if hash_form(metadata) == HASH_FORM:
        return form2_hash(
            prev_hash=prev_hash,
            stream=stream_id,
            version=version,
            type_name=type,
            data=stored_public_data(data),
            private=private_sha256(data, metadata),
            at=canonical_time(recorded_at.astimezone(UTC).isoformat()),
        )
    return form1_hash(
        prev_hash=prev_hash,
        stream=stream_id,
        version=version,
        type_name=type,
        data=data,
        metadata=metadata,
        recorded_at=recorded_at.isoformat(),
    )


Write = tuple[str, Sequence[Any]]  # an INSERT, UPDATE or DELETE (no RETURNING) and its parameters


def chain(
    *, stream_id: int, expected_version: int, prev_hash: str, events: Sequence[NewEvent], recorded_at: datetime
) -> list[StoredEvent]:
    """The events as they will be stored: versions expected_version+1, ..., each hash chained to the one
    before (``position`` is 0 until :func:`insert` stores them)."""
    stored: list[StoredEvent] = []
    previous = prev_hash
    for offset, event in enumerate(events, start=1):
        version = expected_version + offset
        digest = event_hash(
            prev_hash=previous,
            stream_id=stream_id,
            version=version,
            type=event.type,
            data=event.data,
            metadata=event.metadata,
            recorded_at=recorded_at,
        )
        stored.append(
            StoredEvent(0, stream_id, version, event.type, event.data, event.metadata, recorded_at, previous, digest)
        )
        previous = digest
    return stored


def insert(events: Sequence[StoredEvent], *, also: Sequence[Write] = ()) -> list[StoredEvent]:
    """Store chained events (from :func:`chain`) in one statement; ConcurrencyConflict if a version is taken.

    ``also`` are other writes of the same command (read models, snapshot), sent in the same statement as
    data-modifying CTEs: one round trip for all of them. They run on the statement's one snapshot, so none may
    depend on another's effect (each touches its own rows), and they stand or fall with the events.
    Must run inside the caller's transaction: the events become visible when it commits.
    """
    if not events:
        return []
    rows = [
        (e.stream_id, e.version, e.type, json.dumps(e.data), json.dumps(e.metadata), e.recorded_at, e.prev_hash, e.hash)
        for e in events
    ]
    placeholders = ", ".join(["(%s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s)"] * len(rows))
    params: list[Any] = [value for write in also for value in write[1]]
    params += [value for row in rows for value in row]
    ctes = ", ".join(f"w{i} AS ({sql})" for i, (sql, _) in enumerate(also))
    sql = (
        (f"WITH {ctes} " if ctes else "")
        + "INSERT INTO tables_event (stream_id, version, type, data, metadata, recorded_at, prev_hash, hash) "
        f"VALUES {placeholders} RETURNING position"
    )
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            positions = [row[0] for row in cursor.fetchall()]
    except IntegrityError as exc:
        if "event_stream_version_unique" in str(exc):
            first = events[0]
            raise ConcurrencyConflict(f"stream {first.stream_id} moved past version {first.version - 1}") from exc
        raise
    return [
        StoredEvent(pos, e.stream_id, e.version, e.type, e.data, e.metadata, e.recorded_at, e.prev_hash, e.hash)
        for pos, e in zip(positions, events, strict=True)
    ]


def append(
    *,
    stream_id: int,
    expected_version: int,
    prev_hash: str,
    events: Sequence[NewEvent],
    recorded_at: datetime,
) -> list[StoredEvent]:
    """Append ``events`` as versions expected_version+1, ... in one statement; ConcurrencyConflict if taken.

    Must run inside the caller's transaction: the events become visible when it commits.
    """
    chained = chain(
        stream_id=stream_id, expected_version=expected_version, prev_hash=prev_hash, events=events,
        recorded_at=recorded_at,
    )  # fmt: skip
    return insert(chained)


def _rows(rows: Iterable[Sequence[Any]]) -> list[StoredEvent]:
    return [
        StoredEvent(
            position=row[0],
            stream_id=row[1],
            version=row[2],
            type=row[3],
            data=row[4] if not isinstance(row[4], str) else json.loads(row[4]),
            metadata=row[5] if not isinstance(row[5], str) else json.loads(row[5]),
            recorded_at=row[6],
            prev_hash=row[7],
            hash=row[8],
        )
        for row in rows
    ]


def load_stream(stream_id: int, *, after_version: int = 0, upto_version: int | None = None) -> list[StoredEvent]:
    """The events of a stream with after_version < version <= upto_version, in version order."""
    sql = f"SELECT {_COLUMNS} FROM tables_event WHERE stream_id = %s AND version > %s"
    params: list[Any] = [stream_id, after_version]
    if upto_version is not None:
        sql += " AND version <= %s"
        params.append(upto_version)
    with connection.cursor() as cursor:
        cursor.execute(sql + " ORDER BY version", params)
        return _rows(cursor.fetchall())


def load_stream_and_checkpoint(
    stream_id: int, *, after_version: int, upto_version: int
) -> tuple[list[StoredEvent], int]:
    """:func:`load_stream` of a table's stream, with the version of the table's latest signed checkpoint (0: none,
    or no events): one statement where the feed's read used to take two."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_COLUMNS}, (SELECT max(c.version) FROM tables_checkpoint c WHERE c.table_id = %s) "
            "FROM tables_event WHERE stream_id = %s AND version > %s AND version <= %s ORDER BY version",
            [stream_id, stream_id, after_version, upto_version],
        )
        rows = cursor.fetchall()
    return _rows(rows), (rows[0][9] or 0) if rows else 0


def events_of_idempotent_command(stream_id: int, *, actor: str | None, key: str) -> list[StoredEvent] | None:
    """The events a command of ``actor`` (None: the system) carrying idempotency ``key`` appended, if any."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {_COLUMNS} FROM tables_event WHERE stream_id = %s AND metadata ? 'idempotency_key' "
            "AND metadata->>'idempotency_key' = %s AND metadata->>'actor' IS NOT DISTINCT FROM %s ORDER BY version",
            [stream_id, key, actor],
        )
        return _rows(cursor.fetchall()) or None


def fold_rows(stream_id: int, *, after_version: int) -> list[tuple[int, str, Any, str]]:
    """(version, type, data, hash) of the stream's events after ``after_version``: what folding a state needs,
    without the metadata."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version, type, data, hash FROM tables_event WHERE stream_id = %s AND version > %s ORDER BY version",
            [stream_id, after_version],
        )
        return [
            (row[0], row[1], json.loads(row[2]) if isinstance(row[2], str) else row[2], row[3])
            for row in cursor.fetchall()
        ]


def seed_commitments(stream_id: int, *, number: int) -> list[tuple[int, str]]:
    """(version, commitment) of every ``SeedCommitted`` of hand ``number`` in the stream, in stream order (an
    index probe: ``event_seed_committed_idx``)."""
    return [(version, commitment) for version, commitment, _ in seed_pledges(stream_id, number=number)]


def seed_pledges(stream_id: int, *, number: int) -> list[tuple[int, str, str]]:
    """(version, commitment, sealed form) of every ``SeedCommitted`` of hand ``number``, in stream order."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version, data->>'seed_commitment', data->>'sealed_seed' FROM tables_event "
            "WHERE stream_id = %s AND type = 'SeedCommitted' AND (data->>'number')::int = %s ORDER BY version",
            [stream_id, number],
        )
        return [(int(v), str(c), str(sealed)) for v, c, sealed in cursor.fetchall()]


def checkpoints_against_chain(
    stream_id: int, *, after_version: int = 0
) -> list[tuple[int, str, str, str, Any, str | None]]:
    """The stream's signed checkpoints after ``after_version``, each with the hash its event has now:
    (version, signed hash, key id, signature, signed at, stored hash or None if the event is gone)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.version, c.hash, c.key_id, c.signature, c.at, e.hash FROM tables_checkpoint c "
            "LEFT JOIN tables_event e ON e.stream_id = c.table_id AND e.version = c.version "
            "WHERE c.table_id = %s AND c.version > %s ORDER BY c.version",
            [stream_id, after_version],
        )
        return list(cursor.fetchall())


def timeout_commands_by_hour(*, since: datetime) -> dict[datetime, int]:
    """How many timeout commands were recorded in each hour (in the current time zone) since ``since``: the first
    event of each (the partial index ``event_timeout_command_idx``)."""
    return dict(
        Event.objects.filter(Q(metadata__reason="timeout") & Q(metadata__has_key="command"), recorded_at__gte=since)
        .annotate(hour=TruncHour("recorded_at"))
        .values_list("hour")
        .annotate(n=Count("*"))
    )


@dataclass(frozen=True, slots=True)
class GlobalCheckpoint:
    """Where a global reader is in the log: the (tx_id, position) of the last event it processed."""

    tx_id: int = 0
    position: int = 0


def read_all(
    after: GlobalCheckpoint = GlobalCheckpoint(), *, limit: int = 1000
) -> list[tuple[GlobalCheckpoint, StoredEvent]]:
    """Events of every stream after ``after``, in an order that never skips a late-committing event.

    Positions come from a sequence at insert time, so a transaction may commit an event with a lower position
    after a reader has already seen higher ones. Reading in (tx_id, position) order and only events whose
    transaction is older than the oldest transaction still open (the xid8 horizon of the current snapshot)
    guarantees that no event can later appear before the checkpoint a reader has passed.
    """
    sql = (
        f"SELECT {_COLUMNS}, tx_id FROM tables_event "
        "WHERE (tx_id, position) > (%s, %s) "
        "AND tx_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint "
        "ORDER BY tx_id, position LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [after.tx_id, after.position, limit])
        rows = cursor.fetchall()
    events = _rows(row[:9] for row in rows)
    return [(GlobalCheckpoint(row[9], row[0]), event) for row, event in zip(rows, events, strict=True)]


def chain_problems(events: Sequence[StoredEvent], *, prev_hash: str = GENESIS) -> list[str]:
    """Check the hash chain of consecutive events of one stream; one sentence per broken link (empty: intact)."""
    problems: list[str] = []
    expected_version = events[0].version if events else 0
    previous = prev_hash
    for event in events:
        if event.version != expected_version:
            problems.append(f"version gap: expected {expected_version}, found {event.version}")
        if event.prev_hash != previous:
            problems.append(f"event {event.version}: prev_hash does not match the hash of event {event.version - 1}")
        recomputed = event_hash(
            prev_hash=event.prev_hash,
            stream_id=event.stream_id,
            version=event.version,
            type=event.type,
            data=event.data,
            metadata=event.metadata,
            recorded_at=event.recorded_at,
        )
        if recomputed != event.hash:
            problems.append(f"event {event.version} ({event.type}): content does not match its hash (altered)")
        previous = event.hash
        expected_version = event.version + 1
    return problems


# --- what a recorded command shows ---------------------------------------------------------------------------------
def public_command(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """The command recorded in an event's ``metadata`` as it may be shown anywhere (the API's hand history, the
    admin, feeds, exports): without its context (see :func:`public_metadata`). None if the event records no
    command."""
    command = public_metadata(metadata).get("command")
    return command if isinstance(command, dict) else None


def public_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """An event's metadata as it may be shown: without the recorded command's context, the one place it is
    left out. The context (recorded beside the command; inside it, as ``ctx``, in events recorded before) holds
    the command's entropy, the wallet balances of every seated player and the sealed seeds, so hiding it is a
    security rule (docs/security.md), not formatting; verification alone reads it (``tables.verify``)."""
    shown = {key: value for key, value in metadata.items() if key != "context"}
    command = shown.get("command")
    if isinstance(command, Mapping):
        shown["command"] = {key: value for key, value in command.items() if key != "ctx"}
    elif "command" in shown:
        shown["command"] = None
    return shown
