"""A real Celery worker, in its own process, on the real Redis broker, returns a task's result."""

from __future__ import annotations

from casino.tasks import ping


def test_a_real_worker_returns_a_task_result_through_redis(spawn):
    worker = spawn(
        [
            "-m",
            "celery",
            "-A",
            "casino",
            "worker",
            "--pool=solo",
            "--loglevel=WARNING",
            "--without-heartbeat",
            "--without-gossip",
            "--without-mingle",
            "-Q",
            "smoke",
        ]
    )
    result = ping.apply_async(args=["hello from the smoke test"], queue="smoke")
    assert result.get(timeout=60) == "hello from the smoke test"
    assert worker.poll() is None, "the worker died"
