"""A test-only PostgreSQL backend: Django's test flush empties the append-only tables as their owner.

The tests connect as the application role, which may not delete anything from them, and the event and ledger
tables refuse DELETE and TRUNCATE through triggers anyway. Between transactional tests Django empties every
table; this backend runs that flush on a connection of its own as the owner role (``MIGRATE_DATABASE_URL``),
which disables the tables' own triggers inside the flush's transaction (only an owner can), so no other session
ever sees them off and the application role needs no extra right. Production never uses this backend.
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.conf import settings
from django.db.backends.postgresql import base, operations
from psycopg import sql

# Tables with triggers of their own (append-only guards refusing UPDATE, DELETE and TRUNCATE, projections): the
# flush turns them off for its own transaction.
_TRIGGERED_TABLES = """
SELECT DISTINCT c.relname FROM pg_trigger t
JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND NOT t.tgisinternal
"""
# Foreign keys between the tables (referencing, referenced): a non-deferrable one needs its referencing rows
# deleted first (Django's own are deferred to the commit).
_FOREIGN_KEYS = """
SELECT c.conrelid::regclass::text, c.confrelid::regclass::text FROM pg_constraint c
JOIN pg_namespace n ON n.oid = c.connamespace
WHERE c.contype = 'f' AND n.nspname = current_schema() AND c.conrelid <> c.confrelid
"""


def owner_connection_params(settings_dict: dict[str, Any]) -> dict[str, Any]:
    """psycopg connection keywords for the owner role on the database of ``settings_dict``."""
    owner = getattr(settings, "MIGRATE_DATABASE", None) or {}
    merged = {**settings_dict, **owner}
    params = {
        "dbname": merged["NAME"],
        "user": merged.get("USER"),
        "password": merged.get("PASSWORD"),
        "host": merged.get("HOST"),
        "port": merged.get("PORT"),
    }
    return {key: value for key, value in params.items() if value not in (None, "")}


def _toggle(action: str, table: str) -> sql.Composed:
    return sql.SQL("ALTER TABLE {} {} TRIGGER USER").format(sql.Identifier(table), sql.SQL(action))


def _referencing_first(tables: list[str], foreign_keys: list[tuple[str, str]]) -> list[str]:
    """``tables`` ordered so that a table comes before every table it references."""
    references: dict[str, set[str]] = {table: set() for table in tables}
    for referencing, referenced in foreign_keys:
        name, target = referencing.strip('"'), referenced.strip('"')
        if name in references and target in references:
            references[target].add(name)  # ``target`` waits for ``name``
    ordered: list[str] = []
    placed: set[str] = set()

    def place(table: str, path: frozenset[str]) -> None:
        if table in placed or table in path:
            return
        for referencing in sorted(references[table]):
            place(referencing, path | {table})
        placed.add(table)
        ordered.append(table)

    for table in tables:
        place(table, frozenset())
    return ordered


# What Django's post_migrate writes and no test changes: the content types and the permissions, and the staff
# groups with their permissions (the migration's; the application role the tests connect as may not write any of
# them, issue #43). The flush between transactional tests keeps them, so post_migrate, which Django sends after
# every such flush to write them again (about 40 statements finding nothing to do), is skipped while they are all
# there (management/commands/flush.py).
KEPT_TABLES = ("django_content_type", "auth_permission", "auth_group", "auth_group_permissions")
_KEPT_ROWS = "SELECT (SELECT count(*) FROM django_content_type), (SELECT count(*) FROM auth_permission)"


class DatabaseOperations(operations.DatabaseOperations):
    """The flush between transactional tests DELETEs every row instead of TRUNCATE: the tables of a test hold a
    handful of rows, and TRUNCATE costs a new file per table and a slow commit (0.5-2 s on the shared machine
    against 0.1 s), after each of several hundred transactional tests. Sequences are never reset, not even by
    ``manage.py flush`` (whose default asks for it): an id is never used twice in a database, in production or in
    a test's, and the process's caches keyed by table id rely on it (a table 5 made after a reset read the cached
    state of the flushed table 5). The rows of ``KEPT_TABLES`` stay (the groups are the migration's, and nothing
    the tests connect as may write them again); the whole flush is one round trip to the server after two catalog
    reads."""

    kept_rows: tuple[int, int] | None = None  # the counts post_migrate left in KEPT_TABLES (this process)

    def sql_flush(
        self, style: Any, tables: Any, *, reset_sequences: bool = False, allow_cascade: bool = False
    ) -> list[str]:
        return [f"DELETE FROM {self.quote_name(table)}" for table in tables if table not in KEPT_TABLES]

    def execute_sql_flush(self, sql_list: list[str]) -> None:
        if not sql_list:
            return
        with psycopg.connect(**owner_connection_params(self.connection.settings_dict)) as owner:
            triggered = [row[0] for row in owner.execute(_TRIGGERED_TABLES)]
            deletes = {statement.split('"')[1]: statement for statement in sql_list if statement.startswith("DELETE")}
            order = _referencing_first(list(deletes), owner.execute(_FOREIGN_KEYS).fetchall())
            batch = [
                *(_toggle("DISABLE", table).as_string(owner) for table in triggered),
                *(deletes[table] for table in order),
                *(statement for statement in sql_list if not statement.startswith("DELETE")),
                "SET CONSTRAINTS ALL IMMEDIATE",  # the deferred checks, before the triggers come back
                *(_toggle("ENABLE", table).as_string(owner) for table in triggered),
            ]
            owner.execute(";\n".join(batch).encode())  # no parameters: one simple query, one round trip

    def kept_rows_intact(self) -> bool:
        """True when ``KEPT_TABLES`` hold what post_migrate left there the last time it ran in this process."""
        if self.kept_rows is None:
            return False
        with self.connection.cursor() as cursor:
            cursor.execute(_KEPT_ROWS)
            return tuple(cursor.fetchone()) == self.kept_rows

    def remember_kept_rows(self) -> None:
        with self.connection.cursor() as cursor:
            cursor.execute(_KEPT_ROWS)
            counts = cursor.fetchone()
        DatabaseOperations.kept_rows = (int(counts[0]), int(counts[1]))


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def init_connection_state(self) -> None:
        """A connection as the test suite's login role (``TESTS_DATABASE_URL``, a member of the application's and
        the cashier's roles) becomes the application's role at once: every test runs as the application role,
        and a cashier entry switches to the cashier's for its savepoint (ledger/cashier_role.py)."""
        super().init_connection_state()
        switch = getattr(settings, "DATABASE_CASHIER_SET_ROLE", None)
        if switch and self.settings_dict.get("USER") == getattr(settings, "DATABASE_TESTS_ROLE", ""):
            with self.connection.cursor() as cursor:
                cursor.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(switch[1])))
