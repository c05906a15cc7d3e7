"""Helpers of the operations tests: a browser that may reach the test server only, and the tables' owner."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from django.db import connection, transaction


def offline(page: Any, live_server: Any) -> tuple[list[str], list[str]]:
    """Let the browser reach the test server only (every other request fails as with no network); return the
    lists of requests served and blocked, filled as the page loads."""
    server = urlsplit(live_server.url).netloc
    served: list[str] = []
    blocked: list[str] = []

    def route(request_route: Any) -> None:
        url = request_route.request.url
        if urlsplit(url).netloc == server:
            served.append(url)
            request_route.continue_()
        else:
            blocked.append(url)
            request_route.abort("internetdisconnected")

    page.context.route("**/*", route)
    return served, blocked


@contextmanager
def owner_cursor(*tables_without_triggers: str) -> Iterator[Any]:
    """A cursor of the tables' owner, committed at the end, with the named tables' triggers off meanwhile (what
    an owner, or a superuser, could do). Use in ``transaction=True`` tests."""
    try:  # the application may connect as a role that owns nothing (docs/architecture.md, database roles)
        from tests.conftest import owner_cursor as roles_owner_cursor  # type: ignore[attr-defined]
    except ImportError:
        roles_owner_cursor = None
    if roles_owner_cursor is not None:
        with roles_owner_cursor(triggers_off=tables_without_triggers) as cursor:
            yield cursor
        return
    with transaction.atomic(), connection.cursor() as cursor:
        for table in tables_without_triggers:
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER USER")
        yield cursor
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")  # Django's foreign keys are deferred: check them now
        for table in tables_without_triggers:
            cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER USER")
