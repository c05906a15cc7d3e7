"""Roles: an auditor reads everything and changes nothing; nobody (superusers included) adds, changes or deletes
events, transactions or postings through the admin."""

from __future__ import annotations

import importlib
import uuid
from io import StringIO

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Group, Permission
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from ledger import services as ledger
from ledger.models import Posting, Transaction
from tables.admin.roles import AUDITOR, OPERATOR, role_permissions
from tables.models import Dispute, Event, Table
from tests.conftest import owner_connection, owner_cursor
from tests.support.admin_fixtures import open_dispute

pytestmark = pytest.mark.django_db


def _codenames(group: Group) -> set[str]:
    return {f"{p.content_type.app_label}.{p.codename}" for p in group.permissions.select_related("content_type")}


def test_the_groups_hold_exactly_their_permissions(roles):
    for name, wanted in role_permissions().items():
        assert _codenames(roles[name]) == {f"{app}.{codename}" for app, _, codename in wanted}
    auditor = _codenames(roles[AUDITOR])
    assert all(codename.split(".")[1].startswith("view_") for codename in auditor)
    assert _codenames(roles[OPERATOR]) - auditor == {
        "tables.add_table",
        "tables.change_table",
        "tables.change_dispute",
        "casino.use_cashier",
        "axes.delete_accessattempt",  # unlock a locked sign-in
        "responsible.lower_limits",  # lower a player's limit with a reason (never raise)
    }


@pytest.mark.django_db(transaction=True)
def test_the_data_migration_makes_the_groups_with_the_historical_models():
    """As ``migrate`` runs it: as the owner (the application role may write no group or permission, issue #43),
    committed; the groups are made again at the end, as the migration leaves them, whatever happened."""
    state = MigrationExecutor(connection).loader.project_state(("casino", "0002_admin_roles"))
    migration = importlib.import_module("backoffice.migrations.0002_admin_roles")
    with owner_connection():
        try:
            Group.objects.filter(name__in=[AUDITOR, OPERATOR]).delete()
            Permission.objects.filter(content_type__app_label="casino").delete()  # as before post_migrate ran
            migration.forwards(state.apps, None)
            migration.forwards(state.apps, None)  # idempotent
            for name, wanted in role_permissions().items():
                assert _codenames(Group.objects.get(name=name)) == {f"{app}.{c}" for app, _, c in wanted}
            cashier = Permission.objects.get(codename="use_cashier")
            assert cashier.name == "Can deposit and withdraw chips at the cage"
            migration.backwards(state.apps, None)
            assert not Group.objects.filter(name__in=[AUDITOR, OPERATOR]).exists()
        finally:
            migration.forwards(state.apps, None)


@pytest.mark.django_db(transaction=True)
def test_sync_admin_roles_gives_a_group_its_permissions_back_as_the_owner():
    """The command writes groups, which the application role may not (issue #43): it runs as the owner."""
    operators = Group.objects.get(name=OPERATOR)
    cashier = operators.permissions.get(codename="use_cashier")
    with owner_cursor() as cursor:  # a drift only the owner can make
        cursor.execute(
            "DELETE FROM auth_group_permissions WHERE group_id = %s AND permission_id = %s", [operators.pk, cashier.pk]
        )
    assert not operators.permissions.filter(pk=cashier.pk).exists()

    call_command("sync_admin_roles", stdout=StringIO())

    for name, wanted in role_permissions().items():
        assert _codenames(Group.objects.get(name=name)) == {f"{app}.{c}" for app, _, c in wanted}


def test_an_auditor_reads_every_admin_page(as_auditor, played):
    hand = played.settled[0]
    dispute = open_dispute(hand)
    event = Event.objects.filter(table=played.table).first()
    entry = Transaction.objects.filter(hand_id=hand.pk).first()
    pages = [
        "/admin/",
        "/admin/tables/table/",
        f"/admin/tables/table/{played.table.pk}/change/",
        "/admin/tables/hand/",
        f"/admin/tables/hand/{hand.pk}/change/",
        f"/admin/tables/hand/{hand.pk}/change/?step=3",
        "/admin/tables/event/",
        f"/admin/tables/event/{event.pk}/change/",
        "/admin/tables/dispute/",
        f"/admin/tables/dispute/{dispute.pk}/change/",
        "/admin/ledger/account/",
        "/admin/ledger/transaction/",
        f"/admin/ledger/transaction/{entry.pk}/change/",
        "/admin/ledger/posting/",
        "/admin/casino/player/",
        f"/admin/casino/player/{played.players[0].pk}/change/",
        "/admin/admin/logentry/",
    ]
    for page in pages:
        assert as_auditor.get(page).status_code == 200, page


