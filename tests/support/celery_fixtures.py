"""A real Celery worker (and beat) of the test's own, on real Redis, against the test database."""

from __future__ import annotations

import socket
import subprocess
import uuid

import pytest

from tests.conftest import celery_worker_args, child_database_url, wait_for


@pytest.fixture
def queue(settings) -> str:
    """A queue of this test's own, so no other run's timers reach its worker; timers on in this process."""
    name = f"timers-{uuid.uuid4().hex[:12]}"
    settings.TABLE_TIMERS = True
    settings.TABLE_TIMER_QUEUE = name
    return name


@pytest.fixture
def celery_env(queue, child_env) -> dict[str, str]:
    url = child_database_url()
    return {
        **child_env,
        "DATABASE_URL": url,  # the test database
        "TABLE_TIMERS": "1",
        "TABLE_TIMER_QUEUE": queue,
        "TIMEOUT_SWEEP_INTERVAL_S": "0.5",
        "TIMEOUT_SWEEP_GRACE_S": "0.5",
    }


@pytest.fixture
def start_worker(spawn, celery_env, queue):
    def start() -> subprocess.Popen[bytes]:
        worker = spawn(celery_worker_args(queue, pool="threads", concurrency=4, hostname=f"{queue}@%h"), env=celery_env)
        from casino.celery import app

        assert wait_for(lambda: app.control.ping(destination=[f"{queue}@{socket.gethostname()}"], timeout=0.5), 30), (
            "the worker did not come up"
        )
        return worker

    return start


@pytest.fixture
def start_beat(spawn, celery_env, tmp_path):
    def start() -> subprocess.Popen[bytes]:
        return spawn(
            [
                "-m",
                "celery",
                "-A",
                "casino",
                "beat",
                "--loglevel=WARNING",
                "--max-interval",
                "1",
                "--schedule",
                str(tmp_path / "beat-schedule"),
            ],
            env=celery_env,
        )

    return start
