"""The event store: append with an expected version, load a stream, follow the global log, check the chain.

Every event's ``hash`` is ``sha256(prev_hash || canonical JSON of ...)``, the first event of a stream chaining
from ``GENESIS``. What the canonical JSON holds is ``gamemath.chainhash``: events written since API v1.2
(``metadata["hash_form"]`` 2, or 3 since v1.3, which also hashes its form) hash what they show and a digest of
what they never show, so anyone can recompute the hash from the event as served and no hash lets anyone test a
guess about a hidden card; older events hash the whole stored event. Canonical JSON is sorted keys, no spaces,
UTF-8, so it survives PostgreSQL's jsonb normalisation byte for byte.

The reads of the log for one purpose each (seed pledges, checkpoints, idempotent repeats, ...) are
``tables.event_queries``; what of an event's metadata may be shown is ``tables.public_metadata``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import IntegrityError, connection

from gamemath.chainhash import (
    SERVED_FORMS,
    canonical_time,
    form1_hash,
    form2_hash,
    hash_form,
    private_sha256,
    stored_public_data,
)
from tables.errors import ConcurrencyConflict

GENESIS = "0" * 64
EVENT_COLUMNS = "position, stream_id, version, type, data, metadata, recorded_at, prev_hash, hash"


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
    form = hash_form(metadata)
    if form in SERVED_FORMS:
        return form2_hash(
            prev_hash=prev_hash,
            stream=stream_id,
            version=version,
            type_name=type,
            data=stored_public_data(data),
            private=private_sha256(data, metadata),
            at=canonical_time(recorded_at.astimezone(UTC).isoformat()),
            form=form,
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
    # The events travel as one JSON array of records (a fixed-shape statement: no parameter per value, nothing
    # for the driver to split and quote but one string; data and metadata nested, not encoded twice), which
    # PostgreSQL turns back into rows: the same jsonb values, the same timestamps to the microsecond; positions
    # are drawn in version order (the sort comes before the default).
    rows = json.dumps(
        [
            {
                "stream_id": e.stream_id,
                "version": e.version,
                "type": e.type,
                "data": e.data,
                "metadata": e.metadata,
                "recorded_at": e.recorded_at.isoformat(),
                "prev_hash": e.prev_hash,
                "hash": e.hash,
            }
            for e in events
        ]
    )
    params: list[Any] = [value for write in also for value in write[1]]
    params.append(rows)
    ctes = ", ".join(f"w{i} AS ({sql})" for i, (sql, _) in enumerate(also))
    sql = (
        (f"WITH {ctes} " if ctes else "")
        + "INSERT INTO tables_event (stream_id, version, type, data, metadata, recorded_at, prev_hash, hash) "
        "SELECT stream_id, version, type, data, metadata, recorded_at, prev_hash, hash FROM "
        "jsonb_to_recordset(%s::jsonb) AS e(stream_id bigint, version integer, type text, data jsonb, "
        "metadata jsonb, recorded_at timestamptz, prev_hash text, hash text) "
        "ORDER BY version RETURNING version, position"
    )
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            positions = dict(cursor.fetchall())  # version -> position
    except IntegrityError as exc:
        if "event_stream_version_unique" in str(exc):
            first = events[0]
            raise ConcurrencyConflict(f"stream {first.stream_id} moved past version {first.version - 1}") from exc
        raise
    return [
        StoredEvent(
            positions[e.version], e.stream_id, e.version, e.type, e.data, e.metadata, e.recorded_at, e.prev_hash, e.hash
        )
        for e in events
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


def stored_events(rows: Iterable[Sequence[Any]]) -> list[StoredEvent]:
    """The stored events of rows of :data:`EVENT_COLUMNS`."""
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
    sql = f"SELECT {EVENT_COLUMNS} FROM tables_event WHERE stream_id = %s AND version > %s"
    params: list[Any] = [stream_id, after_version]
    if upto_version is not None:
        sql += " AND version <= %s"
        params.append(upto_version)
    with connection.cursor() as cursor:
        cursor.execute(sql + " ORDER BY version", params)
        return stored_events(cursor.fetchall())


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
        f"SELECT {EVENT_COLUMNS}, tx_id FROM tables_event "
        "WHERE (tx_id, position) > (%s, %s) "
        "AND tx_id < pg_snapshot_xmin(pg_current_snapshot())::text::bigint "
        "ORDER BY tx_id, position LIMIT %s"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [after.tx_id, after.position, limit])
        rows = cursor.fetchall()
    events = stored_events(row[:9] for row in rows)
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
