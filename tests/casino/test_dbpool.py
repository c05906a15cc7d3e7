"""The pool's check of a borrowed connection (casino/dbpool.check_borrowed): no round trip for a healthy idle
connection, and a connection whose backend the server terminated while it sat in the pool is never lent."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from psycopg import Connection
from psycopg_pool import ConnectionPool

from casino import dbpool
from tests.conftest import child_database_url

pytestmark = pytest.mark.django_db


def _pool() -> ConnectionPool[Connection[Any]]:
    """A pool of the application role's own connections (the test's, the suite's login role become it, would hide
    their activity from it: a backend's activity is its login role's)."""
    conninfo = child_database_url().replace("postgres://", "postgresql://", 1)
    return ConnectionPool(
        conninfo, kwargs={"autocommit": True}, min_size=1, max_size=1, check=dbpool.check_borrowed, open=True
    )


def _last_query(pid: int) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
        row = cursor.fetchone()
    return "" if row is None else str(row[0])


def test_a_healthy_connection_is_lent_without_a_round_trip() -> None:
    with _pool() as pool:
        with pool.connection() as conn:
            pid = conn.info.backend_pid
            conn.execute("SELECT 42 AS marked_by_the_test")
        with pool.connection() as conn:
            assert conn.info.backend_pid == pid
            # psycopg's own check would have sent an empty query, which pg_stat_activity would now show
            assert _last_query(pid) == "SELECT 42 AS marked_by_the_test"
            assert conn.execute("SELECT 1").fetchone() == (1,)


def test_a_connection_whose_backend_was_terminated_is_replaced_before_it_is_lent() -> None:
    with _pool() as pool:
        with pool.connection() as conn:
            pid = conn.info.backend_pid
        with connection.cursor() as cursor:
            # with a timeout, pg_terminate_backend waits until the backend has exited (pg_stat_activity cannot
            # tell: inside the test's transaction it is a snapshot taken at its first read)
            cursor.execute("SELECT pg_terminate_backend(%s, 10000)", [pid])
            assert cursor.fetchone() == (True,), "the server did not end the terminated backend within 10 s"
        with pool.connection() as conn:
            assert conn.info.backend_pid != pid
            assert conn.execute("SELECT 1").fetchone() == (1,)
