"""``manage.py staff_password USERNAME``: set an existing staff member's password, as the owner role, audited.

The application role may change no password (issue #43) and the admin's "Change password" page answers 403: this
command connects with ``MIGRATE_DATABASE_URL``, like ``staff_account``. The password is read from the environment
variable ``--password-env`` names (default ``STAFF_PASSWORD``), never from the command line, and passes the
project's password validators. The audit log gets a line on the account ("Password set by the owner role").
"""

from __future__ import annotations

import os
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from backoffice.staff import staff_password_as_owner


class Command(BaseCommand):
    help = __doc__.splitlines()[0] if __doc__ else ""

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("username")
        parser.add_argument("--password-env", default="STAFF_PASSWORD", help="The variable holding the password.")

    def handle(self, *args: Any, **options: Any) -> None:
        password = os.environ.get(options["password_env"], "")
        if not password:
            raise CommandError(f"set ${options['password_env']} to the new password")
        try:
            user_id = staff_password_as_owner(username=options["username"], password=password)
        except LookupError as error:
            raise CommandError(str(error)) from None
        except ValidationError as error:
            raise CommandError(" ".join(error.messages)) from None
        if user_id is None:
            raise CommandError("needs MIGRATE_DATABASE_URL (the owner role): the application role sets no password")
        self.stdout.write(f"Password of staff account {options['username']!r} (id {user_id}) set.")
