"""A real Celery worker, in its own process, on the real Redis broker, returns a task's result."""

from __future__ import annotations

from backoffice.tasks import ping
from tests.conftest import celery_worker_args


def test_a_real_worker_returns_a_task_result_through_redis(spawn):
    worker = spawn(celery_worker_args("smoke", pool="solo"))
    result = ping.apply_async(args=["hello from the smoke test"], queue="smoke")
    assert result.get(timeout=60) == "hello from the smoke test"
    assert worker.poll() is None, "the worker died"
