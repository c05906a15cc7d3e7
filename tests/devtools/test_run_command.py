"""The README's first command serves the casino (web, live, worker and beat) and Ctrl-C stops all of it."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import pty
import re
import signal
import subprocess
import sys
import termios
import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

import psutil
import psycopg
import pytest
from psycopg import sql

from tests.conftest import ROOT, free_port, wait_for
from tests.devtools.test_readme_tour import run_readme_tour


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


def test_run_serves_everything_the_readme_tour_works_and_ctrl_c_stops_it(tmp_path: Path):
    """One `make run` on a database of its own (dropped first: a newcomer's machine), on free ports, in a terminal
    of its own: it serves health, the admin, the docs and the live server with safe defaults, the README's tour
    works against it word for word (tests/devtools/test_readme_tour.py), and Ctrl-C typed in the terminal stops
    every process it started, `make run` ending with exit code 0."""
    port, live_port = free_port(), free_port()
    superuser = os.environ.get("DATABASE_SUPERUSER_URL")
    if not superuser:
        pytest.skip("`make run` creates its database and roles: needs DATABASE_SUPERUSER_URL (set by `make test`)")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    name = f"{urlsplit(os.environ['DATABASE_URL']).path.lstrip('/')}_runcheck{worker}"  # never another checkout's
    db = urlsplit(superuser)._replace(path=f"/{name}").geturl()
    _drop_database(superuser, name)  # a fresh machine: no demo accounts left by an earlier run (or password)
    env = {**os.environ, "DATABASE_URL": db, "PORT": str(port), "LIVE_PORT": str(live_port), "PYTHONPATH": str(ROOT)}
    for variable in ("DJANGO_SETTINGS_MODULE", "MIGRATE_DATABASE_URL", "DATABASE_SUPERUSER_URL"):
        env.pop(variable, None)
    log = tmp_path / "make-run.log"  # a file, not a pipe: nobody reads while the tour runs
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    terminal, controlled = pty.openpty()  # `make run` as typed in a terminal: Ctrl-C is a keystroke there
    with log.open("wb") as out:
        proc = subprocess.Popen(["make", "run"], cwd=ROOT, env=env, stdin=controlled, stdout=out,
                                stderr=subprocess.STDOUT, preexec_fn=_terminal_of_its_own)  # fmt: skip
    os.close(controlled)
    try:
        base = f"http://127.0.0.1:{port}"
        assert wait_for(lambda: _status(f"{base}/healthz") == 200, timeout=180), "healthz never answered 200"
        assert _status(f"{base}/admin/login/") == 200
        assert _status(f"{base}/api/docs/") == 200
        assert wait_for(lambda: _status(f"http://127.0.0.1:{live_port}/healthz") == 200, timeout=30), "no live server"
        assert _status(f"http://127.0.0.1:{live_port}/api/v1/tables/1/events?wait=1") == 401  # served, signed in only
        # what the launcher started (make and the launcher itself hold the URL they were given: not the servers)
        below_make = psutil.Process(proc.pid).children(recursive=True)
        launcher = next(p for p in below_make if "devtools.devenv" in p.cmdline())
        tree = launcher.children(recursive=True)
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
        assert users <= {f"{name}_app", f"{name}_signer"} and f"{name}_app" in users, (
            f"the running casino connects as {users}, not only its application role and its signer"
        )
        may = "SELECT has_table_privilege(%s, %s, 'INSERT')"
        with psycopg.connect(db.replace("postgres://", "postgresql://", 1)) as conn:  # only the signer signs
            assert conn.execute(may, [f"{name}_app", "public.tables_checkpoint"]).fetchone() == (False,)
            assert conn.execute(may, [f"{name}_signer", "public.tables_checkpoint"]).fetchone() == (True,)
        environments = _environments(tree)
        assert wait_for(lambda: _status(f"{base}/readyz") == 200, timeout=180), "the worker and beat never beat"
        run_readme_tour(port, live_port)
    finally:
        os.write(terminal, b"\x03")  # Ctrl-C
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            raise
        finally:
            os.close(terminal)
            _drop_database(superuser, name)
    output = log.read_text(errors="replace")
    assert code == 0, f"make run ended with {code} after Ctrl-C:\n{output[-2000:]}"
    assert "Interrupt" not in output and "Error" not in output.split("run finished")[-1], output[-2000:]
    _each_process_holds_only_the_credentials_it_uses(environments, name, password)
    assert not re.search(r"\btoken [0-9a-f]{64}\b|\b[0-9a-f]{64}\b", output), "make run printed a token"
    assert "operator" in output and "alice" in output, "demo credentials were not printed"
    assert password in output, "the demo password was not printed"
    assert f"{base}/api/docs/" in output

    def still_running() -> list[psutil.Process]:
        alive = []
        for process in tree:
            with contextlib.suppress(psutil.NoSuchProcess):
                if process.is_running() and process.status() != psutil.STATUS_ZOMBIE:
                    alive.append(process)
        return alive

    assert wait_for(lambda: not still_running(), timeout=30), f"left running after Ctrl-C: {still_running()}"


def _terminal_of_its_own() -> None:
    """In the child: a session of its own whose controlling terminal is its standard input (the pty)."""
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _environments(tree: list[psutil.Process]) -> dict[str, dict[str, str]]:
    """``/proc/<pid>/environ`` of every process of the run, by its command line."""
    found: dict[str, dict[str, str]] = {}
    for process in tree:
        try:
            raw = (Path("/proc") / str(process.pid) / "environ").read_bytes()
            cmdline = " ".join(process.cmdline())
        except (OSError, psutil.Error):
            continue
        pairs = (item.partition(b"=") for item in raw.split(b"\0") if item)
        found[f"{process.pid} {cmdline}"] = {k.decode(): v.decode(errors="replace") for k, _, v in pairs}
    return found


def _each_process_holds_only_the_credentials_it_uses(
    environments: dict[str, dict[str, str]], database: str, demo_password: str
) -> None:
    """Issue #26: the owner's URL reaches only `migrate` (gone by now), the demo password only `seed_demo`, the
    cashier's URL only web (issue #43); the
    processes that deal hold the sealing key, beat and the lab's worker no fairness key; honcho and the shells
    between hold no credential at all."""
    from backoffice import dbprovision

    owner_password = dbprovision.role_password(
        (ROOT / ".local" / "db_role_secret").read_text().strip().encode(), f"{database}_owner"
    )
    keys = ("SEED_SEALING_KEYS", "SEED_SEALING_KEY_FILE", "CHECKPOINT_SIGNING_KEYS", "CHECKPOINT_SIGNING_KEY_FILE")
    servers = {
        "runserver": "web",
        "uvicorn": "live",
        "from multiprocessing": "live",  # uvicorn's worker processes (LIVE_WORKERS) and their resource tracker
        "casino worker --loglevel": "worker",
        "-Q lab": "lab",
        "-Q signer": "signer",
        "beat": "beat",
    }
    seen: set[str] = set()
    assert environments
    for process, env in environments.items():
        values = "\n".join(env.values())
        assert owner_password not in values and "MIGRATE_DATABASE_URL" not in env, f"the owner's URL in {process}"
        assert "DATABASE_SUPERUSER_URL" not in env and "TESTS_DATABASE_URL" not in env, process
        assert demo_password not in values and "DEMO_PASSWORD" not in env, f"the demo password in {process}"
        role = next((r for marker, r in servers.items() if marker in process and "procenv" not in process), None)
        if role is None:  # honcho, the shells it starts, the redis/postgres helpers: nothing secret
            assert not {"DATABASE_URL", "SECRET_KEY", *keys} & env.keys(), f"credentials in {process}"
            continue
        seen.add(role)
        # the cashier's role (issue #43): the web server alone of the servers
        assert ("CASHIER_DATABASE_URL" in env) == (role == "web"), f"{role} and the cashier's URL"
        held = {key for key in keys if key in env}
        if role == "signer":  # its own role, the signing key, the sealing key to open what it replays
            assert f"{database}_signer:" in env.get("DATABASE_URL", ""), process
            assert held == {"CHECKPOINT_SIGNING_KEY_FILE", "SEED_SEALING_KEY_FILE"}, f"the signer holds {held}"
            continue
        assert env.get("DATABASE_URL", "").startswith("postgres://") and f"{database}_app:" in env["DATABASE_URL"]
        assert env.get("CHECKPOINT_SIGNER") == "signer" and env.get("CHECKPOINT_PUBLIC_KEYS"), process
        if role in ("beat", "lab"):
            assert not held, f"{role} holds fairness keys it never uses: {held}"
        else:
            assert held == {"SEED_SEALING_KEY_FILE"}, f"{role} holds {held}: the sealing key only"
    assert {"web", "live", "worker", "beat", "signer"} <= seen, seen


def test_run_refuses_a_set_database_that_does_not_answer_instead_of_using_another():
    env = {**os.environ, "DATABASE_URL": f"postgres://nobody@127.0.0.1:{free_port()}/x", "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "devtools.devenv", "run"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1
    assert "DATABASE_URL is set but does not answer" in done.stderr


def test_tests_fall_back_to_the_embedded_redis_when_the_set_one_does_not_answer():
    from devtools.devenv import services

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
