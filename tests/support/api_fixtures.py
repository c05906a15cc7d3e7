"""Fixtures of the API tests (real PostgreSQL and Redis), for every test (tests/conftest.py). Throttling is off
in every test except the throttling tests, which set their own rates (the rates are read on every request)."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from io import StringIO
from typing import Any

import pytest
import yaml
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.management import call_command
from rest_framework.test import APIClient

from kit.tokens import issue_token
from ledger import services as ledger
from tables.admin.roles import OPERATOR
from tests.support.game_helpers import ok
from tests.support.staff import staff_user

NO_THROTTLES = {"auth_burst": None, "auth_sustained": None, "user_burst": None, "user_sustained": None}
_names = itertools.count(1)


@pytest.fixture(autouse=True)
def throttles_off(settings: Any) -> Iterator[None]:
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": dict(NO_THROTTLES)}
    yield


@pytest.fixture
def make_user() -> Callable[..., AbstractBaseUser]:
    """A user with a fresh name and the password ``correct horse 42``."""

    def make(prefix: str = "player", **fields: Any) -> AbstractBaseUser:
        username = f"{prefix}{next(_names)}"
        if fields.pop("is_staff", False):  # staff in these tests are operators (the "operator" group of docs/admin.md)
            return staff_user(username, OPERATOR, password="correct horse 42")
        return get_user_model().objects.create_user(username=username, password="correct horse 42", **fields)

    return make


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def client_for() -> Callable[[AbstractBaseUser], APIClient]:
    """An API client signed in with the user's token (a staff member: with his session)."""

    def make(user: AbstractBaseUser) -> APIClient:
        client = APIClient()
        if user.is_staff:  # staff get no API token: they use the API through their admin session (kit/tokens.py)
            client.force_login(user)
        else:
            client.credentials(HTTP_AUTHORIZATION=f"Token {issue_token(user)}")
        return client

    return make


@pytest.fixture
def player(make_user: Callable[..., AbstractBaseUser]) -> AbstractBaseUser:
    return make_user("player")


@pytest.fixture
def staff(make_user: Callable[..., AbstractBaseUser]) -> AbstractBaseUser:
    return make_user("cashier", is_staff=True)


@pytest.fixture
def as_player(player: AbstractBaseUser, client_for: Callable[[AbstractBaseUser], APIClient]) -> APIClient:
    return client_for(player)


@pytest.fixture
def as_staff(staff: AbstractBaseUser, client_for: Callable[[AbstractBaseUser], APIClient]) -> APIClient:
    return client_for(staff)


@pytest.fixture
def fund(staff: AbstractBaseUser) -> Callable[[AbstractBaseUser, int], None]:
    """Deposit chips straight through the ledger (not the API)."""
    counter = itertools.count(1)

    def deposit(user: AbstractBaseUser, amount: int) -> None:
        ledger.deposit(user=user, amount=amount, reference="test", operator=staff, cause=f"test:fund:{next(counter)}")

    return deposit


# --- the live (ASGI) server -------------------------------------------------------------------------------------

LIVE_TEST_CAP = 4  # LIVE_MAX_OPEN_WAITS of the test server (8 in production): the cap tests stay small
LIVE_TEST_AUTH_TIMEOUT_S = 2  # LIVE_AUTH_TIMEOUT_S of the test server (10 in production)
LIVE_TEST_RECHECK_S = 1  # LIVE_RECHECK_S of the test server (30 in production)
LIVE_TEST_MAX_UNAUTHENTICATED = 12  # LIVE_MAX_UNAUTHENTICATED of the test server (1000 in production)
LIVE_TEST_MAX_UNAUTHENTICATED_PER_ADDRESS = 6  # LIVE_MAX_UNAUTHENTICATED_PER_ADDRESS of the test server (20)
LIVE_TEST_SEND_BYTES_PER_S = 64 * 1024  # LIVE_SEND_BYTES_PER_S of the test server (256 KiB in production)
LIVE_TEST_SEND_BURST_BYTES = 256 * 1024  # LIVE_SEND_BURST_BYTES of the test server (1 MiB in production)


@pytest.fixture(scope="session")
def asgi_server(django_db_setup: Any, django_db_blocker: Any) -> Iterator[str]:
    """``host:port`` of a real uvicorn serving ``casino.asgi`` (the Procfile's command) on the test database.

    It reads only committed rows: tests that use it are ``transactional_db``."""
    import os
    import signal
    import subprocess
    import sys
    import urllib.request

    from tests.conftest import ROOT, child_database_url, free_port, wait_for

    with django_db_blocker.unblock():
        database_url = child_database_url()
    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DJANGO_SETTINGS_MODULE": "casino.settings_test",
        "DATABASE_URL": database_url,
        "LIVE_MAX_OPEN_WAITS": str(LIVE_TEST_CAP),
        "LIVE_AUTH_TIMEOUT_S": str(LIVE_TEST_AUTH_TIMEOUT_S),
        "LIVE_PORT": str(port),
        "LIVE_MAX_UNAUTHENTICATED": str(LIVE_TEST_MAX_UNAUTHENTICATED),
        "LIVE_MAX_UNAUTHENTICATED_PER_ADDRESS": str(LIVE_TEST_MAX_UNAUTHENTICATED_PER_ADDRESS),
        "LIVE_SEND_BYTES_PER_S": str(LIVE_TEST_SEND_BYTES_PER_S),
        "LIVE_SEND_BURST_BYTES": str(LIVE_TEST_SEND_BURST_BYTES),
        "LIVE_RECHECK_S": str(LIVE_TEST_RECHECK_S),  # the table page served by this server opens its socket here too
    }
    command = ["uvicorn", "casino.asgi:application", "--host", "127.0.0.1", "--port", str(port), "--lifespan", "off",
               "--ws-per-message-deflate", "false", "--ws-max-size", "4096"]  # fmt: skip
    proc = subprocess.Popen(
        [sys.executable, "-m", *command, "--log-level", "warning"], cwd=ROOT, env=env, start_new_session=True
    )

    def healthy() -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as response:
                return response.status == 200
        except OSError:
            return False

    try:
        assert wait_for(healthy, timeout=60, interval=0.2), "the ASGI server did not start"
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


@pytest.fixture
def house_table(as_staff: Any, player: Any, fund: Any, client_for: Any) -> tuple[Any, int]:
    """A house-banked classic table (2 seats, bets 10-100) with ``player`` funded and seated: (his client, id)."""
    table = ok(
        as_staff.post(
            "/api/v1/tables",
            {"name": "counted", "preset": "classic", "min_bet": 10, "max_bet": 100, "max_seats": 2, "bank": "house"},
            format="json",
        ),
        201,
    )
    fund(player, 10**6)
    client = client_for(player)
    ok(client.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    return client, table["id"]


@pytest.fixture(scope="session")
def schema(django_db_setup: Any, django_db_blocker: Any) -> dict[str, Any]:
    """The published OpenAPI schema (``manage.py spectacular``, validated, failing on any warning)."""
    out = StringIO()
    with django_db_blocker.unblock():
        call_command("spectacular", "--validate", "--fail-on-warn", stdout=out)
    return yaml.safe_load(out.getvalue())
