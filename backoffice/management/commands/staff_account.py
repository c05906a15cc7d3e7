"""``manage.py staff_account USERNAME --role operator|auditor|superuser``: make a staff account, as the owner role.

The application role cannot (issue #43): this command connects with ``MIGRATE_DATABASE_URL``, like ``migrate``.
The password of a new account is read from the environment variable ``--password-env`` names (default
``STAFF_PASSWORD``), never from the command line; an existing account keeps its password and gets the role.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from backoffice.staff import STAFF_ROLES, staff_account_as_owner


class Command(BaseCommand):
    help = __doc__.splitlines()[0] if __doc__ else ""

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("username")
        parser.add_argument("--role", choices=STAFF_ROLES, required=True)
        parser.add_argument("--password-env", default="STAFF_PASSWORD", help="The variable holding the password.")

    def handle(self, *args: Any, **options: Any) -> None:
        password = os.environ.get(options["password_env"], "")
        if not password:
            raise CommandError(f"set ${options['password_env']} to the new account's password")
        made = staff_account_as_owner(username=options["username"], password=password, role=options["role"])
        if made is None:
            raise CommandError("needs MIGRATE_DATABASE_URL (the owner role): the application role makes no staff")
        user_id, created = made
        verb = "created" if created else "updated"
        self.stdout.write(f"Staff account {options['username']!r} (id {user_id}) {verb}: {options['role']}.")
