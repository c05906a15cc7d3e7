"""Read models (lobby row, hand rows, each player's hand index), derived from events only.

The same projector runs live (in the command's transaction, writing to the database) and during
``manage.py rebuild_projections`` (folding every event into memory, then comparing with the live rows).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from django.db import connection, transaction

from rules import (
    Event,
    HandAbandoned,
    HandOpened,
    HandSettled,
    SeatLeft,
    SeatTaken,
    TableState,
    evolve,
    initial_state,
)
from tables import fairness, loader
from tables.models import Hand, HandParticipant, Table, TableSeat
from tables.store import StoredEvent, Write, load_stream


class Sink(Protocol):
    def open_hand(self, table_id: int, number: int, row: dict[str, Any]) -> int: ...
    def add_participants(self, hand_id: int, rows: Sequence[tuple[int, int | None, str]]) -> None: ...
    def close_hand(self, hand_id: int, row: dict[str, Any], nets: dict[int, int]) -> None: ...
    def update_lobby(self, table_id: int, row: dict[str, Any]) -> None: ...
    def seat(self, table_id: int, user_id: int, seat: int | None) -> None: ...


def lobby_row(state: TableState, current_hand_id: int | None) -> dict[str, Any]:
    """The lobby columns of a table in ``state``."""
    config = state.config
    banker = state.seat_at(state.banker_seat) if state.banker_seat is not None else None
    awaiting = state.awaiting
    return {
        "version": state.version,
        "phase": state.phase,
        "bank": config.bank if config else "player",
        "min_bet": config.min_bet if config else 0,
        "max_bet": config.max_bet if config else 0,
        "max_seats": config.max_seats if config else 0,
        "seats_taken": len(state.seats),
        "banker_username": banker.username if banker else ("house" if config and config.house_bank else ""),
        "hands_played": state.settled_through,
        "waiting_version": state.version if awaiting is not None else None,
        "deadline": (datetime.fromtimestamp(awaiting.deadline_ms / 1000, tz=UTC) if awaiting is not None else None),
        "current_hand_id": current_hand_id,
    }


def participants(state: TableState) -> dict[str, tuple[int | None, str]]:
    """The players taking part in the state's hand: its player banker and every punter staked or dealt in."""
    hand = state.hand
    if hand is None:
        return {}
    people: dict[str, tuple[int | None, str]] = {}
    if hand.banker.player_id is not None:
        people[hand.banker.player_id] = (hand.banker.seat, "banker")
    for h in hand.punters:
        if h.stake > 0 or h.cards:
            people.setdefault(h.player_id, (h.seat, "punter"))
    return people


def project(
    sink: Sink,
    *,
    table_id: int,
    before: TableState,
    after: TableState,
    events: Sequence[tuple[StoredEvent, Event]],
    current_hand_id: int | None,
) -> dict[int, int]:
    """Apply one command's events to the read models; return {hand number: hand id} for the hands touched."""
    hand_ids: dict[int, int] = {}
    if current_hand_id is not None and before.hand is not None:
        hand_ids[before.hand.number] = current_hand_id
    preset = (after.config.preset if after.config else "") or ""
    for stored, event in events:
        if isinstance(event, SeatTaken):
            sink.seat(table_id, int(event.player_id), event.seat)
        elif isinstance(event, SeatLeft):
            sink.seat(table_id, int(event.player_id), None)
        elif isinstance(event, HandOpened):
            banker = (
                before.seat_at(event.banker_seat) or after.seat_at(event.banker_seat)
                if event.banker_seat is not None
                else None
            )
            hand_ids[event.number] = current_hand_id = sink.open_hand(
                table_id,
                event.number,
                {
                    "preset": preset,
                    "opened_version": stored.version,
                    "opened_at": stored.recorded_at,
                    "seed_commitment": event.seed_commitment,
                    "banker_username": banker.username if banker else "",
                    "house_banked": event.banker_id is None,
                    "start_version": before.version,
                    "start_state": before,
                },
            )
        elif isinstance(event, HandSettled):
            people: dict[int, tuple[int | None, str]] = {int(r.player_id): (r.seat, "punter") for r in event.results}
            nets: dict[int, int] = {}
            for result in event.results:
                nets[int(result.player_id)] = nets.get(int(result.player_id), 0) + result.net
            if event.banker_id is not None:
                people[int(event.banker_id)] = (event.banker_seat, "banker")
                nets[int(event.banker_id)] = nets.get(int(event.banker_id), 0) + event.banker_net
            sink.add_participants(hand_ids[event.number], [(uid, seat, role) for uid, (seat, role) in people.items()])
            row = {
                "closed_version": stored.version,
                "settled_at": stored.recorded_at,
                "status": "settled",
                "banker_net": event.banker_net,
            }
            sink.close_hand(hand_ids[event.number], row, nets)
        elif isinstance(event, HandAbandoned):
            row = {
                "closed_version": stored.version,
                "settled_at": stored.recorded_at,
                "status": "abandoned",
                "banker_net": 0,
            }
            sink.close_hand(hand_ids[event.number], row, {})
    if after.hand is not None and after.hand.number in hand_ids:
        now = participants(after)
        earlier = participants(before) if before.hand is not None and before.hand.number == after.hand.number else {}
        new = [(int(pid), seat, role) for pid, (seat, role) in now.items() if pid not in earlier]
        if new:
            sink.add_participants(hand_ids[after.hand.number], new)
    sink.update_lobby(table_id, lobby_row(after, current_hand_id))
    return hand_ids


