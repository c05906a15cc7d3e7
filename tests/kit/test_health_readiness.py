"""Readiness (issue 32): /readyz includes the Celery worker and beat (and the signer when required), by the
heartbeats real processes write; the compose healthchecks' command reads them; /healthz stays liveness."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

import pytest

from kit import heartbeat
from tests.conftest import ROOT, celery_worker_args, wait_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def prefix(settings) -> str:
    """Heartbeats of this test's own (no other test's or developer's processes count)."""
    settings.HEARTBEAT_PREFIX = f"casino:test-alive:{uuid.uuid4().hex[:12]}:"
    return settings.HEARTBEAT_PREFIX


def test_readyz_names_the_missing_worker_and_beat_and_healthz_does_not_care(client, prefix):
    response = client.get("/readyz")
    assert response.status_code == 503 and response["Retry-After"]
    body = response.json()
    assert body["database"] == "ok" and body["redis"] == "ok"
    assert body["worker"] == "error: never seen" and body["beat"] == "error: never seen"
    assert body["lab_worker"].startswith("not required") and body["signer"].startswith("not required")
    assert client.get("/healthz").status_code == 200  # liveness: this process is fine


def test_readyz_is_ready_once_worker_and_beat_beat_and_not_when_one_goes_stale(client, prefix, settings):
    heartbeat.beat("worker")
    heartbeat.beat("beat")
    response = client.get("/readyz")
    assert response.status_code == 200, response.json()
    assert response.json()["worker"] == "ok" and response.json()["beat"] == "ok"
    old = time.time() - settings.HEARTBEAT_STALE_S - 5
    heartbeat._client().zadd(f"{prefix}beat", {heartbeat.process_name(): old})
    response = client.get("/readyz")
    assert response.status_code == 503 and response.json()["beat"].startswith("error: last seen")


def test_the_signer_joins_readiness_when_required(client, prefix, settings):
    """The hook for the checkpoint signer: it beats as "signer", and READINESS_REQUIRES names it."""
    heartbeat.beat("worker")
    heartbeat.beat("beat")
    settings.READINESS_REQUIRES = ["worker", "beat", "signer"]
    assert client.get("/readyz").json()["signer"] == "error: never seen"
    heartbeat.beat("signer")
    assert client.get("/readyz").status_code == 200


def _healthcheck(kind: str, env: dict[str, str], *extra: str) -> int:
    """The compose healthcheck command of a worker or beat container."""
    return subprocess.run(
        [sys.executable, "-m", "kit.heartbeat", kind, *extra], cwd=ROOT, env=env, capture_output=True, timeout=30
    ).returncode


def test_a_real_worker_lab_worker_and_beat_write_the_heartbeats_the_healthchecks_read(
    spawn, child_env, prefix, settings, client
):
    queue, lab = f"ready-{uuid.uuid4().hex[:8]}", f"lab-{uuid.uuid4().hex[:8]}"
    env = {
        **child_env,
        "HEARTBEAT_PREFIX": prefix,
        "HEARTBEAT_INTERVAL_S": "0.5",
        "TABLE_TIMER_QUEUE": queue,
        "HOUSE_EDGE_QUEUE": lab,
    }
    assert _healthcheck("worker", env, "--here") == 1  # nothing yet: unhealthy
    spawn(celery_worker_args(queue, pool="solo", hostname=f"{queue}@%h"), env=env)
    spawn(celery_worker_args(lab, pool="solo", hostname=f"{lab}@%h"), env=env)
    schedule = f"/tmp/beat-schedule-{uuid.uuid4().hex}"
    spawn(["-m", "celery", "-A", "casino", "beat", "--loglevel=WARNING", f"--schedule={schedule}"], env=env)
    try:
        for kind in ("worker", "lab_worker", "beat"):
            assert wait_for(lambda k=kind: _healthcheck(k, env, "--here") == 0, 60, interval=0.5), f"{kind} never beat"
        response = client.get("/readyz")
        assert response.status_code == 200, response.json()
        assert response.json()["lab_worker"] == "ok"
    finally:
        for suffix in ("", ".db", ".dat", ".dir", ".bak"):
            if os.path.exists(schedule + suffix):
                os.unlink(schedule + suffix)


def test_the_healthcheck_command_loads_no_django_and_says_why():
    env = {"PATH": os.environ["PATH"], "REDIS_URL": os.environ["REDIS_URL"], "HEARTBEAT_PREFIX": "casino:none:"}
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "kit.heartbeat", "beat", "--here"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    assert done.returncode == 1 and "beat: no heartbeat on this host" in done.stderr
    assert "| django" not in done.stderr.replace("  ", " ")
