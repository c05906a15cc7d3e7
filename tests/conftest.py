"""Shared fixtures. The suite runs against the real PostgreSQL and Redis of DATABASE_URL / REDIS_URL."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def child_database_url() -> str:
    """DATABASE_URL pointing at the test database, for child processes (servers, workers, commands)."""
    from django.db import connection

    return urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{connection.settings_dict['NAME']}").geturl()


def wait_for(predicate, timeout: float, interval: float = 0.05):  # type: ignore[no-untyped-def]
    """Poll predicate until it returns a truthy value or timeout passes; return the last value."""
    deadline = time.monotonic() + timeout
    value = predicate()
    while not value and time.monotonic() < deadline:
        time.sleep(interval)
        value = predicate()
    return value


@pytest.fixture
def child_env() -> dict[str, str]:
    """Environment for child processes (servers, workers) of the tests."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings_test")
    return env


@pytest.fixture
def spawn(child_env: dict[str, str]) -> Iterator:  # type: ignore[type-arg]
    """Start child processes that are terminated (with their children) at the end of the test."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        proc = subprocess.Popen(
            [sys.executable, *args],
            cwd=ROOT,
            env=env or child_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        procs.append(proc)
        return proc

    yield start
    for proc in procs:
        if proc.poll() is None:
            os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
