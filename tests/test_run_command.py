"""The README's first command serves the casino (web, live, worker and beat) and Ctrl-C stops all of it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from urllib.parse import urlsplit

import psutil
import psycopg
import pytest
from psycopg import sql

from tests.conftest import ROOT, free_port, wait_for


def _status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code
    except OSError:
        return None


def _sign_in(base: str, username: str, password: str) -> int | None:
    body = json.dumps({"username": username, "password": password}).encode()
    request = urllib.request.Request(
        f"{base}/api/v1/auth/token", data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as resp:
            return resp.status
    except urllib.error.HTTPError as err:
        return err.code


def _drop_database(superuser_url: str, name: str) -> None:
    maintenance = urlsplit(superuser_url)._replace(path="/postgres").geturl().replace("postgres://", "postgresql://", 1)
    with psycopg.connect(maintenance, autocommit=True) as conn:
        conn.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


def test_run_serves_health_admin_and_docs_and_ctrl_c_stops_everything():
    port, live_port = free_port(), free_port()
    superuser = os.environ.get("DATABASE_SUPERUSER_URL")
    if not superuser:
        pytest.skip("`make run` creates its database and roles: needs DATABASE_SUPERUSER_URL (set by `make test`)")
    name = f"{urlsplit(os.environ['DATABASE_URL']).path.lstrip('/')}_runcheck"  # never another checkout's
    db = urlsplit(superuser)._replace(path=f"/{name}").geturl()
    _drop_database(superuser, name)  # a fresh machine: no demo accounts left by an earlier run (or password)
    env = {**os.environ, "DATABASE_URL": db, "PORT": str(port), "LIVE_PORT": str(live_port), "PYTHONPATH": str(ROOT)}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    proc = subprocess.Popen(
        [sys.executable, "-m", "casino.devenv", "run"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        assert wait_for(lambda: _status(f"{base}/healthz") == 200, timeout=90), "healthz never answered 200"
        assert _status(f"{base}/admin/login/") == 200
        assert _status(f"{base}/api/docs/") == 200
        assert wait_for(lambda: _status(f"http://127.0.0.1:{live_port}/healthz") == 200, timeout=30), "no live server"
        assert _status(f"http://127.0.0.1:{live_port}/api/v1/tables/1/events?wait=1") == 401  # served, signed in only
        tree = psutil.Process(proc.pid).children(recursive=True)
        names = " ".join(" ".join(p.cmdline()) for p in tree)
        assert "celery -A casino worker" in names and "celery -A casino beat" in names
        assert "uvicorn casino.asgi:application" in names
        # safe defaults: the servers listen on 127.0.0.1 only, and the demo password is this installation's own
        listening = {
            (c.laddr.ip, c.laddr.port)
            for p in tree
            for c in p.net_connections(kind="inet")
            if c.status == psutil.CONN_LISTEN
        }
        assert {port, live_port} <= {p for _, p in listening}, listening
        assert {ip for ip, _ in listening} == {"127.0.0.1"}, f"listening beyond localhost: {listening}"
        password = (ROOT / ".local" / "demo_password").read_text().strip()
        assert len(password) >= 16
        assert _sign_in(base, "alice", password) == 200
        assert _sign_in(base, "alice", "casino-demo-2026") == 400  # the old constant opens nothing
        with psycopg.connect(superuser.replace("postgres://", "postgresql://", 1)) as conn:
            users = {
                row[0]
                for row in conn.execute(
                    "SELECT usename FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend'",
                    [name],
                )
            }
        assert users == {f"{name}_app"}, f"the running casino connects as {users}, not only its application role"
    finally:
        proc.send_signal(signal.SIGINT)
        output = proc.communicate(timeout=60)[0].decode(errors="replace")
    assert "operator" in output and "alice" in output, "demo credentials were not printed"
    assert password in output, "the demo password was not printed"
    assert f"{base}/api/docs/" in output
    still_running = [p for p in tree if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not still_running, f"left running after Ctrl-C: {still_running}"


def test_run_refuses_a_set_database_that_does_not_answer_instead_of_using_another():
    env = {**os.environ, "DATABASE_URL": f"postgres://nobody@127.0.0.1:{free_port()}/x", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "casino.devenv", "run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "DATABASE_URL is set but does not answer" in done.stderr


def test_tests_fall_back_to_the_embedded_redis_when_the_set_one_does_not_answer():
    from casino.devenv import services

    dead = f"redis://127.0.0.1:{free_port()}/0"
    old = os.environ.get("REDIS_URL")
    os.environ["REDIS_URL"] = dead
    try:
        with services() as env:
            assert env["REDIS_URL"] != dead
            import redis

            assert redis.Redis.from_url(env["REDIS_URL"]).ping()
    finally:
        if old is None:
            os.environ.pop("REDIS_URL")
        else:
            os.environ["REDIS_URL"] = old
