"""The settled hands of a period, read from the event store (``tables_event``) for the audit.

The read model ``tables_hand`` only locates each hand's slice of its stream (``opened_version`` to
``closed_version``, ``settled_at`` for the period); every fact comes from the events: the client seed fixed at the
deal (``ClientSeedFixed``), each ``CardDealt``'s place in the deck and receiver, and ``HandSettled``'s results and
revealed server seed. One statement, streamed from a server-side cursor; the per-hand slice is one index range
scan of ``(stream_id, version)``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import datetime

from django.db import connection, transaction

from certify.records import Dealt, HandRecord, Result

_SQL = """
SELECT h.table_id, h.number,
       (SELECT jsonb_agg(jsonb_build_array(e.type, CASE e.type
                   WHEN 'CardDealt' THEN jsonb_build_array(e.data->'deck_index', e.data->'banker', e.data->'seat',
                                                          e.data->'hand')
                   WHEN 'ClientSeedFixed' THEN e.data->'client_seed'
                   ELSE jsonb_build_array(e.data->'server_seed', e.data->'results') END) ORDER BY e.version)
          FROM tables_event e
         WHERE e.stream_id = h.table_id AND e.version BETWEEN h.opened_version AND h.closed_version
           AND e.type IN ('ClientSeedFixed', 'CardDealt', 'HandSettled'))
  FROM tables_hand h
 WHERE h.status = 'settled' AND h.settled_at >= %s AND h.settled_at < %s {tables}
 ORDER BY h.table_id, h.number
"""


def _record(table_id: int, number: int, events: list[list[object]]) -> HandRecord | None:
    client_seed = server_seed = ""
    dealt: list[Dealt] = []
    results: tuple[Result, ...] = ()
    for kind, data in events:
        if kind == "CardDealt":
            index, banker, seat, hand = data  # type: ignore[misc]
            dealt.append(Dealt(deck_index=index, banker=banker, seat=seat, hand=hand))
        elif kind == "ClientSeedFixed":
            client_seed = str(data)
        else:
            seed, rows = data  # type: ignore[misc]
            server_seed = seed or ""
            results = tuple(
                Result(
                    seat=r["seat"],
                    hand=r["hand"],
                    bet=r["bet"],
                    category=r["category"],
                    total_hp=r["total_half_points"],
                    net=r["net"],
                    tie=r["tie"],
                )
                for r in rows
            )
    if not server_seed:
        return None  # not revealed (cannot happen for a settled hand; left out rather than guessed)
    return HandRecord(
        table_id=table_id,
        number=number,
        server_seed=server_seed,
        client_seed=client_seed,
        dealt=tuple(dealt),
        results=results,
    )


def settled_hands(start: datetime, end: datetime, table_ids: Sequence[int] | None = None) -> Iterator[HandRecord]:
    """The hands settled in ``[start, end)`` at ``table_ids`` (None: every table), by table and number."""
    params: list[object] = [start, end]
    tables = ""
    if table_ids is not None:
        tables = "AND h.table_id = ANY(%s)"
        params.append(list(table_ids))
    with transaction.atomic(), connection.chunked_cursor() as cursor:
        cursor.execute(_SQL.format(tables=tables), params)
        while rows := cursor.fetchmany(5000):
            for table_id, number, events in rows:
                found = _record(table_id, number, json.loads(events) if isinstance(events, str) else events or [])
                if found is not None:
                    yield found
