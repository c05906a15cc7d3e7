"""The bridge between the pure rules core and the store: event encoding, and loading a table's state.

Loading costs the events of the current hand, not the table's history: the state is folded from the latest
snapshot (taken at hand boundaries, ``tables.snapshots``) plus the events after it. Each process also keeps the
latest committed state it has seen of each table, used when it is exactly the stream's latest version (one
statement, nothing to fold) or as a newer base than the snapshot. A face-down card is stored sealed
(``tables.fairness``) and opened as events are decoded.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction

import rules
from ledger.selectors import wallet_balances_sql
from responsible.account import AccountState, state_from_json
from rules import Event, TableState
from tables import fairness
from tables.errors import TableMissing
from tables.snapshots import SNAPSHOT_SCHEMA, snapshot_binding, state_from_db
from tables.store import GENESIS, NewEvent, StoredEvent, fold_rows

#: What a face-down card whose sealed form cannot be opened (a lost key) decodes to; logged by ``tables.fairness``.
UNKNOWN_CARD = "?"


def event_from_stored(table_id: int, type_name: str, data: dict[str, Any]) -> Event:
    """The rules event of a stored event's type and data: a sealed face-down card opened (``tables.fairness``).

    A card written in clear beside the sealed one (only a rewrite of history does that) is the one decoded, so
    the shuffle check and the replay see it and fail, as the chain does (the hash covers ``card`` null)."""
    sealed = data.get("sealed_card")
    if type_name == "CardDealt" and isinstance(sealed, str) and data.get("card") is None:
        number, index = int(data["number"]), int(data["deck_index"])
        try:
            card = fairness.unseal_card(table_id, number, index, sealed)
        except fairness.CardUnavailable:
            # its key is gone: once the hand has ended its seed is public and the card is the deck's at its index;
            # before (a hand in play whose seed is sealed under the same key, so it is abandoned), unknown
            card = (
                _card_from_revealed_deck(table_id, number, index)
                or _card_turned_up_later(table_id, data)
                or UNKNOWN_CARD
            )
        data = data | {"card": card}
    if type_name == "CardDealt":
        data = {key: value for key, value in data.items() if key != "sealed_card"}
    return rules.event_from_json({"type": type_name, **data})


def _card_from_revealed_deck(table_id: int, number: int, deck_index: int) -> str | None:
    """The card at ``deck_index`` of hand ``number``'s deck, from the seed revealed at its end (None before)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT type, data->>'server_seed', data->>'client_seed' FROM tables_event WHERE stream_id = %s "
            "AND type IN ('ClientSeedFixed', 'HandOpened', 'HandSettled', 'HandAbandoned') "
            "AND (data->>'number')::int = %s ORDER BY version",
            [table_id, number],
        )
        rows = cursor.fetchall()
    client_seed = next((c for t, _, c in rows if t in ("ClientSeedFixed", "HandOpened") and c), None)
    server_seed = next((s for t, s, _ in rows if t in ("HandSettled", "HandAbandoned") and s), None)
    if client_seed is None or server_seed is None or not 0 <= deck_index < 40:
        return None
    return rules.shuffle_deck(bytes.fromhex(server_seed), client_seed, number)[deck_index]


def _card_turned_up_later(table_id: int, dealt: dict[str, Any]) -> str | None:
    """The card a later ``CardTurnedUp`` of the same hand showed for this face-down deal (the k-th face-down card
    of a seat's hand is the k-th one turned up), or None: a lost key's hand whose seed was never revealed."""
    number = int(dealt["number"])
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT type, data FROM tables_event WHERE stream_id = %s AND version >= (SELECT max(version) FROM "
            "tables_event WHERE stream_id = %s AND type = 'HandOpened' AND (data->>'number')::int = %s) "
            "AND type IN ('CardDealt', 'CardTurnedUp', 'HandSettled', 'HandAbandoned') ORDER BY version",
            [table_id, table_id, number],
        )
        rows = [(t, json.loads(d) if isinstance(d, str) else d) for t, d in cursor.fetchall()]
    owner = (dealt.get("seat"), dealt.get("hand"), bool(dealt.get("banker")))
    face_down: list[int] = []
    turned: list[str] = []
    for type_name, data in rows:
        if type_name in ("HandSettled", "HandAbandoned"):
            break
        if (data.get("seat"), data.get("hand"), bool(data.get("banker"))) != owner:
            continue
        if type_name == "CardDealt" and not data.get("face_up"):
            face_down.append(int(data["deck_index"]))
        elif type_name == "CardTurnedUp":
            turned.append(str(data["card"]))
    k = face_down.index(int(dealt["deck_index"])) if int(dealt["deck_index"]) in face_down else len(turned)
    return turned[k] if k < len(turned) else None


