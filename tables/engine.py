"""The bridge between the pure rules core and the store: event/command encoding, loading a table's state.

Loading costs the events of the current hand, not the table's history: the state is folded from the latest
snapshot (taken at hand boundaries) plus the events after it. A snapshot is a disposable cache: one that is
missing, unreadable or written by another version of the rules core is ignored and rebuilt from events.
Snapshots (and the hands' cached starting states) are plain JSON (``rules.state_to_json``), decoded and
type-checked field by field: a row that does not decode is logged and ignored, and no stored row can run code.
Each process also keeps the latest committed state it has seen of each table, used when it is exactly the
stream's latest version (one statement, nothing to fold) or as a newer base than the snapshot.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.db import connection, transaction
from django.utils.crypto import salted_hmac

from ledger.selectors import wallet_balances_sql
from tables import rules
from tables.errors import TableMissing
from tables.rules import Event, TableState
from tables.store import GENESIS, NewEvent, StoredEvent, Write, fold_rows


def _schema_fingerprint() -> str:
    """Changes whenever any module of the rules core changes, so an old snapshot is never trusted."""
    digest = hashlib.sha256()
    for path in sorted(Path(rules.__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:32]


SNAPSHOT_SCHEMA = _schema_fingerprint()

log = logging.getLogger(__name__)


def snapshot_binding(table_id: int, version: int) -> str:
    """What a table's snapshot at ``version`` is sealed to (see :func:`state_to_db`)."""
    return f"snapshot:{table_id}:{version}:{SNAPSHOT_SCHEMA}"


def hand_start_binding(table_id: int, start_version: int) -> str:
    """What the cached starting state of a hand (of ``table_id``, from ``start_version``) is sealed to."""
    return f"hand-start:{table_id}:{start_version}:{SNAPSHOT_SCHEMA}"


def _seal(binding: str, data: Any) -> str:
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return salted_hmac("tables.engine.state", f"{binding}\n{canonical}", algorithm="sha256").hexdigest()


def state_to_db(state: TableState, *, binding: str) -> str:
    """The stored (JSON) form of a state (snapshots, cached starting states of hands): the rules codec's JSON and
    an HMAC (keyed by ``SECRET_KEY``, held outside the database) over it and ``binding`` (which row it is for).

    The application's role may write these caches, so without the seal its credentials could plant a state (a
    deck of its choosing) that the next load would trust. A row is believed only if sealed by this server for
    exactly this table, version and rules core.
    """
    data = rules.state_to_json(state)
    return json.dumps({"state": data, "seal": _seal(binding, data)}, separators=(",", ":"))


def state_from_db(stored: Any, *, binding: str, version: int | None, what: str) -> TableState | None:
    """The state a snapshot-like row holds, or None (logged) when it does not decode to a state at ``version``
    sealed for ``binding``.

    The row is data only: decoding checks every field's type and builds nothing but rules values.
    """
    try:
        row = json.loads(stored) if isinstance(stored, (str, bytes, bytearray)) else stored
        if not isinstance(row, dict) or set(row) != {"state", "seal"} or not isinstance(row["seal"], str):
            raise ValueError("not a sealed state")
        if not hmac.compare_digest(row["seal"], _seal(binding, row["state"])):
            log.warning("%s is not sealed by this server for %s: ignored, rebuilt from the events", what, binding)
            return None
        state = rules.state_from_json(row["state"])
    except (ValueError, TypeError, rules.InvalidRequest) as exc:
        log.warning("%s does not decode (%s): ignored, rebuilt from the events", what, exc)
        return None
    if version is not None and state.version != version:
        log.warning("%s holds version %s, not %s: ignored, rebuilt from the events", what, state.version, version)
        return None
    return state


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
    snapshot_version: int  # the version of the state folded from (0 when folded from the first event)
    events_folded: int
    current_hand_id: int | None = None  # the read model's id of the current (or last) hand
    name: str = ""
    source: str = "events"  # what the fold started from: "cache" (this process), "snapshot" or "events"
    # Wallet balances (user id -> chips) of the seated players and of the users asked for, read with the table
    # row; None when they may predate the latest command on the table (the load waited for its lock).
    wallets: dict[int, int] | None = None
    wallet_users: frozenset[int] = frozenset()  # whose balances ``wallets`` holds (0 for a user without any)
    row_version: int = 0  # the table row's version: when the state is at it, name and current hand id match it


# States this process has seen committed, by table: a cache like the snapshots, keyed by the stream version. It
# is used only when it is exactly the stream's latest version (or as the base to fold newer events onto), so it
# can never be wrong, only missing. Filled after commit, never with a state that might still roll back.
_CACHE: OrderedDict[int, tuple[TableState, str]] = OrderedDict()
_CACHE_LOCK = threading.Lock()
CACHE_SIZE = 2048


def remember(table_id: int, state: TableState, last_hash: str) -> None:
    """Keep ``state`` (committed, at its version) as this process's latest known state of the table."""
    with _CACHE_LOCK:
        known = _CACHE.get(table_id)
        if known is None or known[0].version <= state.version:
            _CACHE[table_id] = (state, last_hash)
            _CACHE.move_to_end(table_id)
            while len(_CACHE) > CACHE_SIZE:
                _CACHE.popitem(last=False)


