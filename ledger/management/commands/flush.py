"""``manage.py flush`` that may also empty the ledger.

The ledger's tables refuse TRUNCATE (migration 0002) unless the session sets ``ledger.allow_truncate``.
Flushing the whole database is the one deliberate exception: the operator asked for it (and confirmed), and
Django's test runner flushes between transactional tests. This command is Django's own flush with that
setting turned on for its duration.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands.flush import Command as FlushCommand
from django.db import connections


class Command(FlushCommand):
    help = FlushCommand.help + " The ledger's append-only tables are emptied too."

    def handle(self, **options: Any) -> None:
        connection = connections[options["database"]]
        with connection.cursor() as cursor:
            cursor.execute("SET ledger.allow_truncate = 'on'")
        try:
            super().handle(**options)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("RESET ledger.allow_truncate")
