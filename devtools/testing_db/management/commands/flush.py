"""Django's ``flush`` for the test backend (casino/testing_db): the same, but without post_migrate when the rows
it would write again are all still there (the backend's flush keeps the content types, the permissions and the
staff groups), and with post_migrate run as the owner role when it does run.

Django sends post_migrate after the flush that ends every transactional test; its receivers only write missing
content types and permissions, about 40 statements that find nothing to do, 0.25-0.4 s a test on the shared
machine. Whenever the kept rows differ from what post_migrate last left (the first flush of a process, a test
that removed some as the owner), it runs as usual, on the owner's credentials: the application role the tests
connect as may not write content types or permissions (issue #43).
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import flush
from django.db import connections

from backoffice.owner import as_owner


class Command(flush.Command):
    def handle(self, **options: Any) -> None:
        ops = connections[options["database"]].ops
        kept = hasattr(ops, "kept_rows_intact") and not options.get("reset_sequences", True)  # (the DELETE flush)
        if kept and not options.get("inhibit_post_migrate") and ops.kept_rows_intact():
            options["inhibit_post_migrate"] = True
            kept = False  # nothing written: nothing new to remember
        if options.get("inhibit_post_migrate") or connections[options["database"]].in_atomic_block:
            super().handle(**options)  # (inside a test's transaction: its connection cannot be swapped)
        else:
            with as_owner(options["database"]):
                super().handle(**options)
        if kept and not options.get("inhibit_post_migrate"):
            ops.remember_kept_rows()
