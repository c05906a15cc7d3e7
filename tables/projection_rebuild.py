"""Rebuilding the read models from the events alone and comparing them with the live rows
(``manage.py rebuild_projections``).

The same projector as the live one (:func:`tables.projections.project`) folds every event of the tables into
memory (:class:`MemorySink`), one command's events at a time; the rebuilt models are then compared with the live
lobby rows, hand rows, participants and seats, one sentence per difference.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db import connection, transaction

from rules import Event, evolve, initial_state
from tables import loader
from tables.models import Hand, HandParticipant, Table, TableSeat
from tables.projections import project
from tables.store import StoredEvent, load_stream


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
    """Fold the tables (all of them when ``table_ids`` is None) into a fresh sink, then compare it with the live
    rows: :func:`rebuild` in the snapshot it chose."""
    sink = MemorySink()
    ids = list(table_ids) if table_ids is not None else list(Table.objects.order_by("id").values_list("id", flat=True))
    for table_id in ids:
        _fold_table(sink, table_id)
        if on_table is not None:
            on_table(table_id)
    differences = [
        *_lobby_differences(sink, ids),
        *_hand_differences(sink, ids),
        *_participant_differences(sink, ids),
        *_seat_differences(sink, ids),
    ]
    return sink, differences


def _fold_table(sink: MemorySink, table_id: int) -> None:
    """Project a table's stream into ``sink`` one command at a time, as the commands projected it live: the events
    a command appended (those sharing its ``command_version``) go to the projector together, with the state before
    and after them."""
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


def _lobby_differences(sink: MemorySink, ids: list[int]) -> list[str]:
    """How the live lobby rows of the tables differ from the rebuilt ones (a table without events is one)."""
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
    return differences


def _hand_differences(sink: MemorySink, ids: list[int]) -> list[str]:
    """How the live hand rows of the tables differ from the rebuilt ones: missing, unexplained or another value."""
    differences: list[str] = []
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
    return differences


def _participant_differences(sink: MemorySink, ids: list[int]) -> list[str]:
    """The hands of the tables whose live participants (seat, role, net) differ from the rebuilt ones."""
    live_people: dict[tuple[int, int], dict[int, dict[str, Any]]] = defaultdict(dict)
    for p in HandParticipant.objects.filter(hand__table_id__in=ids).select_related("hand"):
        live_people[(p.hand.table_id, p.hand.number)][p.user_id] = {"seat": p.seat, "role": p.role, "net": p.net}
    return [
        f"table {key[0]} hand #{key[1]}: participants are {live_people.get(key, {})}, "
        f"events say {sink.participants.get(key, {})}"
        for key in sorted(set(live_people) | set(sink.participants))
        if live_people.get(key, {}) != sink.participants.get(key, {})
    ]


def _seat_differences(sink: MemorySink, ids: list[int]) -> list[str]:
    """The live seats of the tables, if they differ from the rebuilt ones (one sentence for all)."""
    live_seats = {(s.table_id, s.user_id): s.seat for s in TableSeat.objects.filter(table_id__in=ids)}
    return [f"seats are {live_seats}, events say {sink.seats}"] if live_seats != sink.seats else []
