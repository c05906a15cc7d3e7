"""The Celery worker survives a Redis restart while it holds timer messages (issue 16, casino/worker.py).

Found by the soak: Celery 5.7.0 died with "Unrecoverable error: AttributeError" when the broker connection was
lost while reserved (unacknowledged) messages were on its channel, which is exactly what our timers are, and
again when a task running across the outage acknowledged its message after the reconnect. Here a worker runs on
a Redis of the test's own, that Redis is killed and started again, and the worker must stay up, reconnect, and
run the next task. (The first test fails without casino/worker.py; the second, a task running across the
restart, did not reproduce the soak's crash of the second kind on its own: the soak is its test.)
"""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import psycopg
import pytest
from celery import Celery

from soak.services import PrivateRedis
from tests.conftest import child_database_url, wait_for
from tests.support.play import make_table

pytestmark = pytest.mark.django_db(transaction=True)  # the worker's task reads the test database


def _log(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def _restart(redis: PrivateRedis, logfile: Path) -> None:
    redis.kill()
    time.sleep(1.5)
    redis.start()
    assert wait_for(lambda: "Connected to redis" in _log(logfile).split("Connection to broker lost")[-1], 60), _log(
        logfile
    )[-3000:]


def _worker(spawn, celery_env, queue: str, redis: PrivateRedis, logfile: Path):  # type: ignore[no-untyped-def]
    env = {**celery_env, "REDIS_URL": redis.url, "CELERY_BROKER_URL": redis.url, "CELERY_RESULT_BACKEND": redis.url,
           "LOG_CELERY_TASK_LINES": "1",  # Celery's own "received" / "succeeded" lines, which this test reads
           "REDIS_KEY_PREFIX": ""}  # a Redis of its own: the queue is named as the test's plain sender names it
    worker = spawn(
        ["-m", "celery", "-A", "casino", "worker", "-Q", queue, "--concurrency=1", "--loglevel=INFO",
         "--without-gossip", "--without-mingle", "--without-heartbeat", "--logfile", str(logfile),
         "--hostname", f"{queue}@%h"],
        env=env,
    )  # fmt: skip
    assert wait_for(lambda: "ready." in _log(logfile), 60), _log(logfile)[-3000:]
    return worker


def test_a_task_running_across_a_redis_restart_is_acknowledged_without_killing_the_worker(
    spawn, celery_env, queue, tmp_path
) -> None:
    redis = PrivateRedis(tmp_path / "redis")
    redis.start()
    logfile = tmp_path / "worker.log"
    table = make_table("classic", bank="house", turn_timeout_s=1, betting_timeout_s=1)
    try:
        worker = _worker(spawn, celery_env, queue, redis, logfile)
        with psycopg.connect(child_database_url().replace("postgres://", "postgresql://", 1)) as blocker:
            blocker.execute("SELECT 1 FROM tables_table WHERE id = %s FOR UPDATE", [table.pk])  # the task waits
            Celery(broker=redis.url, set_as_current=False).send_task(
                "tables.fire_timeout", args=[table.pk, 1], queue=queue
            )
            assert wait_for(lambda: "received" in _log(logfile), 30), _log(logfile)[-3000:]
            time.sleep(1)  # it is running, on the row lock
            _restart(redis, logfile)
        # the lock is gone: the task finishes now and acknowledges its message, delivered before the restart
        assert wait_for(lambda: "succeeded" in _log(logfile), 60), _log(logfile)[-3000:]
        time.sleep(2)
        assert worker.poll() is None, _log(logfile)[-3000:]
        assert "Unrecoverable error" not in _log(logfile)
        Celery(broker=redis.url, set_as_current=False).send_task("tables.fire_timeout", args=[10**12, 2], queue=queue)
        assert wait_for(lambda: _log(logfile).count("succeeded") >= 2, 60), _log(logfile)[-3000:]
    finally:
        redis.kill()


def test_the_worker_reconnects_after_redis_restarts_under_its_reserved_timers(
    spawn, celery_env, queue, tmp_path
) -> None:
    redis = PrivateRedis(tmp_path / "redis")
    redis.start()
    logfile = tmp_path / "worker.log"
    try:
        worker = _worker(spawn, celery_env, queue, redis, logfile)
        sender = Celery(broker=redis.url, set_as_current=False)
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

        sender = Celery(broker=redis.url, set_as_current=False)
        sender.send_task("tables.fire_timeout", args=[10**12, 2], queue=queue)
        assert wait_for(lambda: "succeeded" in _log(logfile), 60), _log(logfile)[-3000:]
    finally:
        redis.kill()
