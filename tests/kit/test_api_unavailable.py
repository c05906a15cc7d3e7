"""A database or Redis out of reach is 503 ``service_unavailable`` with ``Retry-After``, never a 500 (issue 16).

Found by the soak (soak/): requests whose database connection was cut (a restarted server,
``pg_terminate_backend``) answered 500, and /healthz's 503 had no ``Retry-After``. The connection is cut here
for real: the test's own backend is terminated from a second connection.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import pytest
from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection
from django.test import Client
from rest_framework.test import APIClient

from tables.models import Event, IdempotencyRecord
from tests.conftest import child_database_url, free_port, wait_for
from tests.support.play import make_table

pytestmark = pytest.mark.django_db(transaction=True)


def _cut_my_database_connection() -> None:
    """Terminate the backend of this thread's connection, as a restart or an operator would."""
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    params = {k: v for k, v in connection.get_connection_params().items() if k not in ("context", "cursor_factory")}
    with psycopg.connect(**params, autocommit=True) as other:  # the same login (a backend is its login role's)
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


def _recover() -> None:
    connection.close()  # what Django does at the end of a real request whose connection broke


@pytest.fixture(autouse=True)
def _fresh_connection_afterwards(transactional_db: None) -> Iterator[None]:
    yield
    _recover()  # before the database is flushed, even when the test failed with its connection cut


def test_an_api_request_whose_database_connection_is_cut_is_503_with_retry_after(
    player: AbstractBaseUser, client_for: Callable[[AbstractBaseUser], APIClient]
) -> None:
    api = client_for(player)
    api.raise_request_exception = False
    _cut_my_database_connection()
    response = api.get("/api/v1/me")
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json()["error"]["code"] == "service_unavailable"
    _recover()
    assert api.get("/api/v1/me").status_code == 200


def test_an_idempotent_post_cut_off_is_not_stored_and_its_retry_applies_it_once(
    player: AbstractBaseUser, client_for: Callable[[AbstractBaseUser], APIClient], fund: Any
) -> None:
    fund(player, 1000)
    table = make_table("classic", bank="house")
    api = client_for(player)
    api.raise_request_exception = False
    headers = {"HTTP_IDEMPOTENCY_KEY": "sit-once"}
    _cut_my_database_connection()
    first = api.post(f"/api/v1/tables/{table.pk}/seats", {}, format="json", **headers)
    assert first.status_code == 503 and first["Retry-After"] == "1"
    _recover()
    assert not IdempotencyRecord.objects.filter(user=player, key="sit-once").exists()
    retry = api.post(f"/api/v1/tables/{table.pk}/seats", {}, format="json", **headers)
    assert retry.status_code == 201
    again = api.post(f"/api/v1/tables/{table.pk}/seats", {}, format="json", **headers)
    assert (again.status_code, again.json()) == (201, retry.json())
    assert again["Idempotent-Replayed"] == "true"
    commands = set(
        Event.objects.filter(table_id=table.pk, metadata__idempotency_key="sit-once").values_list(
            "metadata__command_version", flat=True
        )
    )
    assert len(commands) == 1


def test_a_page_outside_the_api_is_503_too() -> None:
    client = Client(raise_request_exception=False)
    client.cookies["sessionid"] = "x" * 32  # the admin reads the session: a request that reaches the database
    _cut_my_database_connection()
    response = client.get("/admin/")
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    _recover()


def test_healthz_503_carries_retry_after_when_the_database_is_out_of_reach(monkeypatch: pytest.MonkeyPatch) -> None:
    """The probe connects afresh (kit/health.py: never a slot of the request pool), so a cut request connection
    does not fool it either way; here the server is out of reach for real: nothing listens where it connects."""
    client = Client(raise_request_exception=False)
    monkeypatch.setitem(connection.settings_dict, "HOST", "127.0.0.1")
    monkeypatch.setitem(connection.settings_dict, "PORT", str(free_port()))
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json()["database"].startswith("error")
    monkeypatch.undo()
    ok = client.get("/healthz")
    assert ok.status_code == 200 and "Retry-After" not in ok


def test_healthz_503_carries_retry_after_when_redis_is_unreachable(settings: Any) -> None:
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    response = Client().get("/healthz")
    assert response.status_code == 503
    assert response["Retry-After"] == "1"
    assert response.json() == {"database": "ok", "redis": response.json()["redis"]}
    assert response.json()["redis"].startswith("error")


def _status(url: str) -> int | None:
    """POST wrong credentials to /auth/token: a request that asks the database (400 when it answers)."""
    request = urllib.request.Request(
        url,
        data=json.dumps({"username": "nobody", "password": "wrong password"}).encode(),
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return int(response.status)
    except urllib.error.HTTPError as err:
        err.read()
        return int(err.code)
    except OSError:
        return None


def test_a_pooled_connection_the_server_dropped_while_idle_is_replaced_not_lent(
    spawn: Callable[..., Any], child_env: dict[str, str]
) -> None:
    """Production settings (psycopg's pool): after the server drops every idle connection of the web process
    (as a restart or pg_terminate_backend does), the next requests are answered normally, not 503."""
    port = free_port()
    env = {
        **child_env,
        "DATABASE_URL": child_database_url(),
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "DEBUG": "0",
        "SECURE_SSL_REDIRECT": "0",  # plain HTTP on 127.0.0.1 (production is HTTPS only)
        "SECRET_KEY": "test-only-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "DB_POOL": "1",
        "DB_POOL_MIN": "2",
        "THROTTLE_AUTH_BURST": "off",
        "THROTTLE_AUTH_SUSTAINED": "off",
        "LOGIN_FAILURE_LIMIT": "1000",  # the probe fails to sign in on purpose, again and again
    }
    spawn(
        ["-m", "gunicorn", "casino.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "1",
         "--worker-class", "gthread", "--threads", "2"],
        env=env,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/api/v1/auth/token"
    assert wait_for(lambda: _status(url) == 400, 60), "the server never answered"
    with connection.cursor() as cursor:  # the test's own connection stays
        cursor.execute("SELECT pg_backend_pid(), current_database()")
        mine, name = cursor.fetchone()
    with psycopg.connect(child_database_url().replace("postgres://", "postgresql://", 1), autocommit=True) as admin:
        killed = admin.execute(
            # (waiting up to 10 s for each backend to be gone, as a restart's drop is complete when a request comes;
            # without the wait a loaded machine let the pool's check pass on a backend still exiting: one 503)
            "SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000)) FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid() AND pid <> %s AND backend_type = 'client backend'",
            [name, mine],
        ).fetchone()[0]
    assert killed >= 1
    statuses = [_status(url) for _ in range(6)]
    assert statuses == [400] * 6, json.dumps(statuses)
