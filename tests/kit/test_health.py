"""GET /healthz against the real database and Redis, and with the database unreachable."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.conftest import free_port, wait_for


@pytest.mark.django_db
def test_healthz_is_200_when_database_and_redis_answer(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"database": "ok", "redis": "ok"}


def _get(url: str) -> tuple[int, dict[str, str]] | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())
    except OSError:
        return None


def test_healthz_is_503_naming_the_database_when_it_is_unreachable(spawn, child_env):
    port = free_port()
    dead_db = f"postgres://nobody@127.0.0.1:{free_port()}/nothing"
    env = {**child_env, "DATABASE_URL": dead_db, "DJANGO_SETTINGS_MODULE": "casino.settings_test"}
    spawn(["-m", "gunicorn", "casino.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "1"], env=env)
    result = wait_for(lambda: _get(f"http://127.0.0.1:{port}/healthz"), timeout=30)
    assert result is not None, "the server never answered"
    status, body = result
    assert status == 503
    assert body["database"].startswith("error")
    assert body["redis"] == "ok"


def test_healthz_is_503_naming_redis_when_it_is_unreachable(spawn, child_env):
    port = free_port()
    env = {**child_env, "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0"}
    spawn(["-m", "gunicorn", "casino.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "1"], env=env)
    result = wait_for(lambda: _get(f"http://127.0.0.1:{port}/healthz"), timeout=30)
    assert result is not None, "the server never answered"
    status, body = result
    assert status == 503
    assert body["redis"].startswith("error")
    assert body["database"] == "ok"
