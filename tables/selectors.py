"""Reads of the tables for the API: who is looking (the viewer), the lobby, a table now, its events feed.

Nothing here decides what a viewer may see: that is the rules core's viewer projection (``view``,
``view_event``, ``hand_history`` with a :class:`~rules.Viewer`). These functions only choose the viewer
and load what the projection needs:

- a user seated at the table, or holding cards in its current hand, is ``Viewer.player`` (sees his own
  face-down cards); any other staff user is ``Viewer.auditor`` (sees everything once a hand is settled, like
  everybody, plus the deck order); anyone else is ``Viewer.spectator``.

A hand's reads (its history, verification and export: for its participants and staff) are in ``tables.hand_reads``.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection
from django.db.models import QuerySet

from ledger.selectors import wallet_balances
from responsible.account import AccountState, state_from_json
from rules import Event, NotFound, TableState, Viewer, legal_actions, legal_hands
from tables import loader
from tables.errors import TableMissing
from tables.event_queries import load_stream_and_checkpoint
from tables.models import Hand, Table
from tables.pipeline import Outcome
from tables.store import StoredEvent

MAX_FEED_EVENTS = 500


def lobby() -> QuerySet[Table]:
    """Every table, oldest first, with its lobby columns (a read model of the events)."""
    return Table.objects.order_by("id").only(
        "id", "name", "preset", "min_bet", "max_bet", "bank", "seats_taken", "max_seats", "phase", "version"
    )


def _in_current_hand(state: TableState, player_id: str) -> bool:
    hand = state.hand
    if hand is None:
        return False
    return hand.banker.player_id == player_id or any(h.player_id == player_id for h in hand.punters)


def viewer_for(state: TableState, user: AbstractBaseUser) -> Viewer:
    """The viewer ``user`` is at this table (see the module docstring)."""
    player_id = str(user.pk)
    if state.seat_of(player_id) is not None or _in_current_hand(state, player_id):
        return Viewer.player(player_id)
    if getattr(user, "is_staff", False):
        return Viewer.auditor()
    return Viewer.spectator()


@dataclass(frozen=True, slots=True)
class TableRead:
    """A table's state with what its view needs: name, current hand id, the viewer and the wallets."""

    table_id: int
    name: str
    state: TableState
    hand_id: int | None
    viewer: Viewer
    user_id: int
    wallets: dict[str, int]
    events: list[tuple[StoredEvent, Event]] = field(default_factory=list)
    chain_hash: str = ""  # the hash of the state's last event, when known: names this state in any database
    # the user's responsible-gaming account, when read with the table (``you.limits``); None: to be read
    account: AccountState | None = None

    @property
    def balance(self) -> int:
        return self.wallets.get(str(self.user_id), 0)


# ``you.legal_actions`` and ``you.legal_hands`` worked out once per state, player and wallets (issue #15): the core
# probes ``decide`` with every action, so the answers are kept here, by the chain hash of the state's last event
# (which names one state of one table, whatever the database), the player and the wallets. Bounded; a miss only
# costs the probes.
Legal = tuple[list[str], dict[str, list[int]]]
_LEGAL: dict[tuple[str, str, tuple[tuple[str, int], ...]], Legal] = {}
_LEGAL_LOCK = threading.Lock()
_LEGAL_SIZE = 4096


def _work_out(read: TableRead, player_id: str) -> Legal:
    actions = legal_actions(read.state, player_id, read.wallets)
    return actions, legal_hands(read.state, player_id, read.wallets, legal=actions)


def legal_for(read: TableRead) -> Legal | None:
    """The read's player's legal actions and the hand indexes each accepts (None for a spectator or an
    auditor), worked out once per state."""
    player_id = read.viewer.player_id
    if read.viewer.kind != "player" or player_id is None:
        return None
    if not read.chain_hash:
        return _work_out(read, player_id)
    key = (read.chain_hash, player_id, tuple(sorted(read.wallets.items())))
    with _LEGAL_LOCK:
        known = _LEGAL.get(key)
    if known is not None:
        return list(known[0]), {k: list(v) for k, v in known[1].items()}
    answer = _work_out(read, player_id)
    with _LEGAL_LOCK:
        if len(_LEGAL) >= _LEGAL_SIZE:
            _LEGAL.clear()
        _LEGAL[key] = answer
    return list(answer[0]), {k: list(v) for k, v in answer[1].items()}


# The ids of ended hands by (table, number, seed commitment: names one hand whatever the database): they never
# change, so a process keeps them. Bounded.
_ENDED_IDS: dict[tuple[int, int, str], int] = {}
_ENDED_IDS_SIZE = 4096


