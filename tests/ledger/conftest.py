"""Fixtures of the ledger tests (real PostgreSQL; most tests commit for real: ``django_db(transaction=True)``)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection, transaction

_names = itertools.count(1)


@pytest.fixture
def make_user() -> Callable[..., AbstractBaseUser]:
    """Create a user with a fresh name (``prefix`` + a counter)."""

    def make(prefix: str = "player", **fields: Any) -> AbstractBaseUser:
        return get_user_model().objects.create(username=f"{prefix}{next(_names)}", **fields)

    return make


@pytest.fixture
def operator(make_user: Callable[..., AbstractBaseUser]) -> AbstractBaseUser:
    return make_user("operator", is_staff=True)


def sql(statement: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(statement, params or [])
        return cursor.fetchall() if cursor.description else []


@contextmanager
def triggers_disabled() -> Iterator[None]:
    """What a superuser can do to bypass the ledger's triggers (not its CHECKs): used to inject bad data
    that reconcile must find. ``SET LOCAL``: the setting ends with the transaction."""
    # Inside a test's transaction, check what is pending first: those deferred checks would otherwise run at
    # the end of the test, over the injected rows.
    sql("SET CONSTRAINTS ALL IMMEDIATE")
    sql("SET CONSTRAINTS ALL DEFERRED")
    with transaction.atomic():
        sql("SET LOCAL session_replication_role = replica")
        yield


@pytest.fixture
def run_sql() -> Callable[..., list[tuple[Any, ...]]]:
    return sql


@pytest.fixture
def no_triggers() -> Callable[[], Any]:
    return triggers_disabled
