"""The settled hands of a period, read from the event store (``tables_event``) for the audit.

The read model ``tables_hand`` only locates each hand's slice of its stream (``opened_version`` to
``closed_version``, ``settled_at`` for the period); every fact comes from the events: the client seed fixed at the
deal (``ClientSeedFixed``), each ``CardDealt``'s place in the deck and receiver, and ``HandSettled``'s results and
revealed server seed. Per table, one index range scan of ``(stream_id, version)`` over the span of its hands in the
period, streamed from a server-side cursor and cut into hands by their version ranges (a join of the hands with
their ranges makes PostgreSQL filter every pair: minutes for a month; docs/performance.md, "Game-output audit").
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import datetime

from django.db import connection, transaction

from certify.records import Dealt, HandRecord, Result

_HANDS = """
SELECT table_id, number, opened_version, closed_version FROM tables_hand
 WHERE status = 'settled' AND settled_at >= %s AND settled_at < %s {tables}
 ORDER BY table_id, opened_version
"""
_EVENTS = """
SELECT version, type,
       CASE type WHEN 'CardDealt' THEN concat_ws(',', data->>'deck_index', data->>'banker',
                                                 coalesce(data->>'seat', ''), coalesce(data->>'hand', ''))
                 WHEN 'ClientSeedFixed' THEN data->>'client_seed'
                 ELSE concat(data->>'server_seed', ' ', data->'results') END
  FROM tables_event
 WHERE stream_id = %s AND version BETWEEN %s AND %s AND type IN ('ClientSeedFixed', 'CardDealt', 'HandSettled')
 ORDER BY version
"""
_HAND = tuple[int, int, int]  # number, opened_version, closed_version


def _int_or_none(text: str) -> int | None:
    return int(text) if text else None


def _dealt(text: str) -> Dealt:
    index, banker, seat, hand = text.split(",")
    return Dealt(deck_index=int(index), banker=banker == "true", seat=_int_or_none(seat), hand=_int_or_none(hand))


def _results(text: str) -> tuple[Result, ...]:
    return tuple(
        Result(
            seat=r["seat"],
            hand=r["hand"],
            bet=r["bet"],
            category=r["category"],
            total_hp=r["total_half_points"],
            net=r["net"],
            tie=r["tie"],
        )
        for r in json.loads(text)
    )


class _Builder:
    def __init__(self, table_id: int, number: int) -> None:
        self.table_id, self.number = table_id, number
        self.client_seed = self.server_seed = ""
        self.dealt: list[Dealt] = []
        self.results: tuple[Result, ...] = ()

    def add(self, kind: str, text: str) -> None:
        if kind == "CardDealt":
            self.dealt.append(_dealt(text))
        elif kind == "ClientSeedFixed":
            self.client_seed = text
        else:
            seed, _, rows = text.partition(" ")
            self.server_seed, self.results = seed, _results(rows)

    def record(self) -> HandRecord | None:
        if not self.server_seed:
            return None  # not revealed (cannot happen for a settled hand; left out rather than guessed)
        return HandRecord(
            table_id=self.table_id,
            number=self.number,
            server_seed=self.server_seed,
            client_seed=self.client_seed,
            dealt=tuple(self.dealt),
            results=self.results,
        )


def _table_hands(table_id: int, hands: list[_HAND]) -> Iterator[HandRecord]:
    """The records of one table's ``hands`` (ordered by version) from one range scan of its stream."""
    with connection.chunked_cursor() as cursor:
        cursor.execute(_EVENTS, [table_id, hands[0][1], hands[-1][2]])
        i, builder = 0, _Builder(table_id, hands[0][0])
        while rows := cursor.fetchmany(10_000):
            for version, kind, text in rows:
                while version > hands[i][2]:
                    found = builder.record()
                    if found is not None:
                        yield found
                    i += 1
                    builder = _Builder(table_id, hands[i][0])
                if version >= hands[i][1]:
                    builder.add(kind, text)
        found = builder.record()
        if found is not None:
            yield found


def settled_hands(start: datetime, end: datetime, table_ids: Sequence[int] | None = None) -> Iterator[HandRecord]:
    """The hands settled in ``[start, end)`` at ``table_ids`` (None: every table), by table and number."""
    params: list[object] = [start, end]
    tables = ""
    if table_ids is not None:
        tables = "AND table_id = ANY(%s)"
        params.append(list(table_ids))
    by_table: dict[int, list[_HAND]] = {}
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(_HANDS.format(tables=tables), params)
            for table_id, number, opened, closed in cursor.fetchall():
                by_table.setdefault(table_id, []).append((number, opened, closed))
        for table_id, hands in by_table.items():
            yield from _table_hands(table_id, hands)
