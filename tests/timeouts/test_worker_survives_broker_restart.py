"""The Celery worker survives a Redis restart while it holds timer messages (issue 16, casino/worker.py).

Found by the soak: Celery 5.7.0 died with "Unrecoverable error: AttributeError" when the broker connection was
lost while reserved (unacknowledged) ETA messages were on its channel, which is exactly what our timers are.
Here a worker runs on a Redis of the test's own, holds a timer message due in five minutes, and that Redis is
killed and started again: the worker must stay up, reconnect, and run the next task.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from celery import Celery

from bench.soak import PrivateRedis
from tests.conftest import wait_for

pytestmark = pytest.mark.django_db(transaction=True)  # the worker's task reads the test database


def _log(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def test_the_worker_reconnects_after_redis_restarts_under_its_reserved_timers(
    spawn, celery_env, queue, tmp_path
) -> None:
    redis = PrivateRedis(tmp_path / "redis")
    redis.start()
    logfile = tmp_path / "worker.log"
    env = {**celery_env, "REDIS_URL": redis.url, "CELERY_BROKER_URL": redis.url, "CELERY_RESULT_BACKEND": redis.url}
    try:
        worker = spawn(
            ["-m", "celery", "-A", "casino", "worker", "-Q", queue, "--concurrency=1", "--loglevel=INFO",
             "--without-gossip", "--without-mingle", "--without-heartbeat", "--logfile", str(logfile),
             "--hostname", f"{queue}@%h"],
            env=env,
        )  # fmt: skip
        assert wait_for(lambda: "ready." in _log(logfile), 60), _log(logfile)[-3000:]
        sender = Celery(broker=redis.url)
        later = datetime.now(UTC) + timedelta(minutes=5)
        sender.send_task("tables.fire_timeout", args=[10**12, 1], eta=later, queue=queue)  # a table that is not
        assert wait_for(lambda: "received" in _log(logfile), 30), _log(logfile)[-3000:]  # reserved, unacked

        redis.kill()
        time.sleep(1.5)
        redis.start()
        assert wait_for(lambda: "Connected to redis" in _log(logfile).split("Connection to broker lost")[-1], 60), _log(
            logfile
        )[-3000:]
        assert worker.poll() is None, _log(logfile)[-3000:]
        assert "Unrecoverable error" not in _log(logfile)

        sender = Celery(broker=redis.url)
        sender.send_task("tables.fire_timeout", args=[10**12, 2], queue=queue)
        assert wait_for(lambda: "succeeded" in _log(logfile), 60), _log(logfile)[-3000:]
    finally:
        redis.kill()