def decode(stored: StoredEvent) -> Event:
    """The rules event of a stored event."""
    return event_from_stored(stored.stream_id, stored.type, stored.data)


def encode(event: Event, metadata: dict[str, object], *, table_id: int) -> NewEvent:
    """The stored form of a rules event: type name, JSON data, metadata.

    A face-down card is stored sealed (``card`` null, ``sealed_card``): nobody reading the database, the admin
    or a chain hash can tell it; it follows from the deck index and the seed revealed when the hand ends."""
    data = rules.event_to_json(event)
    type_name = data.pop("type")
    if isinstance(event, rules.CardDealt) and not event.face_up:
        data["sealed_card"] = fairness.seal_card(table_id, event.number, event.deck_index, event.card)
        data["card"] = None
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
    # The responsible-gaming account of the user asked for (``account_of``), read with the table row, unlocked:
    # None when none was asked for or it may predate the latest command on the table (as ``wallets``).
    account: AccountState | None = None
    # The responsible-gaming accounts of ``accounts_of`` (the live server's watchers), read likewise; None as above
    accounts: dict[int, AccountState] | None = None


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
    table_id: int,
    *,
    lock: bool = False,
    use_cache: bool = True,
    wallets_of: Iterable[int] = (),
    account_of: int | None = None,
    accounts_of: Iterable[int] = (),
    known: Sequence[StoredEvent] = (),
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
    snapshot holds), those balances may be older than that command: ``wallets`` is then None. Likewise the
    responsible-gaming account of ``account_of`` (the answer's ``you.limits``), unlocked: ``account``, and those of
    ``accounts_of`` (the live server's table views): ``accounts``.

    ``known``: events of the table the caller read already (the feed reads the events after a position before the
    table): when they hold every event from the base state to the row's version, the state is folded from them and
    the second statement is not sent.
    """
    cached = None
    if use_cache:
        with _CACHE_LOCK:
            cached = _CACHE.get(table_id)
    row = _read_table_row(
        table_id,
        lock=lock,
        cached_version=cached[0].version if cached is not None else -1,
        wallets_of=wallets_of,
        account_of=account_of,
        accounts_of=accounts_of,
    )
    if cached is not None and cached[0].version == row.latest:
        state, last_hash, base, source, folded = cached[0], cached[1], row.latest, "cache", 0
    else:
        state, last_hash, base, source = _base_state(table_id, row, cached)
        rows = _known_rows(known, base, row.latest)
        if rows is None:
            rows = fold_rows(table_id, after_version=base)
        for _version, type_name, data, digest in rows:
            state = rules.evolve(state, event_from_stored(table_id, type_name, data))
            last_hash = digest
        if rows or source != "cache":
            loaded_state, loaded_hash = state, last_hash
            transaction.on_commit(lambda: remember(table_id, loaded_state, loaded_hash))
        folded = len(rows)
    return LoadedTable(
        table_id,
        state,
        last_hash,
        base,
        folded,
        row.current_hand_id,
        row.name,
        source,
        row.wallets,
        row.wallet_users,
        row.latest,
        row.account,
        row.accounts,
    )


def _known_rows(known: Sequence[StoredEvent], base: int, latest: int) -> list[tuple[int, str, Any, str]] | None:
    """What :func:`~tables.store.fold_rows` would answer from ``base`` to ``latest``, taken from ``known`` when it
    holds every one of those events (in version order), else None."""
    rows = [(e.version, e.type, e.data, e.hash) for e in known if base < e.version <= latest]
    if latest <= base or len(rows) != latest - base or rows[0][0] != base + 1 or rows[-1][0] != latest:
        return None
    return rows


@dataclass(frozen=True, slots=True)
class _TableRow:
    """What the load's one statement read: the table row, its snapshot (if any) and the wallet balances."""

    current_hand_id: int | None
    name: str
    latest: int  # the stream's latest version: the table row's own, re-read after waiting for its lock
    snapshot_version: int | None  # None: the table has no snapshot
    snapshot_schema: str
    snapshot_state: Any  # the sealed state, read only when it may be needed (else None)
    snapshot_hash: str
    wallets: dict[int, int] | None  # None when the balances may predate the latest command (see load_table)
    wallet_users: frozenset[int]
    account: AccountState | None  # the account asked for; None when not asked or as ``wallets``
    accounts: dict[int, AccountState] | None = None  # the accounts asked for (``accounts_of``); None as ``account``


def _read_table_row(
    table_id: int,
    *,
    lock: bool,
    cached_version: int,
    wallets_of: Iterable[int],
    account_of: int | None,
    accounts_of: Iterable[int] = (),
) -> _TableRow:
    """Read the table row (locked when ``lock``), its snapshot, the wallet balances of its seated players and of
    ``wallets_of`` and the responsible-gaming account of ``account_of``, in one statement; raises TableMissing if
    there is no table.

    The snapshot's state travels (and is parsed) only when it may be needed: newer than this process's cached
    state (at ``cached_version``; -1: none), or the cached state is newer than the database's (never used)."""
    asked = list(wallets_of)
    several = list(accounts_of)
    seated = "SELECT user_id FROM tables_tableseat WHERE table_id = t.id"
    # the accounts of several users, only when asked for (the commands' and the REST view's statement is unchanged)
    accounts_sql = (
        ", (SELECT coalesce(json_agg(json_build_array(g.user_id, g.state)), '[]') FROM responsible_gamingaccount g"
        " WHERE g.user_id = ANY(%s::bigint[]))"
        if several
        else ""
    )
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.current_hand_id, t.name, t.version, "
            "s.version, s.schema, CASE WHEN s.version > %s OR %s > t.version THEN s.state END, s.last_hash, "
            "(SELECT v.version FROM tables_table v WHERE v.id = t.id), "
            f"ARRAY({seated})::bigint[], "
            + wallet_balances_sql(f"ARRAY({seated})::bigint[] || %s::bigint[]")
            + ", (SELECT g.state FROM responsible_gamingaccount g WHERE g.user_id = %s)"
            + accounts_sql
            + " FROM tables_table t LEFT JOIN tables_snapshot s ON s.table_id = t.id WHERE t.id = %s"
            + (" FOR NO KEY UPDATE OF t" if lock else ""),
            [cached_version, cached_version, asked, account_of, *([several] if several else []), table_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise TableMissing(table_id)
    wallets: dict[int, int] | None = None
    account: AccountState | None = None
    accounts: dict[int, AccountState] | None = None
    wallet_users = frozenset(int(uid) for uid in row[8]) | frozenset(asked)
    if row[7] == row[2]:  # the statement's snapshot holds the latest command: what it read is not older
        found = json.loads(row[9]) if isinstance(row[9], str) else row[9]
        wallets = dict.fromkeys(wallet_users, 0) | {int(uid): int(balance) for uid, balance in found}
        if account_of is not None:  # no row: the account of a player who never set anything (as read_account)
            account = state_from_json((json.loads(row[10]) if isinstance(row[10], str) else row[10]) or {})
        if several:
            listed = json.loads(row[11]) if isinstance(row[11], str) else row[11]
            states = {int(uid): state for uid, state in listed}
            accounts = {uid: state_from_json(states.get(uid) or {}) for uid in several}
    return _TableRow(
        row[0], row[1], row[2] or 0, row[3], row[4] or "", row[5], row[6] or "", wallets, wallet_users, account,
        accounts,
    )  # fmt: skip


def _base_state(
    table_id: int, row: _TableRow, cached: tuple[TableState, str] | None
) -> tuple[TableState, str, int, str]:
    """The newest usable state to fold the later events onto: this process's cached state, the snapshot or the
    table before its first event; with the hash its next event chains from, its version and its source
    (``LoadedTable.source``). Never a cached state the database does not hold."""
    state: TableState = rules.initial_state()
    last_hash = GENESIS
    base = 0
    # the snapshot is decoded (its seal checked) only when it is newer than this process's usable cached state
    snapshot_version = row.snapshot_version
    cache_covers_snapshot = (
        cached is not None and snapshot_version is not None and snapshot_version <= cached[0].version <= row.latest
    )
    if snapshot_version is not None and row.snapshot_schema == SNAPSHOT_SCHEMA and not cache_covers_snapshot:
        candidate = state_from_db(
            row.snapshot_state,
            binding=snapshot_binding(table_id, snapshot_version),
            version=snapshot_version,
            what=f"the snapshot of table {table_id}",
        )
        if candidate is not None:
            state, base, last_hash = candidate, snapshot_version, row.snapshot_hash
    source = "snapshot" if base else "events"
    if cached is not None and base < cached[0].version <= row.latest:  # never a state the database does not hold
        state, last_hash = cached
        base, source = state.version, "cache"
    return state, last_hash, base, source
