"""The flush that ends every transactional test (casino/testing_db): every table empty but the content types and
permissions, and post_migrate skipped only while those are all still there."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.core.management import call_command
from django.db import connection
from django.db.models.signals import post_migrate

from tables.models import Table
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


def test_the_flush_empties_every_table_but_keeps_content_types_and_permissions(post_migrate_calls: list[str]) -> None:
    _flush()  # post_migrate has run once in this process since the permissions were last changed
    content_types, permissions = ContentType.objects.count(), Permission.objects.count()
    make_table("classic")
    Group.objects.create(name="flushed")
    post_migrate_calls.clear()

    _flush()

    assert post_migrate_calls == []  # nothing to write again: skipped
    assert (ContentType.objects.count(), Permission.objects.count()) == (content_types, permissions) > (0, 0)
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    with connection.cursor() as cursor:
        for table in sorted(set(tables) - {"django_content_type", "auth_permission"}):
            cursor.execute(f'SELECT EXISTS (SELECT FROM "{table}")')
            assert cursor.fetchone() == (False,), table
    assert not Table.objects.exists() and not Group.objects.exists()


def test_a_permission_removed_by_a_test_is_written_again_by_the_flush(post_migrate_calls: list[str]) -> None:
    _flush()
    wanted = set(Permission.objects.values_list("content_type__app_label", "codename"))
    Permission.objects.filter(codename="use_cashier").delete()
    post_migrate_calls.clear()

    _flush()

    assert post_migrate_calls  # the kept rows changed: post_migrate ran
    assert set(Permission.objects.values_list("content_type__app_label", "codename")) == wanted
