"""Reads of the event log for one purpose each: a stream with its latest signed checkpoint (the feeds), the
events of an idempotent command (the pipeline), the seed pledges of a hand and the signed checkpoints against the
chain (fairness and verification), timeout commands per hour (the dashboard).

Each is one statement. The event store's own reads and writes (append, load or fold a stream, the global log, the
chain check) and the stored event's form are ``tables.store``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Count, Q
from django.db.models.functions import TruncHour

from gamemath.chainhash import parse_forms
from tables.models import Event
from tables.store import EVENT_COLUMNS, StoredEvent, stored_events


def load_stream_and_checkpoint(
    stream_id: int, *, after_version: int, upto_version: int
) -> tuple[list[StoredEvent], int]:
    """``tables.store.load_stream`` of a table's stream, with the version of the table's latest signed checkpoint
    (0: none, or no events): one statement where the feed's read used to take two."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {EVENT_COLUMNS}, (SELECT max(c.version) FROM tables_checkpoint c WHERE c.table_id = %s) "
            "FROM tables_event WHERE stream_id = %s AND version > %s AND version <= %s ORDER BY version",
            [stream_id, stream_id, after_version, upto_version],
        )
        rows = cursor.fetchall()
    return stored_events(rows), (rows[0][9] or 0) if rows else 0


def events_of_idempotent_command(stream_id: int, *, actor: str | None, key: str) -> list[StoredEvent] | None:
    """The events a command of ``actor`` (None: the system) carrying idempotency ``key`` appended, if any."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {EVENT_COLUMNS} FROM tables_event WHERE stream_id = %s AND metadata ? 'idempotency_key' "
            "AND metadata->>'idempotency_key' = %s AND metadata->>'actor' IS NOT DISTINCT FROM %s ORDER BY version",
            [stream_id, key, actor],
        )
        return stored_events(cursor.fetchall()) or None


def seed_commitments(stream_id: int, *, number: int) -> list[tuple[int, str]]:
    """(version, commitment) of every ``SeedCommitted`` of hand ``number`` in the stream, in stream order (an
    index probe: ``event_seed_committed_idx``)."""
    return [(version, commitment) for version, commitment, _ in seed_pledges(stream_id, number=number)]


def seed_pledges(stream_id: int, *, number: int) -> list[tuple[int, str, str]]:
    """(version, commitment, sealed form) of every ``SeedCommitted`` of hand ``number``, in stream order."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version, data->>'seed_commitment', data->>'sealed_seed' FROM tables_event "
            "WHERE stream_id = %s AND type = 'SeedCommitted' AND (data->>'number')::int = %s ORDER BY version",
            [stream_id, number],
        )
        return [(int(v), str(c), str(sealed)) for v, c, sealed in cursor.fetchall()]


def checkpoints_against_chain(
    stream_id: int, *, after_version: int = 0
) -> list[tuple[int, str, str, str, Any, str | None, str | None, str | None, Any]]:
    """The stream's signed checkpoints after ``after_version``, each with the hash its event has now:
    (version, signed hash, key id, signature, signed at, stored hash or None if the event is gone, and since v1.3
    the hash forms, the facts' digest and the facts it signs, else None)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.version, c.hash, c.key_id, c.signature, c.at, e.hash, c.hash_forms, c.facts_sha256, "
            "c.signed_facts FROM tables_checkpoint c "
            "LEFT JOIN tables_event e ON e.stream_id = c.table_id AND e.version = c.version "
            "WHERE c.table_id = %s AND c.version > %s ORDER BY c.version",
            [stream_id, after_version],
        )
        return list(cursor.fetchall())


def signed_forms(stream_id: int, *, at_least: int) -> tuple[int, list[tuple[int, int]]] | None:
    """(version, form runs) of the stream's latest checkpoint that signs hash forms, if it covers ``at_least``
    (``gamemath.chainhash.parse_forms``); None when none does (checkpoints signed before v1.3)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT version, hash_forms FROM tables_checkpoint WHERE table_id = %s AND version >= %s "
            "AND hash_forms IS NOT NULL ORDER BY version DESC LIMIT 1",
            [stream_id, at_least],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    try:
        return int(row[0]), parse_forms(row[1])
    except ValueError:
        return int(row[0]), []


def timeout_commands_by_hour(*, since: datetime) -> dict[datetime, int]:
    """How many timeout commands were recorded in each hour (in the current time zone) since ``since``: the first
    event of each (the partial index ``event_timeout_command_idx``)."""
    return dict(
        Event.objects.filter(Q(metadata__reason="timeout") & Q(metadata__has_key="command"), recorded_at__gte=since)
        .annotate(hour=TruncHour("recorded_at"))
        .values_list("hour")
        .annotate(n=Count("*"))
    )
