"""A test-only PostgreSQL backend: Django's test flush empties the append-only tables as their owner.

The tests connect as the application role, which may not TRUNCATE anything, and the event and ledger tables
refuse TRUNCATE through triggers anyway. Between transactional tests Django empties every table; this backend
runs that flush on a connection of its own as the owner role (``MIGRATE_DATABASE_URL``), which disables the
TRUNCATE-refusing triggers inside the flush's transaction (only an owner can), so no other session ever sees
them off and the application role needs no extra right. Production never uses this backend.
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.conf import settings
from django.db.backends.postgresql import base, operations
from psycopg import sql

_TRUNCATE_GUARDS = """
SELECT c.relname, t.tgname FROM pg_trigger t
JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = current_schema() AND NOT t.tgisinternal AND (t.tgtype & 32) <> 0
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


def _toggle(action: str, table: str, trigger: str) -> sql.Composed:
    return sql.SQL("ALTER TABLE {} {} TRIGGER {}").format(
        sql.Identifier(table), sql.SQL(action), sql.Identifier(trigger)
    )


class DatabaseOperations(operations.DatabaseOperations):
    def execute_sql_flush(self, sql_list: list[str]) -> None:
        if not sql_list:
            return
        with psycopg.connect(**owner_connection_params(self.connection.settings_dict)) as owner:
            guards = owner.execute(_TRUNCATE_GUARDS).fetchall()
            for table, trigger in guards:
                owner.execute(_toggle("DISABLE", table, trigger))
            for statement in sql_list:
                owner.execute(statement)  # type: ignore[call-overload]
            for table, trigger in guards:
                owner.execute(_toggle("ENABLE", table, trigger))


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
