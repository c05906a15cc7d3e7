"""Celery tasks of the tables: thin (ids in, one service call, retry policy only)."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="tables.fire_timeout", acks_late=True, ignore_result=True)
def fire_timeout(table_id: int, version: int) -> int:
    """The deadline of the wait at ``version`` passed: time the table out if it still waits there."""
    from tables.services import table_timeout

    return table_timeout(table_id=table_id, version=version)


@shared_task(name="tables.sweep_timeouts", ignore_result=True)
def sweep_timeouts() -> int:
    """Fire every deadline that passed more than the grace period ago (lost or late timer messages)."""
    from tables.services import sweep_overdue_tables

    return sweep_overdue_tables()
