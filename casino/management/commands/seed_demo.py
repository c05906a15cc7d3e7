"""Demo data so a newcomer sees the casino work: an operator, a few players with chips, one table per preset.

Idempotent: running it again changes nothing that exists. Prints the credentials.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps as django_apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand

from casino.api.authentication import issue_token
from casino.demo import DEMO_AUDITOR, DEMO_OPERATOR, DEMO_PASSWORD, DEMO_PLAYERS, seed_chips, seed_tables
from tables.admin_roles import AUDITOR, OPERATOR, sync_roles


class Command(BaseCommand):
    help = "Create the demo operator, auditor, players (with chips) and tables, and print the credentials."

    def handle(self, *args: Any, **options: Any) -> None:
        sync_roles(django_apps)
        operator = _account(DEMO_OPERATOR, role=OPERATOR)
        auditor = _account(DEMO_AUDITOR, role=AUDITOR)
        players = [_account(name) for name in DEMO_PLAYERS]
        chip_lines = seed_chips(operator=operator, players=players)
        table_lines = seed_tables(operator=operator)

        out = self.stdout.write
        out(f"Demo accounts (password for all: {DEMO_PASSWORD})")
        out(f"  operator (staff: cashier, tables, disputes): {operator.username}  token {_token(operator)}")
        out(f"  auditor (staff, reads everything, changes nothing): {auditor.username}  token {_token(auditor)}")
        for user in players:
            out(f"  player: {user.username}  token {_token(user)}")
        for line in chip_lines + table_lines:
            out(f"  {line}")


def _account(username: str, *, role: str | None = None) -> Any:
    """The demo user (created once, with the demo password); staff in ``role``'s group when given."""
    user, created = get_user_model().objects.get_or_create(username=username, defaults={"is_staff": role is not None})
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
    if role is not None:
        user.groups.add(Group.objects.get(name=role))
    return user


def _token(user: Any) -> str:
    return issue_token(user)