def last_hand_id(read: TableRead) -> int | None:
    """The id of the read's table's last ended hand (``state.last_hand``), or None if none ended yet."""
    ended = read.state.last_hand
    if ended is None:
        return None
    number = ended.hand.number
    current = read.state.hand
    if current is not None and current.number == number and read.hand_id is not None:
        return read.hand_id
    known = _ENDED_IDS.get((read.table_id, number, ended.hand.seed_commitment))
    if known is None:
        found = Hand.objects.filter(table_id=read.table_id, number=number).values_list("pk", flat=True).first()
        if found is None:
            return None
        known = _remember_ended(read.table_id, number, ended.hand.seed_commitment, int(found))
    return known


def _remember_ended(table_id: int, number: int, commitment: str, hand_id: int) -> int:
    if len(_ENDED_IDS) >= _ENDED_IDS_SIZE:
        _ENDED_IDS.clear()
    _ENDED_IDS[(table_id, number, commitment)] = hand_id
    return hand_id


def _not_found(table_id: int) -> NotFound:
    return NotFound(f"there is no table {table_id}", {"table": table_id})


def _name_and_hand(table_id: int, state: TableState) -> tuple[str, int | None]:
    number = state.hand.number if state.hand is not None else None
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT t.name, h.id FROM tables_table t "
            "LEFT JOIN tables_hand h ON h.table_id = t.id AND h.number = %s WHERE t.id = %s",
            [number, table_id],
        )
        row = cursor.fetchone()
    if row is None:
        raise _not_found(table_id)
    return row[0], row[1]


def _wallets(state: TableState, user: AbstractBaseUser) -> dict[str, int]:
    # every seated player's wallet, as the next command's context would carry them (legal_actions checks funds)
    ids = {int(s.player_id) for s in state.seats} | {int(user.pk)}
    return {str(uid): amount for uid, amount in wallet_balances(ids).items()}


def table_read(*, table_id: int, user: AbstractBaseUser) -> TableRead:
    """The table now, for ``user`` (with his responsible-gaming account when the load read it). Raises
    ``not_found``."""
    try:
        loaded = loader.load_table(table_id, wallets_of=[int(user.pk)], account_of=int(user.pk))
    except TableMissing:
        raise _not_found(table_id) from None
    state = loaded.state
    ids = {int(s.player_id) for s in state.seats} | {int(user.pk)}
    if state.version != loaded.row_version or loaded.wallets is None or not ids <= loaded.wallet_users:
        return _read(table_id, state, user)
    # the load's one statement read the table row, the state at its version and the wallets
    hand_id = loaded.current_hand_id if state.hand is not None else None
    wallets = {str(uid): loaded.wallets[uid] for uid in ids}
    viewer = viewer_for(state, user)
    return TableRead(
        table_id,
        loaded.name,
        state,
        hand_id,
        viewer,
        int(user.pk),
        wallets,
        chain_hash=loaded.last_hash,
        account=loaded.account,
    )


def outcome_read(*, outcome: Outcome, user: AbstractBaseUser) -> TableRead:
    """The table after a command of ``user`` and the events the command appended (the pipeline already knows
    the table's name, its hand id and the wallets after the command: no query, unless it was a repeat)."""
    if len(outcome.decided) == len(outcome.events):  # the events as the command decided them
        decoded = list(zip(outcome.events, outcome.decided, strict=True))
    else:  # a repeat: the events read back
        decoded = [(stored, loader.decode(stored)) for stored in outcome.events]
    state = outcome.state
    if outcome.wallets is None or not outcome.name or str(user.pk) not in outcome.wallets:
        return dataclasses.replace(_read(outcome.table_id, state, user), events=decoded)
    hand_id = outcome.hand_id if state.hand is not None else None
    if outcome.ended_hand_id is not None and state.last_hand is not None:
        ended = state.last_hand.hand
        _remember_ended(outcome.table_id, ended.number, ended.seed_commitment, outcome.ended_hand_id)
    viewer = viewer_for(state, user)
    last = outcome.events[-1].hash if outcome.events and not outcome.repeated else ""
    return TableRead(
        outcome.table_id, outcome.name, state, hand_id, viewer, int(user.pk), outcome.wallets, decoded, last
    )


def _read(table_id: int, state: TableState, user: AbstractBaseUser) -> TableRead:
    name, hand_id = _name_and_hand(table_id, state)
    viewer = viewer_for(state, user)
    return TableRead(table_id, name, state, hand_id, viewer, int(user.pk), _wallets(state, user))


