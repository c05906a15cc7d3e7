"""`manage.py seed_demo`: the demo operator, players with chips and one table per preset, created once."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from knox.models import AuthToken

from devtools.demo import DEMO_CHIPS, DEMO_PLAYERS, DEMO_TABLES
from ledger import selectors as ledger_selectors
from tables.models import Table

pytestmark = pytest.mark.django_db(transaction=True)


def test_seed_demo_creates_players_with_chips_and_tables_once_and_prints_credentials(settings):
    settings.MIN_RTP, settings.MAX_RTP = "0.85", "0.985"  # the production defaults: the demo's house table passes
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    call_command("seed_demo", stdout=io.StringIO())  # idempotent
    User = get_user_model()
    operator, auditor = User.objects.get(username="operator"), User.objects.get(username="auditor")
    assert operator.is_staff and operator.has_perm("casino.use_cashier") and operator.has_perm("tables.add_table")
    assert auditor.is_staff and not auditor.has_perm("casino.use_cashier") and auditor.has_perm("tables.view_hand")
    players = list(User.objects.filter(username__in=DEMO_PLAYERS))
    assert len(players) == len(DEMO_PLAYERS)
    assert set(ledger_selectors.wallet_balances([u.pk for u in players]).values()) == {DEMO_CHIPS}
    assert sorted(Table.objects.values_list("preset", flat=True)) == sorted(t["preset"] for t in DEMO_TABLES)
    assert {"classic", "italian", "spanish", "hungarian"} <= set(Table.objects.values_list("preset", flat=True))
    assert Table.objects.filter(bank="house").count() == 1
    text = out.getvalue()
    assert "password" in text and "alice" in text
    # names and the password, never a token (issue #26): and none was issued
    assert "token" not in text.lower()
    assert not AuthToken.objects.filter(user__username__in=["operator", "auditor", *DEMO_PLAYERS]).exists()
    assert all(t.version == 3 for t in Table.objects.all())  # created through the event store (hands 1, 2 committed)
