"""Read models (lobby row, hand rows, each player's hand index, seats), derived from events only.

The same projector (:func:`project`, writing through a :class:`Sink`) runs live, in the command's transaction
(:func:`apply`, writing to the database through :class:`DatabaseSink`), and in ``manage.py rebuild_projections``
(``tables.projection_rebuild``: every event folded into memory, then compared with the live rows).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from django.db import connection

from rules import (
    Event,
    HandAbandoned,
    HandOpened,
    HandSettled,
    SeatLeft,
    SeatTaken,
    TableState,
)
from tables import fairness, snapshots
from tables.store import StoredEvent, Write


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
    for stored, event in events:
        if isinstance(event, SeatTaken):
            sink.seat(table_id, int(event.player_id), event.seat)
        elif isinstance(event, SeatLeft):
            sink.seat(table_id, int(event.player_id), None)
        elif isinstance(event, HandOpened):
            row = _opened_hand_row(stored, event, before, after)
            hand_ids[event.number] = current_hand_id = sink.open_hand(table_id, event.number, row)
        elif isinstance(event, HandSettled):
            _settle_hand(sink, hand_ids[event.number], stored, event)
        elif isinstance(event, HandAbandoned):
            sink.close_hand(hand_ids[event.number], _closed_hand_row(stored, "abandoned", banker_net=0), {})
    _add_new_participants(sink, before, after, hand_ids)
    sink.update_lobby(table_id, lobby_row(after, current_hand_id))
    return hand_ids


def _opened_hand_row(stored: StoredEvent, event: HandOpened, before: TableState, after: TableState) -> dict[str, Any]:
    """The new hand row of a ``HandOpened`` (with the state before the command, the hand's cached start)."""
    banker = (
        before.seat_at(event.banker_seat) or after.seat_at(event.banker_seat) if event.banker_seat is not None else None
    )
    return {
        "preset": (after.config.preset if after.config else "") or "",
        "opened_version": stored.version,
        "opened_at": stored.recorded_at,
        "seed_commitment": event.seed_commitment,
        "banker_username": banker.username if banker else "",
        "house_banked": event.banker_id is None,
        "start_version": before.version,
        "start_state": before,
    }


def _closed_hand_row(stored: StoredEvent, status: str, *, banker_net: int) -> dict[str, Any]:
    """What closing a hand (``settled`` or ``abandoned`` by ``stored``) writes on its row."""
    return {
        "closed_version": stored.version,
        "settled_at": stored.recorded_at,
        "status": status,
        "banker_net": banker_net,
    }


def _settle_hand(sink: Sink, hand_id: int, stored: StoredEvent, event: HandSettled) -> None:
    """Record a settlement: everyone it names (the punters of its results, a player banker) as a participant, each
    one's net (summed over his hands) and the closed hand row."""
    people: dict[int, tuple[int | None, str]] = {int(r.player_id): (r.seat, "punter") for r in event.results}
    nets: dict[int, int] = {}
    for result in event.results:
        nets[int(result.player_id)] = nets.get(int(result.player_id), 0) + result.net
    if event.banker_id is not None:
        people[int(event.banker_id)] = (event.banker_seat, "banker")
        nets[int(event.banker_id)] = nets.get(int(event.banker_id), 0) + event.banker_net
    sink.add_participants(hand_id, [(uid, seat, role) for uid, (seat, role) in people.items()])
    sink.close_hand(hand_id, _closed_hand_row(stored, "settled", banker_net=event.banker_net), nets)


def _add_new_participants(sink: Sink, before: TableState, after: TableState, hand_ids: dict[int, int]) -> None:
    """Add the players who joined the hand in play during the command (staked or dealt in) as its participants."""
    if after.hand is None or after.hand.number not in hand_ids:
        return
    now = participants(after)
    earlier = participants(before) if before.hand is not None and before.hand.number == after.hand.number else {}
    new = [(int(pid), seat, role) for pid, (seat, role) in now.items() if pid not in earlier]
    if new:
        sink.add_participants(hand_ids[after.hand.number], new)


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
                    snapshots.SNAPSHOT_SCHEMA,
                    snapshots.state_to_db(
                        row["start_state"], binding=snapshots.hand_start_binding(table_id, row["start_version"])
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