def test_an_auditor_changes_nothing(as_auditor, played):
    table = played.table
    hand = played.settled[0]
    dispute = open_dispute(hand)
    player = played.players[0]
    balance = ledger.wallet_balance(player)
    tables = Table.objects.count()

    assert as_auditor.get("/admin/tables/table/add/").status_code == 403
    body = {"name": "x", "preset": "classic", "bank": "player", "min_bet": 1, "max_bet": 5, "max_seats": 4}
    assert as_auditor.post("/admin/tables/table/add/", body).status_code == 403
    assert as_auditor.post(f"/admin/tables/table/{table.pk}/change/", {"name": "renamed"}).status_code == 403
    page = as_auditor.get(f"/admin/tables/table/{table.pk}/change/").content
    assert b'name="_save"' not in page and b'name="name"' not in page

    credit = f"player:{dispute.user.username}"
    resolve = {"resolution": "fine", "amount": 5, "credit": credit, "debit": "house:bankroll"}
    assert as_auditor.post(f"/admin/tables/dispute/{dispute.pk}/change/", resolve).status_code == 403
    assert b"resolve-form" not in as_auditor.get(f"/admin/tables/dispute/{dispute.pk}/change/").content

    cashier = {"operation": "deposit", "amount": 100, "reference": "r", "token": str(uuid.uuid4())}
    assert as_auditor.post(f"/admin/casino/player/{player.pk}/cashier/", cashier).status_code == 403
    assert b'id="cashier"' not in as_auditor.get(f"/admin/casino/player/{player.pk}/change/").content

    table.refresh_from_db()
    dispute.refresh_from_db()
    assert table.name != "renamed" and Table.objects.count() == tables
    assert dispute.status == "open" and dispute.correction_transaction_id is None
    assert ledger.wallet_balance(player) == balance
    assert not LogEntry.objects.exists()


@pytest.mark.parametrize("model", ["tables/event", "ledger/posting", "ledger/transaction"])
def test_nobody_adds_changes_or_deletes_events_postings_or_transactions(as_superuser, played, model):
    obj = {"tables/event": Event, "ledger/posting": Posting, "ledger/transaction": Transaction}[model].objects.first()
    count = type(obj).objects.count()
    base = f"/admin/{model}/"
    assert as_superuser.get(base + "add/").status_code == 403
    assert as_superuser.post(base + "add/", {}).status_code == 403
    page = as_superuser.get(f"{base}{obj.pk}/change/")
    assert page.status_code == 200 and b'name="_save"' not in page.content and b"deletelink" not in page.content
    assert as_superuser.post(f"{base}{obj.pk}/change/", {"amount": 1, "data": "{}"}).status_code == 403
    assert as_superuser.get(f"{base}{obj.pk}/delete/").status_code == 403
    assert as_superuser.post(f"{base}{obj.pk}/delete/", {"post": "yes"}).status_code == 403
    listing = as_superuser.get(base).content
    assert b"delete_selected" not in listing
    bulk = as_superuser.post(base, {"action": "delete_selected", "_selected_action": [obj.pk], "post": "yes"})
    assert bulk.status_code in (200, 302)
    assert type(obj).objects.count() == count


def test_disputes_and_players_are_never_added_or_deleted_in_the_admin(as_superuser, played):
    dispute = open_dispute(played.settled[0])
    assert as_superuser.get("/admin/tables/dispute/add/").status_code == 403
    assert as_superuser.post(f"/admin/tables/dispute/{dispute.pk}/delete/", {"post": "yes"}).status_code == 403
    assert as_superuser.get("/admin/casino/player/add/").status_code == 403
    assert as_superuser.post(f"/admin/tables/table/{played.table.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Dispute.objects.filter(pk=dispute.pk).exists()
