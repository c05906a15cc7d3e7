"""The flush that ends every transactional test (casino/testing_db): every table empty but the content types,
permissions and staff groups (which the application role the tests connect as may not write, issue #43), and
post_migrate skipped only while those are all still there (run as the owner when it runs)."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.models.signals import post_migrate

from devtools.testing_db.base import KEPT_TABLES
from tables.admin.roles import AUDITOR, OPERATOR
from tables.models import Table
from tests.conftest import owner_cursor
from tests.support.play import make_table

pytestmark = pytest.mark.django_db(transaction=True)


def _flush() -> None:
    """As Django's TransactionTestCase ends a test."""
    call_command("flush", verbosity=0, interactive=False, reset_sequences=False, inhibit_post_migrate=False)


@pytest.fixture
def post_migrate_calls() -> Any:
    calls: list[str] = []

    def count(sender: Any, **kwargs: Any) -> None:
        calls.append(sender.label)

    post_migrate.connect(count, weak=False, dispatch_uid="test_flush.count")
    yield calls
    post_migrate.disconnect(dispatch_uid="test_flush.count")


def _kept() -> tuple[int, int, dict[str, set[str]]]:
    groups = {group.name: set(group.permissions.values_list("codename", flat=True)) for group in Group.objects.all()}
    return ContentType.objects.count(), Permission.objects.count(), groups


def _every_other_table_is_empty() -> None:
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        for table in sorted(set(tables) - set(KEPT_TABLES)):
            cursor.execute(f'SELECT EXISTS (SELECT FROM "{table}")')
            assert cursor.fetchone() == (False,), table


def test_the_flush_empties_every_table_but_keeps_content_types_permissions_and_groups(
    post_migrate_calls: list[str], make_user: Any
) -> None:
    _flush()  # post_migrate has run once in this process since the permissions were last changed
    kept = _kept()
    make_table("classic")
    make_user("cashier", is_staff=True)  # an operator: a row in auth_user_groups (made by the owner)
    post_migrate_calls.clear()

    _flush()

    assert post_migrate_calls == []  # nothing to write again: skipped
    assert _kept() == kept and kept[0] > 0 and kept[1] > 0
    assert {AUDITOR, OPERATOR} <= set(kept[2]) and kept[2][OPERATOR]
    _every_other_table_is_empty()
    assert not Table.objects.exists()


def test_manage_py_flush_keeps_the_groups_too_and_resets_no_id(make_user: Any) -> None:
    """``manage.py flush`` with its defaults (as a test calls it: sequences reset) keeps the same rows, and the next
    table gets a new id: caches keyed by table id never meet a flushed table's id again."""
    kept = _kept()
    first = make_table("classic")
    make_user("cashier", is_staff=True)

    call_command("flush", verbosity=0, interactive=False)

    assert _kept() == kept and {AUDITOR, OPERATOR} <= set(kept[2])
    _every_other_table_is_empty()
    assert make_table("classic").pk > first.pk


def test_a_permission_removed_by_the_owner_is_written_again_by_the_flush(post_migrate_calls: list[str]) -> None:
    """The application role may not remove one (tests/backoffice/test_separation_of_duties.py); the owner can,
    and post_migrate, run by the flush as the owner, writes it again."""
    _flush()
    wanted = set(Permission.objects.values_list("content_type__app_label", "codename"))
    spare = Permission.objects.filter(group__isnull=True).order_by("pk").first()  # in no group: nothing else goes
    assert spare is not None
    with owner_cursor() as cursor:
        cursor.execute("DELETE FROM auth_permission WHERE id = %s", [spare.pk])
    assert len(set(Permission.objects.values_list("content_type__app_label", "codename"))) == len(wanted) - 1
    post_migrate_calls.clear()

    _flush()

    assert post_migrate_calls  # the kept rows changed: post_migrate ran
    assert set(Permission.objects.values_list("content_type__app_label", "codename")) == wanted
