"""The event table is partitioned by stream (issue #34, docs/scale-out.md): every key holds the stream, every
partition keeps the guards, the application's role reaches the rows through the parent only, a table's reads
scan its own partition, and the migration moves existing rows unchanged both ways."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.db.utils import DatabaseError
from django.utils import timezone

from tables import event_queries, loader, store
from tables.models import Table
from tests.conftest import owner_cursor
from tests.support.play import make_players, make_table, play_hands

pytestmark = pytest.mark.django_db(transaction=True)

PARTITIONS = 8


def _one(sql: str, params: Any = ()) -> Any:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()[0]


def _partitions() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid "
            "WHERE i.inhparent = 'tables_event'::regclass ORDER BY c.relname"
        )
        return [row[0] for row in cursor.fetchall()]


def _events(table: Table, n: int) -> list[store.StoredEvent]:
    events = [store.NewEvent("Test", {"i": i}, {"actor": None}) for i in range(n)]
    return store.append(
        stream_id=table.pk, expected_version=0, prev_hash=store.GENESIS, events=events, recorded_at=timezone.now()
    )


def test_the_event_table_is_hash_partitioned_by_stream_and_every_key_holds_the_stream():
    assert _one("SELECT pg_get_partkeydef('tables_event'::regclass)") == "HASH (stream_id)"
    assert _partitions() == [f"tables_event_p{n}" for n in range(PARTITIONS)]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint "
            "WHERE conrelid = 'tables_event'::regclass AND contype IN ('p', 'u') ORDER BY conname"
        )
        keys = dict(cursor.fetchall())
    assert keys == {
        "event_stream_version_unique": "UNIQUE (stream_id, version)",
        "tables_event_pkey": 'PRIMARY KEY (stream_id, "position")',
    }


def _table_in(partition: int) -> Table:
    """A new table whose events land in ``partition``."""
    for _ in range(500):
        table = Table.objects.create(name="t", preset="classic")
        if _one("SELECT satisfies_hash_partition('tables_event'::regclass, %s, %s, %s::bigint)",
                [PARTITIONS, partition, table.pk]):  # fmt: skip
            return table
    raise AssertionError(f"no table hashed into partition {partition}")


@pytest.mark.parametrize("partition", range(PARTITIONS))
def test_every_partition_refuses_the_app_role_and_keeps_the_guards_for_the_owner(partition):
    """The application's role holds nothing on a partition (it goes through the parent); the owner, who holds
    every right, is refused UPDATE, DELETE and TRUNCATE on each partition by its own triggers."""
    name = f"tables_event_p{partition}"
    table = _table_in(partition)
    _events(table, 2)
    assert _one("SELECT tableoid::regclass::text FROM tables_event WHERE stream_id = %s LIMIT 1", [table.pk]) == name
    for statement in (
        f"SELECT * FROM {name}",
        f"INSERT INTO {name} SELECT * FROM {name} LIMIT 1",
        f"UPDATE {name} SET type = 'Forged'",
        f"DELETE FROM {name}",
        f"TRUNCATE {name}",
        f"ALTER TABLE {name} DISABLE TRIGGER USER",
    ):
        with (
            pytest.raises(DatabaseError, match=r"permission denied|must be owner"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(statement)
    privileges = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
    assert not [p for p in privileges if _one("SELECT has_table_privilege(%s, %s)", [name, p])]
    for statement in (f"UPDATE {name} SET type = 'Forged'", f"DELETE FROM {name}", f"TRUNCATE {name}"):
        with pytest.raises(psycopg.IntegrityError, match="append-only"), owner_cursor() as cursor:
            cursor.execute(statement)
    assert [e.version for e in store.load_stream(table.pk)] == [1, 2]


def test_a_taken_version_is_refused_in_every_partition_as_the_stream_version_key():
    """Each partition's part of UNIQUE (stream_id, version) carries the key's name, so the store still knows a
    concurrent append (ConcurrencyConflict) from any other error, whichever partition the table lands in."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT i.indexrelid::regclass::text FROM pg_index i JOIN pg_inherits h ON h.inhrelid = i.indexrelid "
            "WHERE h.inhparent = 'event_stream_version_unique'::regclass ORDER BY 1"
        )
        names = [row[0] for row in cursor.fetchall()]
    assert names == [f"event_stream_version_unique_p{n}" for n in range(PARTITIONS)]


@contextmanager
def _statements() -> Iterator[list[tuple[str, Any]]]:
    seen: list[tuple[str, Any]] = []

    def record(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
        seen.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(record):
        yield seen


def _partitions_scanned(sql: str, params: Any) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (FORMAT JSON) " + sql, params)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    found: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            relation = node.get("Relation Name", "")
            if relation.startswith("tables_event"):
                found.add(relation)
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(plan)
    return found


def test_a_tables_reads_scan_its_own_partition_only():
    """Every read of the event table that loading, folding, verifying and serving one table sends (captured as
    the application sends them) is planned on that table's partition alone."""
    players = make_players(2)
    table = make_table("classic")
    play_hands(table, players, 1, random.Random(7))
    with _statements() as seen:
        loader.load_table(table.pk, use_cache=False)
        store.load_stream(table.pk)
        event_queries.load_stream_and_checkpoint(table.pk, after_version=0, upto_version=10)
        store.fold_rows(table.pk, after_version=0)
        event_queries.seed_pledges(table.pk, number=1)
        event_queries.events_of_idempotent_command(table.pk, actor=None, key="k")
        event_queries.checkpoints_against_chain(table.pk)
    reads = [(sql, params) for sql, params in seen if "tables_event" in sql and sql.lstrip().startswith("SELECT")]
    assert len(reads) >= 6
    own = _one("SELECT tableoid::regclass::text FROM tables_event WHERE stream_id = %s LIMIT 1", [table.pk])
    for sql, params in reads:
        assert _partitions_scanned(sql, params) == {own}, sql


def test_the_migration_moves_every_row_unchanged_both_ways():
    """Back to the unpartitioned table and forward again (as the owner, as `migrate` runs): the same events with
    the same positions, transaction ids and hashes, the chain intact, and the next append numbered after them."""
    tables = [Table.objects.create(name=f"t{i}", preset="classic") for i in range(5)]
    for table in tables:
        _events(table, 3)
    columns = "position, stream_id, version, type, data, metadata, recorded_at, tx_id, prev_hash, hash"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM tables_event ORDER BY position")
        before = cursor.fetchall()
    try:
        call_command("migrate", "tables", "0012", verbosity=0)
        assert _one("SELECT relkind FROM pg_class WHERE relname = 'tables_event'") == "r"
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {columns} FROM tables_event ORDER BY position")
            assert cursor.fetchall() == before
    finally:
        call_command("migrate", "tables", verbosity=0)
    assert _one("SELECT relkind FROM pg_class WHERE relname = 'tables_event'") == "p"
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM tables_event ORDER BY position")
        assert cursor.fetchall() == before
    for table in tables:
        assert store.chain_problems(store.load_stream(table.pk)) == []
    last = store.load_stream(tables[0].pk)[-1]
    (added,) = store.append(
        stream_id=tables[0].pk, expected_version=3, prev_hash=last.hash,
        events=[store.NewEvent("Test", {"i": 9}, {"actor": None})], recorded_at=timezone.now(),
    )  # fmt: skip
    assert added.position > max(row[0] for row in before)
