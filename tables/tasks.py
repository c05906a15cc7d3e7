"""Celery tasks of the tables: thin (ids in, one service call, retry policy only)."""

from __future__ import annotations

from typing import Any

from celery import shared_task


@shared_task(name="tables.fire_timeout", bind=True, acks_late=True, ignore_result=True, max_retries=None)
def fire_timeout(self: Any, table_id: int, version: int) -> int:
    """The deadline of the wait at ``version`` passed: time the table out if it still waits there. Delivered
    before the deadline (on the database's clock: a worker clock running ahead), it waits for it."""
    from tables.services import TimeoutNotDue, table_timeout

    try:
        return table_timeout(table_id=table_id, version=version)
    except TimeoutNotDue as early:
        raise self.retry(countdown=early.remaining_ms / 1000) from None


@shared_task(name="tables.sweep_timeouts", ignore_result=True)
def sweep_timeouts() -> int:
    """Fire every deadline that passed more than the grace period ago (lost or late timer messages)."""
    from tables.services import sweep_overdue_tables

    return sweep_overdue_tables()
