"""Fixtures of the ledger tests (real PostgreSQL; most tests commit for real: ``django_db(transaction=True)``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection

from tests.conftest import owner_cursor
from tests.support.staff import staff_user

_names = itertools.count(1)


@pytest.fixture
def make_user() -> Callable[..., AbstractBaseUser]:
    """Create a user with a fresh name (``prefix`` + a counter)."""

    def make(prefix: str = "player", **fields: Any) -> AbstractBaseUser:
        return get_user_model().objects.create(username=f"{prefix}{next(_names)}", **fields)

    return make


@pytest.fixture
def operator() -> AbstractBaseUser:
    return staff_user(f"operator{next(_names)}", "operator", password="x" * 12)


@pytest.fixture
def admin_user(db: Any) -> AbstractBaseUser:
    """pytest-django's superuser (what ``admin_client`` signs in as), made by the owner role: the application
    role may not make one (issue #43). The owner commits: a fresh name each time."""
    return staff_user(f"admin{next(_names)}", "superuser", password="password")


_owner_cursor: list[Any] = []  # the owner's cursor while ``triggers_disabled`` is active


def sql(statement: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    if _owner_cursor:
        cursor = _owner_cursor[-1]
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


LEDGER_TABLES = ("ledger_transaction", "ledger_posting", "ledger_account", "ledger_balance")


@contextmanager
def triggers_disabled() -> Iterator[None]:
    """What the owner (or a superuser) can do to bypass the ledger's triggers (not its CHECKs): used to inject
    bad data that reconcile must find. The application's role cannot: inside, ``run_sql`` runs as the owner, on
    a connection of its own whose transaction commits at the end (so the test must commit its data:
    ``django_db(transaction=True)``)."""
    with owner_cursor(triggers_off=LEDGER_TABLES) as cursor:
        _owner_cursor.append(cursor)
        try:
            yield
        finally:
            _owner_cursor.pop()


@pytest.fixture
def run_sql() -> Callable[..., list[tuple[Any, ...]]]:
    return sql


@pytest.fixture
def no_triggers() -> Callable[[], Any]:
    return triggers_disabled
