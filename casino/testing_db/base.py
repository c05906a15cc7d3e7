from typing import Any

from django.db.backends.postgresql import base, operations


class DatabaseOperations(operations.DatabaseOperations):
    def sql_flush(
        self, style: Any, tables: Any, *, reset_sequences: bool = False, allow_cascade: bool = False
    ) -> list[str]:
        statements = super().sql_flush(style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade)
        if not statements:
            return statements
        return [
            "SET LOCAL session_replication_role = replica",
            *statements,
            "SET LOCAL session_replication_role = origin",
        ]


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations
