"""/healthz and requests during a database outage, from gunicorn with psycopg's pool as in production (issue 34).

A load balancer must see the outage as a 503, promptly, from every web process. The soak once found health checks
answered by connection resets while PostgreSQL was down; here the server is hung (every process SIGSTOPped: the
kernel accepts connections and nothing answers, the worst case for a client) and then killed, on a private
cluster of the test's own (devtools/pgcluster.py), while probes come from several clients at once.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from devtools.pgcluster import Cluster
from kit.health import CHECK_TIMEOUT_S
from tests.conftest import free_port, wait_for

PROBES = 8  # at once (as many as a worker has threads: the kernel may give them all to one worker)


@pytest.fixture
def cluster() -> Iterator[Cluster]:
    directory = Path(tempfile.mkdtemp(prefix="casino-health-pg-"))
    os.chmod(directory, 0o755)  # the server runs as the postgres OS user when we are root
    server = Cluster(directory / "pg")
    try:
        server.init()
        yield server
    finally:
        server.resume()
        server.stop("immediate")
        shutil.rmtree(directory, ignore_errors=True)


def probe(url: str, headers: dict[str, str] | None = None) -> tuple[int | None, dict[str, str], float, str | None]:
    """(status or None for no answer, body, seconds taken, Retry-After)."""
    started = time.monotonic()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers or {}), timeout=15) as response:
            return response.status, json.loads(response.read()), time.monotonic() - started, None
    except urllib.error.HTTPError as error:
        body = json.loads(error.read())
        return error.code, body, time.monotonic() - started, error.headers.get("Retry-After")
    except OSError as error:
        return None, {"error": error.__class__.__name__}, time.monotonic() - started, None


def probes(url: str) -> list[tuple[int | None, dict[str, str], float, str | None]]:
    with ThreadPoolExecutor(PROBES) as pool:
        return list(pool.map(probe, [url] * PROBES))


def test_healthz_says_503_promptly_from_every_worker_while_the_database_hangs_or_dies(spawn, child_env, cluster):
    port = free_port()
    env = {
        **child_env,
        "DJANGO_SETTINGS_MODULE": "casino.settings",  # production's: psycopg's pool, with its checks
        "DATABASE_URL": cluster.url(),
        "DEBUG": "0",
        "SECRET_KEY": "health-outage-test",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "DB_POOL_MAX": "2",
    }
    gunicorn = ["-m", "gunicorn", "casino.wsgi:application", "--bind", f"127.0.0.1:{port}", "--workers", "2",
                "--worker-class", "gthread", "--threads", str(PROBES), "--timeout", "60"]  # fmt: skip
    # its output to a file: spawn's pipe is never read, and once full it would stall every thread that logs (each
    # 503 logs its traceback)
    log = cluster.directory.parent / "gunicorn.log"
    spawn(["-c", f"import os, sys; fd = os.open({str(log)!r}, os.O_WRONLY | os.O_CREAT); os.dup2(fd, 1); "
           f"os.dup2(fd, 2); os.execv(sys.executable, [sys.executable, *{gunicorn!r}])"], env=env)  # fmt: skip
    url = f"http://127.0.0.1:{port}/healthz"
    healthy = wait_for(lambda: all(status == 200 for status, *_ in probes(url)), timeout=60, interval=0.2)
    assert healthy, "the workers never all became healthy"

    cluster.hang()
    try:
        for _ in range(2):  # and again while the first round's checks still hang
            for status, body, took, retry_after in probes(url):
                assert status == 503, body
                assert body["database"].startswith("error") and body["redis"] == "ok"
                assert retry_after == "1"
                assert took < CHECK_TIMEOUT_S + 2, f"{took:.1f}s"
    finally:
        cluster.resume()
    assert wait_for(lambda: probe(url)[0] == 200, timeout=20, interval=0.2), "not healthy after the server resumed"

    # killed, while as many API requests as probes want a connection: each request is answered 503 once the pool
    # gives up (casino/dbpool.py: about 2 s, not DB_POOL_TIMEOUT's 10), so no probe queues behind them for long
    cluster.kill()
    api = f"http://127.0.0.1:{port}/api/v1/tables"
    with ThreadPoolExecutor(2 * PROBES) as pool:
        requests = [pool.submit(probe, api, {"Authorization": "Token " + "0" * 64}) for _ in range(PROBES)]
        time.sleep(0.2)
        health = [pool.submit(probe, url) for _ in range(PROBES)]
        for status, body, took, retry_after in (r.result() for r in requests):
            assert status == 503 and retry_after == "1", body
            assert took < 6, f"an API request took {took:.1f}s"
        for status, body, took, _ in (h.result() for h in health):
            assert status == 503 and body["database"].startswith("error"), body
            assert took < 6, f"a probe took {took:.1f}s"
    cluster.start()
    assert wait_for(lambda: probe(url)[0] == 200, timeout=20, interval=0.2), "not healthy after the restart"
