"""``manage.py migrate`` as the owner role, then the application role's grants (docs/architecture.md,
"Database roles").

With ``MIGRATE_DATABASE_URL`` set, the migrations run with its credentials (same database as
``DATABASE_URL``), and once they are applied the owner grants the application role (``DATABASE_URL``'s user)
exactly its privileges on every table (backoffice/dbroles.py): a table added by any migration gets them.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.commands.migrate import Command as DjangoMigrate
from django.db import connections, transaction

from backoffice import dbroles
from backoffice.owner import as_owner


class Command(DjangoMigrate):
    help = DjangoMigrate.help + " Runs as the owner role (MIGRATE_DATABASE_URL), then grants the application role."

    def handle(self, *args: Any, **options: Any) -> None:
        alias = options["database"]
        app_role = getattr(settings, "DATABASE_APP_ROLE", "")
        with as_owner(alias) as owner:
            super().handle(*args, **options)
            if not owner:
                return
            # with a signer role, checkpoints are its alone to write, whoever signs them (tables/signer.py)
            signer_role = getattr(settings, "DATABASE_SIGNER_ROLE", "")
            # with a cashier role, deposits, withdrawals and corrections are its alone to write (ledger/cashier_role)
            cashier_role = getattr(settings, "DATABASE_CASHIER_ROLE", "")
            with transaction.atomic(using=alias), connections[alias].cursor() as cursor:
                dbroles.grant_app_privileges(cursor, app_role, signer_role=signer_role, cashier_role=cashier_role)
            if options["verbosity"] >= 1:
                self.stdout.write(f"Granted the application role {app_role!r} its privileges.")