def forget_all() -> None:
    """Empty this process's cache (tests)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def load_table(
    table_id: int, *, lock: bool = False, use_cache: bool = True, wallets_of: Iterable[int] = ()
) -> LoadedTable:
    """The table's current state: this process's cached state if it is the stream's latest, else folded from the
    cached state or the snapshot (whichever is newer and usable) and the events after it.

    One statement reads the table row (locking it when ``lock``) with the stream's latest version and the
    snapshot; a second, only when needed, the events after the base. Raises TableMissing if there is no table.

    The latest version is the table row's own ``version`` (the lobby column every append updates in its
    transaction): after waiting for the row lock, PostgreSQL re-reads the locked row, so it is current even
    when the statement's snapshot predates the commit it waited for. ``use_cache=False`` ignores this
    process's cache (a retry after a conflict must not trust anything but the events).

    The same statement reads the wallet balances of the seated players (the seats read model) and of
    ``wallets_of``. The rest of a statement reads the snapshot it started with, so when the load waited for
    the lock while another command committed (the row's version then differs from the one the statement's
    snapshot holds), those balances may be older than that command: ``wallets`` is then None.
    """
    seated = "SELECT user_id FROM tables_tableseat WHERE table_id = t.id"
    cached = None
    if use_cache:
        with _CACHE_LOCK:
            cached = _CACHE.get(table_id)
    # the snapshot's state travels (and is parsed) only when it may be needed: newer than the cached state, or
    # the cached state is newer than the database's (never used)
    cached_version = cached[0].version if cached is not None else -1
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.current_hand_id, t.name, t.version, "
            "s.version, s.schema, CASE WHEN s.version > %s OR %s > t.version THEN s.state END, s.last_hash, "
            "(SELECT v.version FROM tables_table v WHERE v.id = t.id), "
            f"ARRAY({seated})::bigint[], "
            + wallet_balances_sql(f"ARRAY({seated})::bigint[] || %s::bigint[]")
            + " FROM tables_table t LEFT JOIN tables_snapshot s ON s.table_id = t.id WHERE t.id = %s"
            + (" FOR NO KEY UPDATE OF t" if lock else ""),
            [cached_version, cached_version, list(wallets_of), table_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise TableMissing(table_id)
    current_hand_id, name, latest = row[0], row[1], row[2] or 0
    wallets: dict[int, int] | None = None
    wallet_users = frozenset(int(uid) for uid in row[8]) | frozenset(wallets_of)
    if row[7] == row[2]:  # the statement's snapshot holds the latest command: its balances are not older
        found = json.loads(row[9]) if isinstance(row[9], str) else row[9]
        wallets = dict.fromkeys(wallet_users, 0) | {int(uid): int(balance) for uid, balance in found}
    if cached is not None and cached[0].version == latest:
        return LoadedTable(
            table_id, cached[0], cached[1], latest, 0, current_hand_id, name, "cache", wallets, wallet_users, latest
        )

    state: TableState = rules.initial_state()
    last_hash = GENESIS
    base = 0
    # the snapshot is decoded (its seal checked) only when it is newer than this process's usable cached state
    cache_covers_snapshot = cached is not None and row[3] is not None and row[3] <= cached[0].version <= latest
    if row[3] is not None and row[4] == SNAPSHOT_SCHEMA and not cache_covers_snapshot:
        candidate = state_from_db(
            row[5],
            binding=snapshot_binding(table_id, row[3]),
            version=row[3],
            what=f"the snapshot of table {table_id}",
        )
        if candidate is not None:
            state, base, last_hash = candidate, row[3], row[6]
    source = "snapshot" if base else "events"
    if cached is not None and base < cached[0].version <= latest:  # never a state the database does not hold
        state, last_hash = cached
        base, source = state.version, "cache"
    rows = fold_rows(table_id, after_version=base)
    for _version, type_name, data, digest in rows:
        state = rules.evolve(state, rules.event_from_json({"type": type_name, **data}))
        last_hash = digest
    if rows or source != "cache":
        loaded_state, loaded_hash = state, last_hash
        transaction.on_commit(lambda: remember(table_id, loaded_state, loaded_hash))
    return LoadedTable(
        table_id, state, last_hash, base, len(rows), current_hand_id, name, source, wallets, wallet_users, latest
    )


def snapshot_write(table_id: int, state: TableState, last_hash: str) -> Write:
    """The statement storing ``state`` (at a hand boundary) as the table's snapshot (see :func:`save_snapshot`)."""
    return (
        "INSERT INTO tables_snapshot (table_id, version, schema, state, last_hash, updated_at) "
        "VALUES (%s, %s, %s, %s::jsonb, %s, now()) "
        "ON CONFLICT (table_id) DO UPDATE SET version = EXCLUDED.version, schema = EXCLUDED.schema, "
        "state = EXCLUDED.state, last_hash = EXCLUDED.last_hash, updated_at = now() "
        "WHERE tables_snapshot.version < EXCLUDED.version OR tables_snapshot.schema <> EXCLUDED.schema",
        [
            table_id,
            state.version,
            SNAPSHOT_SCHEMA,
            state_to_db(state, binding=snapshot_binding(table_id, state.version)),
            last_hash,
        ],
    )


def save_snapshot(table_id: int, state: TableState, last_hash: str) -> None:
    """Store ``state`` (at a hand boundary) as the table's snapshot, in the caller's transaction."""
    sql, params = snapshot_write(table_id, state, last_hash)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