# --- the events feed ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EventsRead:
    """Events of a table after a position, the state they are seen against, and the viewer."""

    state: TableState
    viewer: Viewer
    events: list[tuple[StoredEvent, Event]]
    #: events up to this seq belong to ended hands (or none): their chain hashes are public (the latest checkpoint)
    chain_public_through: int = 0

    @property
    def last_seq(self) -> int:
        return self.events[-1][0].version if self.events else self.state.version


@dataclass(frozen=True, slots=True)
class LoadedEvents:
    """A table's events after a position and the state at the moment they were read (no viewer yet)."""

    table_id: int
    state: TableState
    events: list[tuple[StoredEvent, Event]]
    #: events up to this seq belong to ended hands (or none): their chain hashes are public (the latest checkpoint)
    chain_public_through: int = 0
    #: the load of the state: the table row's name and current hand id, the wallets read with it
    table: loader.LoadedTable | None = None


def load_events(table_id: int, after: int, limit: int = MAX_FEED_EVENTS, watchers: Iterable[int] = ()) -> LoadedEvents:
    """Events with ``seq > after`` (at most ``limit``) and the table's state now, with the wallets of its seated
    players and of ``watchers`` and the responsible-gaming accounts of ``watchers`` (user ids: the live server's
    table views), read in the same statement as the table row. Raises ``not_found``."""
    ids = list(watchers)
    # the events first, then the table: its state is at least as new as they are, and when this process's state
    # is the one before them (a live process that read the previous change) it is folded from them, not read again
    stored, public = load_stream_and_checkpoint(table_id, after_version=after, upto_version=after + limit)
    try:
        table = loader.load_table(table_id, wallets_of=ids, accounts_of=ids, known=stored)
    except TableMissing:
        raise _not_found(table_id) from None
    state = table.state
    stored = [s for s in stored if s.version <= state.version]
    reach, have = min(state.version, after + limit), stored[-1].version if stored else after
    if have < reach:  # committed between the two reads: the events up to the state too (never a gap)
        more, public = load_stream_and_checkpoint(table_id, after_version=have, upto_version=reach)
        stored += more
    return LoadedEvents(table_id, state, [(s, loader.decode(s)) for s in stored], public, table)


def viewer_reads(loaded: LoadedEvents, users: Sequence[AbstractBaseUser]) -> list[TableRead]:
    """The table view's read for each of ``users`` from one load (:func:`load_events`): what
    :func:`table_read` would read for each, with the wallets and accounts read with the table row (any missing,
    and the name and hand id when the state is newer than the row the load read, in one more statement each)."""
    table = loaded.table
    if table is None:
        raise ValueError("a load without the table's row (load_events reads it)")
    accounts = dict(table.accounts or {})
    unread = {int(user.pk) for user in users} - accounts.keys()
    if unread:
        accounts.update(accounts_of(unread))
    state = loaded.state
    if state.version == table.row_version:
        name, hand_id = table.name, table.current_hand_id
    else:
        name, hand_id = _name_and_hand(loaded.table_id, state)
    hand_id = hand_id if state.hand is not None else None
    seated = {int(s.player_id) for s in state.seats}
    wanted = seated | {int(user.pk) for user in users}
    known = dict(table.wallets) if table.wallets is not None else {}
    if not wanted <= known.keys():
        known.update(wallet_balances(wanted - known.keys()))
    return [
        TableRead(
            loaded.table_id,
            name,
            state,
            hand_id,
            viewer_for(state, user),
            int(user.pk),
            {str(uid): known.get(uid, 0) for uid in seated | {int(user.pk)}},
            chain_hash=table.last_hash,
            account=accounts.get(int(user.pk)),
        )
        for user in users
    ]


def accounts_of(user_ids: Iterable[int]) -> dict[int, AccountState]:
    """The responsible-gaming account state of each user, as the table view's ``you.limits`` reads it (the copy
    the loader reads with a table: ``tables.loader``), in one statement."""
    ids = sorted(set(user_ids))
    with connection.cursor() as cursor:
        cursor.execute("SELECT user_id, state FROM responsible_gamingaccount WHERE user_id = ANY(%s)", [ids])
        found = {int(uid): state for uid, state in cursor.fetchall()}
    return {uid: state_from_json(_json(found.get(uid)) or {}) for uid in ids}


def _json(value: object) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def events_read(loaded: LoadedEvents, user: AbstractBaseUser) -> EventsRead:
    """The loaded events as ``user`` is placed to see them now (the viewer of the state they were read with)."""
    return EventsRead(loaded.state, viewer_for(loaded.state, user), loaded.events, loaded.chain_public_through)


def release_connection() -> None:
    """Give this thread's database connection back (to the pool, or close it) before a wait.

    Inside an atomic block (a test's transaction) the connection is kept: closing it would break the block.
    """
    if not connection.in_atomic_block:
        connection.close()
