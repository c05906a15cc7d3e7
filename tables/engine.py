"""The bridge between the pure rules core and the store: event/command encoding, loading a table's state.

Loading costs the events of the current hand, not the table's history: the state is folded from the latest
snapshot (taken at hand boundaries) plus the events after it. A snapshot is a disposable cache: one that is
missing, unreadable or written by another version of the rules core is ignored and rebuilt from events.
"""

from __future__ import annotations

import hashlib
import pickle
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

from tables import rules
from tables.rules import Event, TableState
from tables.store import GENESIS, NewEvent, StoredEvent, load_stream


def _schema_fingerprint() -> str:
    """Changes whenever any module of the rules core changes, so an old snapshot is never trusted."""
    digest = hashlib.sha256()
    for path in sorted(Path(rules.__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


SNAPSHOT_SCHEMA = _schema_fingerprint()


def decode(stored: StoredEvent) -> Event:
    """The rules event of a stored event."""
    return rules.event_from_json({"type": stored.type, **stored.data})


def encode(event: Event, metadata: dict[str, object]) -> NewEvent:
    """The stored form of a rules event: type name, JSON data, metadata."""
    data = rules.event_to_json(event)
    type_name = data.pop("type")
    return NewEvent(type=type_name, data=data, metadata=metadata)


@dataclass(frozen=True, slots=True)
class LoadedTable:
    """A table's current state, the hash its next event chains from, and how it was loaded."""

    table_id: int
    state: TableState
    last_hash: str
    snapshot_version: int  # 0 when folded from the start
    events_folded: int
    current_hand_id: int | None = None  # the read model's id of the current (or last) hand
    name: str = ""


class TableMissing(LookupError):
    """There is no such table."""


def load_table(table_id: int, *, lock: bool = False) -> LoadedTable:
    """Fold the table's state from its snapshot (if usable) and the events after it.

    One statement reads the table row (locking it when ``lock``) with its snapshot, a second the events after
    the snapshot. Raises TableMissing if there is no table ``table_id``.
    """
    state: TableState | None = None
    last_hash = GENESIS
    snapshot_version = 0
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.current_hand_id, s.version, s.schema, s.state, s.last_hash, t.name FROM tables_table t "
            "LEFT JOIN tables_snapshot s ON s.table_id = t.id WHERE t.id = %s"
            + (" FOR NO KEY UPDATE OF t" if lock else ""),
            [table_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise TableMissing(table_id)
    current_hand_id = row[0]
    if row[1] is not None and row[2] == SNAPSHOT_SCHEMA:
        try:
            candidate = pickle.loads(bytes(row[3]))
        except Exception:
            candidate = None
        if isinstance(candidate, TableState) and candidate.version == row[1]:
            state, snapshot_version, last_hash = candidate, row[1], row[4]
    events = load_stream(table_id, after_version=snapshot_version)
    if state is None:
        state = rules.initial_state()
    for stored in events:
        state = rules.evolve(state, decode(stored))
    if events:
        last_hash = events[-1].hash
    return LoadedTable(table_id, state, last_hash, snapshot_version, len(events), current_hand_id, row[5])


def save_snapshot(table_id: int, state: TableState, last_hash: str) -> None:
    """Store ``state`` (at a hand boundary) as the table's snapshot, in the caller's transaction."""
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO tables_snapshot (table_id, version, schema, state, last_hash, updated_at) "
            "VALUES (%s, %s, %s, %s, %s, now()) "
            "ON CONFLICT (table_id) DO UPDATE SET version = EXCLUDED.version, schema = EXCLUDED.schema, "
            "state = EXCLUDED.state, last_hash = EXCLUDED.last_hash, updated_at = now() "
            "WHERE tables_snapshot.version < EXCLUDED.version OR tables_snapshot.schema <> EXCLUDED.schema",
            [table_id, state.version, SNAPSHOT_SCHEMA, pickle.dumps(state, protocol=5), last_hash],
        )