class DatabaseSink:
    """Writes the read models in the current transaction.

    With ``writes`` (a list), everything but a new hand's row (whose id the other rows need) is collected there
    instead of executed, for the caller to send with the command's events in one statement
    (:func:`tables.store.insert`); :meth:`collected` adds the participants, merged into one upsert per command.
    Without, each write is executed at once.
    """

    def __init__(self, writes: list[Write] | None = None) -> None:
        self.writes = writes
        self._people: dict[tuple[int, int], list[Any]] = {}  # (hand id, user id) -> [seat, role, net]

    def _write(self, sql: str, params: Sequence[Any]) -> None:
        if self.writes is not None:
            self.writes.append((sql, params))
            return
        with connection.cursor() as cursor:
            cursor.execute(sql, params)

    def open_hand(self, table_id: int, number: int, row: dict[str, Any]) -> int:
        # the rules this process deals under (not from the events: a rebuild must not re-date old hands)
        rules_version, rules_sha256 = fairness.rules_release()
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO tables_hand (table_id, number, preset, status, opened_version, opened_at, "
                "seed_commitment, banker_username, house_banked, disputed, start_version, start_schema, start_state, "
                "rules_version, rules_sha256) "
                "VALUES (%s, %s, %s, 'in_play', %s, %s, %s, %s, %s, false, %s, %s, %s::jsonb, %s, %s) RETURNING id",
                [
                    table_id,
                    number,
                    row["preset"],
                    row["opened_version"],
                    row["opened_at"],
                    row["seed_commitment"],
                    row["banker_username"],
                    row["house_banked"],
                    row["start_version"],
                    loader.SNAPSHOT_SCHEMA,
                    loader.state_to_db(
                        row["start_state"], binding=loader.hand_start_binding(table_id, row["start_version"])
                    ),
                    rules_version,
                    rules_sha256,
                ],
            )
            return int(cursor.fetchone()[0])

    def add_participants(self, hand_id: int, rows: Sequence[tuple[int, int | None, str]]) -> None:
        for user_id, seat, role in rows:
            self._people.setdefault((hand_id, user_id), [seat, role, None])
        if self.writes is None:
            self._flush_people()

    def close_hand(self, hand_id: int, row: dict[str, Any], nets: dict[int, int]) -> None:
        self._write(
            "UPDATE tables_hand SET status = %s, closed_version = %s, settled_at = %s, banker_net = %s WHERE id = %s",
            [row["status"], row["closed_version"], row["settled_at"], row["banker_net"], hand_id],
        )
        if not nets:
            return
        if self.writes is not None:  # the participants were just added: their nets go into the same upsert
            for user_id, net in nets.items():
                if (hand_id, user_id) in self._people:
                    self._people[(hand_id, user_id)][2] = net
            return
        values = ", ".join(["(%s::bigint, %s::bigint)"] * len(nets))
        self._write(
            f"UPDATE tables_handparticipant p SET net = v.net FROM (VALUES {values}) AS v(user_id, net) "
            "WHERE p.hand_id = %s AND p.user_id = v.user_id",
            [x for pair in nets.items() for x in pair] + [hand_id],
        )

    def _flush_people(self) -> None:
        if not self._people:
            return
        values = ", ".join(["(%s::bigint, %s::bigint, %s::integer, %s::text, %s::bigint)"] * len(self._people))
        params = [
            v
            for (hand_id, user_id), (seat, role, net) in self._people.items()
            for v in (hand_id, user_id, seat, role, net)
        ]
        self._people = {}
        # a participant already recorded keeps his row; only a settlement's net is written over it
        self._write(
            f"INSERT INTO tables_handparticipant AS p (hand_id, user_id, seat, role, net) VALUES {values} "
            "ON CONFLICT (hand_id, user_id) DO UPDATE SET net = EXCLUDED.net WHERE EXCLUDED.net IS NOT NULL",
            params,
        )

    def collected(self) -> list[Write]:
        """The collected writes, the participants' upsert included (with ``writes`` only)."""
        assert self.writes is not None
        self._flush_people()
        return self.writes

    def seat(self, table_id: int, user_id: int, seat: int | None) -> None:
        if seat is None:
            self._write("DELETE FROM tables_tableseat WHERE table_id = %s AND user_id = %s", [table_id, user_id])
        else:
            self._write(
                "INSERT INTO tables_tableseat (table_id, user_id, seat) VALUES (%s, %s, %s)", [table_id, user_id, seat]
            )

    def update_lobby(self, table_id: int, row: dict[str, Any]) -> None:
        columns = ", ".join(f"{name} = %s" for name in row)
        self._write(f"UPDATE tables_table SET {columns} WHERE id = %s", [*row.values(), table_id])


