"""Celery tasks of the tables: thin (ids in, one service call, retry policy only).

Each task's log line (request id, table, outcome) is written by ``casino.celery``'s signals; the sweeper's only
when it fired something, so an idle casino writes nothing.
"""

from __future__ import annotations

from celery import shared_task

from casino import metrics, requestlog


@shared_task(name="tables.fire_timeout", acks_late=True, ignore_result=True)
def fire_timeout(table_id: int, version: int) -> int:
    """The deadline of the wait at ``version`` passed: time the table out if it still waits there."""
    from tables.services import table_timeout

    appended = table_timeout(table_id=table_id, version=version)
    if appended:
        metrics.TIMEOUTS_FIRED.labels("timer").inc()
    requestlog.note(table=table_id, version=version, events=appended, outcome="fired" if appended else "moved_on")
    return appended


@shared_task(name="tables.sweep_timeouts", ignore_result=True)
def sweep_timeouts() -> int:
    """Fire every deadline that passed more than the grace period ago (lost or late timer messages)."""
    from tables.services import sweep_overdue_tables

    fired = sweep_overdue_tables()
    metrics.SWEEPER_RUNS.inc()
    if fired:
        metrics.SWEEPER_CATCHUPS.inc(fired)
        metrics.TIMEOUTS_FIRED.labels("sweeper").inc(fired)
    requestlog.note(fired=fired, outcome="fired" if fired else "idle", quiet=not fired)
    return fired
