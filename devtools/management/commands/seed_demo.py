"""Demo data so a newcomer sees the casino work: an operator, a few players with chips, one table per preset.

Idempotent: running it again changes nothing that exists. Prints the credentials.
"""

from __future__ import annotations

import os
import secrets
from typing import Any

from django.apps import apps as django_apps
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from backoffice.staff import staff_account_as_owner
from devtools.demo import DEMO_AUDITOR, DEMO_OPERATOR, DEMO_PLAYERS, seed_chips, seed_tables
from tables.admin.roles import AUDITOR, OPERATOR, sync_roles


class Command(BaseCommand):
    help = (
        "Create the demo operator, auditor, players (with chips) and tables, and print the credentials. The "
        "password is --password, else $DEMO_PASSWORD (`make run` keeps one per installation in "
        ".local/demo_password), else a new random one; it is set only on accounts this run creates."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--password", default="", help="The demo accounts' password (when they are created).")

    def handle(self, *args: Any, **options: Any) -> None:
        given = options.get("password") or os.environ.get("DEMO_PASSWORD", "")
        password = given or secrets.token_urlsafe(12)
        sync_roles(django_apps)
        created: list[bool] = []
        operator = _account(DEMO_OPERATOR, password, created, role=OPERATOR)
        auditor = _account(DEMO_AUDITOR, password, created, role=AUDITOR)
        players = [_account(name, password, created) for name in DEMO_PLAYERS]
        chip_lines = seed_chips(operator=operator, players=players)
        table_lines = seed_tables(operator=operator)

        out = self.stdout.write
        if given or any(created):
            out(f"Demo accounts (password for all: {password})")
        else:
            out("Demo accounts (the password set when they were created; `make run` keeps it in .local/demo_password)")
        # names only, never a token: a token printed to a console or a log outlives the run (issue #26); sign in
        # with the password (POST /api/v1/auth/token) to get one
        out(f"  operator (staff: cashier, tables, disputes): {operator.username}")
        out(f"  auditor (staff, reads everything, changes nothing): {auditor.username}")
        for user in players:
            out(f"  player: {user.username}")
        for line in chip_lines + table_lines:
            out(f"  {line}")


def _account(username: str, password: str, created: list[bool], *, role: str | None = None) -> Any:
    """The demo user (created once, with ``password``); staff in ``role``'s group when given. Staff are the owner's
    to make (backoffice/staff.py): ``make run`` makes them first with ``manage.py staff_account``; run elsewhere,
    this command makes them itself when it has the owner's URL."""
    users = get_user_model().objects
    if role is None:
        user = users.filter(username=username).first()
        created.append(user is None)
        return user or users.create_user(username=username, password=password)
    user = users.filter(username=username, is_staff=True).first()
    if user is not None and user.groups.filter(name=role).exists():
        created.append(False)
        return user
    made = staff_account_as_owner(username=username, password=password, role=role)
    if made is None:
        raise CommandError(f"no staff account {username!r}: run `manage.py staff_account {username} --role {role}` "
                           "as the owner (MIGRATE_DATABASE_URL) first")  # fmt: skip
    user_id, new = made
    created.append(new)
    return users.get(pk=user_id)