@dataclass
class MemorySink:
    """Collects the read models in memory (for rebuild_projections), keyed by (table id, hand number)."""

    hands: dict[tuple[int, int], dict[str, Any]] = field(default_factory=dict)
    participants: dict[tuple[int, int], dict[int, dict[str, Any]]] = field(default_factory=dict)
    lobby: dict[int, dict[str, Any]] = field(default_factory=dict)
    seats: dict[tuple[int, int], int] = field(default_factory=dict)
    _keys: dict[int, tuple[int, int]] = field(default_factory=dict)

    def open_hand(self, table_id: int, number: int, row: dict[str, Any]) -> int:
        fake_id = len(self._keys) + 1
        self._keys[fake_id] = (table_id, number)
        row = {k: v for k, v in row.items() if not k.startswith("start_")}  # a cache, not a read model
        self.hands[(table_id, number)] = {
            **row,
            "status": "in_play",
            "closed_version": None,
            "settled_at": None,
            "banker_net": None,
        }
        self.participants[(table_id, number)] = {}
        return fake_id

    def add_participants(self, hand_id: int, rows: Sequence[tuple[int, int | None, str]]) -> None:
        people = self.participants[self._keys[hand_id]]
        for user_id, seat, role in rows:
            people.setdefault(user_id, {"seat": seat, "role": role, "net": None})

    def close_hand(self, hand_id: int, row: dict[str, Any], nets: dict[int, int]) -> None:
        key = self._keys[hand_id]
        self.hands[key].update(row)
        for user_id, net in nets.items():
            if user_id in self.participants[key]:
                self.participants[key][user_id]["net"] = net

    def seat(self, table_id: int, user_id: int, seat: int | None) -> None:
        if seat is None:
            self.seats.pop((table_id, user_id), None)
        else:
            self.seats[(table_id, user_id)] = seat

    def update_lobby(self, table_id: int, row: dict[str, Any]) -> None:
        self.lobby[table_id] = {k: v for k, v in row.items() if k != "current_hand_id"}


def apply(
    *,
    table_id: int,
    before: TableState,
    after: TableState,
    events: Sequence[tuple[StoredEvent, Event]],
    current_hand_id: int | None,
    at: datetime,
    writes: list[Write] | None = None,
) -> dict[int, int]:
    """Live projection of one command's events (see :func:`project`). With ``writes``, the writes are collected
    there (all but a new hand's row) to be sent with the events in one statement."""
    sink = DatabaseSink(writes)
    hand_ids = project(
        sink, table_id=table_id, before=before, after=after, events=events, current_hand_id=current_hand_id
    )
    if writes is not None:
        sink.collected()
    return hand_ids


