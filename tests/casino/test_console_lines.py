"""The console of a real server (issue 32): one line per request, a 4xx included, and a refused admin lookup as one
WARNING line instead of an ERROR with a traceback; in JSON, every line's time in ISO 8601 UTC. The servers are
started with the Procfile's own commands (what `make run` runs)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import uuid
from pathlib import Path

import pytest
import requests

from tests.conftest import ROOT, child_database_url, free_port, wait_for
from tests.support.staff import staff_user

ISO_UTC = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")


def procfile_command(name: str, env: dict[str, str]) -> str:
    """The Procfile's command for ``name``, its ``${VAR:-default}`` expanded from ``env``."""
    line = next(ln for ln in (ROOT / "Procfile").read_text().splitlines() if ln.startswith(f"{name}:"))
    command = line.split(":", 1)[1].strip()
    return re.sub(r"\$\{(\w+):-([^}]*)\}", lambda m: env.get(m.group(1)) or m.group(2), command)


def _serve(name: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        ["bash", "-c", "exec " + procfile_command(name, env)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )


def _stop(proc: subprocess.Popen[str]) -> list[str]:
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        output = proc.communicate(timeout=20)[0]
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output = proc.communicate()[0]
    return output.splitlines()


def _request_lines(lines: list[str]) -> tuple[list[dict[str, object]], list[str]]:
    """The JSON lines from the first request line on, and whatever else was printed from there."""
    parsed: list[dict[str, object]] = []
    others: list[str] = []
    started = False
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            record = None
        if isinstance(record, dict) and record.get("logger") == "casino.request":
            started = True
        if not started:
            continue
        if isinstance(record, dict):
            parsed.append(record)
        elif line.strip():
            others.append(line)
    return parsed, others


@pytest.fixture
def server_env(child_env) -> dict[str, str]:
    env = {**child_env, "DATABASE_URL": child_database_url(), "LOG_FORMAT": "json", "HOST": "127.0.0.1"}
    env.update(CSRF_COOKIE_SECURE="0", SESSION_COOKIE_SECURE="0")  # plain HTTP here, like make run
    env["PATH"] = f"{Path(os.sys.executable).parent}{os.pathsep}{env['PATH']}"
    return env


@pytest.mark.django_db(transaction=True)
def test_runserver_prints_one_json_line_per_request_and_a_refused_lookup_as_a_warning(server_env):
    password = uuid.uuid4().hex
    staff_user("console-admin", "superuser", password=password)
    port = free_port()
    proc = _serve("web", {**server_env, "PORT": str(port)})
    base = f"http://127.0.0.1:{port}"
    sent: list[str] = []

    def get(session: requests.Session, path: str, **kwargs: object) -> requests.Response:
        request_id = f"console-{len(sent)}-{uuid.uuid4().hex[:8]}"
        sent.append(request_id)
        return session.request(
            kwargs.pop("method", "GET"), base + path, headers={"X-Request-ID": request_id}, timeout=30, **kwargs
        )

    try:
        assert wait_for(lambda: _up(f"{base}/healthz"), 60), "runserver never answered"
        session = requests.Session()
        assert get(session, "/api/v1/tables").status_code == 401
        assert get(session, "/no/such/page").status_code == 404
        assert get(session, "/admin/login/").status_code == 200
        login = get(
            session,
            "/admin/login/",
            method="POST",
            data={"username": "console-admin", "password": password, "next": "/admin/",
                  "csrfmiddlewaretoken": session.cookies["csrftoken"]},
            allow_redirects=False,
        )  # fmt: skip
        assert login.status_code == 302, login.text[:500]
        assert get(session, "/admin/casino/player/?password__regex=^md5").status_code == 400
    finally:
        lines = _stop(proc)
    records, others = _request_lines(lines)
    assert not others, f"lines besides the request lines: {others}"
    by_id = {}
    for record in records:
        assert record["logger"] == "casino.request", record
        assert ISO_UTC.fullmatch(str(record["time"])), record["time"]
        by_id.setdefault(record["request_id"], []).append(record)
    assert sorted(by_id) == sorted(sent), "not exactly one line per request"
    assert all(len(v) == 1 for v in by_id.values())
    refused = by_id[sent[-1]][0]
    assert refused["level"] == "WARNING" and refused["status"] == 400
    assert refused["outcome"] == "DisallowedModelAdminLookup" and "password__regex" in str(refused["reason"])
    assert [r["level"] for r in records if r["request_id"] != sent[-1]] == ["INFO"] * (len(sent) - 1)
    assert not any("Traceback" in line or '"ERROR"' in line for line in lines)


@pytest.mark.django_db(transaction=True)
def test_the_live_server_prints_one_line_per_request_too(server_env):
    port = free_port()
    proc = _serve("live", {**server_env, "LIVE_PORT": str(port)})
    base = f"http://127.0.0.1:{port}"
    try:
        assert wait_for(lambda: _up(f"{base}/healthz"), 60), "the live server never answered"
        ids = [f"live-{i}-{uuid.uuid4().hex[:8]}" for i in range(2)]
        assert (
            requests.get(f"{base}/api/v1/tables/1/events?wait=1", headers={"X-Request-ID": ids[0]}).status_code == 401
        )
        assert requests.get(f"{base}/nothing/here", headers={"X-Request-ID": ids[1]}).status_code == 404
    finally:
        lines = _stop(proc)
    records, others = _request_lines(lines)
    others = [ln for ln in others if "Shutting down" not in ln and "Finished server process" not in ln]
    assert not others, f"lines besides the request lines (an access log?): {others}"
    assert sorted(r["request_id"] for r in records if r["logger"] == "casino.request") == sorted(ids)


def _up(url: str) -> bool:
    try:
        return requests.get(url, timeout=2).status_code == 200
    except requests.RequestException:
        return False
