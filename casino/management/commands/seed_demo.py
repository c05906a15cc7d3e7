"""Demo data so a newcomer sees the casino work: an operator, a few players with chips, one table per preset.

Idempotent: running it again changes nothing that exists. Prints the credentials.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from rest_framework.authtoken.models import Token

from casino.demo import DEMO_OPERATOR, DEMO_PASSWORD, DEMO_PLAYERS, seed_chips, seed_tables


class Command(BaseCommand):
    help = "Create the demo operator, players (with chips) and tables, and print the credentials."

    def handle(self, *args: Any, **options: Any) -> None:
        User = get_user_model()
        operator, created = User.objects.get_or_create(
            username=DEMO_OPERATOR, defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            operator.set_password(DEMO_PASSWORD)
            operator.save()
        players = []
        for name in DEMO_PLAYERS:
            user, created = User.objects.get_or_create(username=name)
            if created:
                user.set_password(DEMO_PASSWORD)
                user.save()
            players.append(user)
        chip_lines = seed_chips(operator=operator, players=players)
        table_lines = seed_tables(operator=operator)

        out = self.stdout.write
        out(f"Demo accounts (password for all: {DEMO_PASSWORD})")
        out(f"  operator (staff, admin): {DEMO_OPERATOR}  token {Token.objects.get_or_create(user=operator)[0].key}")
        for user in players:
            out(f"  player: {user.username}  token {Token.objects.get_or_create(user=user)[0].key}")
        for line in chip_lines + table_lines:
            out(f"  {line}")