def rebuild(
    table_ids: Sequence[int] | None = None, on_table: Callable[[int], None] | None = None
) -> tuple[MemorySink, list[str]]:
    """Fold every event of the tables into fresh read models and compare them with the live rows.

    Returns the rebuilt models and one sentence per difference (an empty list: the live models are exact).
    Events and live rows are read in one REPEATABLE READ snapshot, so tables in play while it runs compare
    consistently (unless the caller already holds a transaction, whose snapshot is then used). ``on_table`` is
    called with each table's id once its events are folded (progress).
    """
    if connection.in_atomic_block:
        return _rebuild(table_ids, on_table)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _rebuild(table_ids, on_table)


def _rebuild(table_ids: Sequence[int] | None, on_table: Callable[[int], None] | None) -> tuple[MemorySink, list[str]]:

    sink = MemorySink()
    ids = list(table_ids) if table_ids is not None else list(Table.objects.order_by("id").values_list("id", flat=True))
    for table_id in ids:
        state = initial_state()
        hand_id: int | None = None
        batch: list[tuple[StoredEvent, Event]] = []
        stream = load_stream(table_id)
        for index, stored in enumerate(stream):
            batch.append((stored, loader.decode(stored)))
            batch_start = stored.metadata.get("command_version", stored.version)
            is_last = (
                index + 1 == len(stream)
                or stream[index + 1].metadata.get("command_version", stream[index + 1].version) != batch_start
            )
            if not is_last:
                continue
            after = state
            for _, event in batch:
                after = evolve(after, event)
            touched = project(sink, table_id=table_id, before=state, after=after, events=batch, current_hand_id=hand_id)
            if after.hand is not None and after.hand.number in touched:
                hand_id = touched[after.hand.number]
            state, batch = after, []
        if on_table is not None:
            on_table(table_id)

    differences: list[str] = []
    lobby_fields = [f for f in next(iter(sink.lobby.values()), {}) if f != "current_hand_id"]
    for table in Table.objects.filter(id__in=ids):
        expected = sink.lobby.get(table.pk)
        if expected is None:
            differences.append(f"table {table.pk}: has no events")
            continue
        for name in lobby_fields:
            if getattr(table, name) != expected[name]:
                differences.append(
                    f"table {table.pk}: {name} is {getattr(table, name)!r}, events say {expected[name]!r}"
                )
    live_hands = {(h.table_id, h.number): h for h in Hand.objects.filter(table_id__in=ids)}
    for key in sorted(set(live_hands) | set(sink.hands)):
        if key not in live_hands:
            differences.append(f"table {key[0]} hand #{key[1]}: missing from the hand rows")
            continue
        if key not in sink.hands:
            differences.append(f"table {key[0]} hand #{key[1]}: a hand row no event explains")
            continue
        live, expected = live_hands[key], sink.hands[key]
        for name, value in expected.items():
            if getattr(live, name) != value:
                differences.append(
                    f"table {key[0]} hand #{key[1]}: {name} is {getattr(live, name)!r}, events say {value!r}"
                )
    live_people: dict[tuple[int, int], dict[int, dict[str, Any]]] = defaultdict(dict)
    for p in HandParticipant.objects.filter(hand__table_id__in=ids).select_related("hand"):
        live_people[(p.hand.table_id, p.hand.number)][p.user_id] = {"seat": p.seat, "role": p.role, "net": p.net}
    for key in sorted(set(live_people) | set(sink.participants)):
        if live_people.get(key, {}) != sink.participants.get(key, {}):
            differences.append(
                f"table {key[0]} hand #{key[1]}: participants are {live_people.get(key, {})}, "
                f"events say {sink.participants.get(key, {})}"
            )
    live_seats = {(s.table_id, s.user_id): s.seat for s in TableSeat.objects.filter(table_id__in=ids)}
    if live_seats != sink.seats:
        differences.append(f"seats are {live_seats}, events say {sink.seats}")
    return sink, differences
