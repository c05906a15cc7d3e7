"""The players and tables the bots play at: players with chips, one table per preset and bank mode."""

from __future__ import annotations

import json
import secrets
import subprocess
import sys

from soak.services import ROOT
from soak.stack import Stack
from soak.timing import TURN_TIMEOUT_S

PRESETS: dict[str, dict[str, int]] = {
    "classic": {"min_bet": 5, "max_bet": 50},
    "italian": {"min_bet": 5, "max_bet": 50},
    "spanish": {"min_bet": 5, "max_bet": 50},
    "hungarian": {"min_bet": 10, "max_bet": 10, "fixed_stake": 10},
}
BANKS = ("house", "player")


def setup_tables(stack: Stack, bots_per_table: int, presets: tuple[str, ...]) -> list[tuple[str, int, str, int]]:
    """Players with chips and one table per preset and bank mode; returns (username, user id, password, table)."""
    code = (
        "import json, sys\n"
        "from soak.seating import create_players_and_tables\n"
        f"json.dump(create_players_and_tables({bots_per_table}, {list(presets)!r}), sys.stdout)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", f"import django; django.setup()\n{code}"],
        cwd=ROOT, env=stack.env, check=True, capture_output=True, text=True,
    )  # fmt: skip
    return [tuple(row) for row in json.loads(out.stdout)]  # type: ignore[misc]


def create_players_and_tables(bots_per_table: int, presets: list[str]) -> list[list[object]]:
    """In a Django process of the stack's settings (:func:`setup_tables` runs it): the tables and the players with
    their chips; each seat as [username, user id, password, table id]."""
    from django.contrib.auth import get_user_model

    from backoffice.staff import staff_account_as_owner
    from ledger import services as ledger
    from tables import services
    from tables.table_spec import TableSpec

    User = get_user_model()
    # staff are the owner's to make (backoffice/staff.py); the setup process has the owner's URL, as migrate does
    made = staff_account_as_owner(username="soak-cashier", password=secrets.token_urlsafe(16), role="operator")
    if made is None:
        raise RuntimeError("the soak's setup needs MIGRATE_DATABASE_URL to make its cashier")
    cashier = User.objects.get(pk=made[0])
    seats: list[list[object]] = []
    for preset in presets:
        limits = PRESETS[preset]
        for bank in BANKS:
            table = services.table_create(
                operator=None,
                name=f"soak {preset} {bank}",
                spec=TableSpec(
                    preset=preset,
                    min_bet=limits["min_bet"],
                    max_bet=limits["max_bet"],
                    fixed_stake=limits.get("fixed_stake"),
                    max_seats=8 if bank == "player" else 7,
                    bank=bank,
                    turn_timeout_s=TURN_TIMEOUT_S,
                    betting_timeout_s=TURN_TIMEOUT_S,
                ),
            )
            for i in range(bots_per_table + (1 if bank == "player" else 0)):
                name = f"soak-{preset}-{bank}-{i}"
                password = secrets.token_urlsafe(12)
                user = User.objects.create_user(username=name, password=password)
                ledger.deposit(user=user, amount=10**7, reference="soak", operator=cashier, cause=f"soak:{name}")
                seats.append([name, user.pk, password, table.pk])
    return seats

