"""Celery tasks of the tables: thin (ids in, one service call, retry policy only).

Each task's log line (request id, table, outcome) is written by ``casino.celery``'s signals; the sweepers' only
when they did something, and a timer's only when it fired (not when its table had moved on), so an idle casino
writes nothing.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from kit import requestlog
from tables import metrics, seat_release
from tables.after_commit import FIRE_TIMEOUT, SIGN_CHECKPOINTS
from tables.errors import TimeoutNotDue
from tables.services import sweep_idle_seats, sweep_overdue_tables, table_timeout
from tables.signer import pending_tables, sign_table


@shared_task(name=FIRE_TIMEOUT, bind=True, acks_late=True, ignore_result=True, max_retries=None)
def fire_timeout(self: Any, table_id: int, version: int) -> int:
    """The deadline of the wait at ``version`` passed: time the table out if it still waits there. Delivered
    before the deadline (on the database's clock: a worker clock running ahead), it waits for it."""
    try:
        appended = table_timeout(table_id=table_id, version=version)
    except TimeoutNotDue as early:
        requestlog.note(table=table_id, version=version, outcome="not_due_yet")
        raise self.retry(countdown=early.remaining_ms / 1000) from None
    if appended:
        metrics.TIMEOUTS_FIRED.labels("timer").inc()
    # a timer whose table moved on (someone acted in time: the usual case) did nothing, and says nothing
    requestlog.note(
        table=table_id,
        version=version,
        events=appended,
        outcome="fired" if appended else "moved_on",
        quiet=not appended,
    )
    return appended


@shared_task(name="tables.sweep_timeouts", ignore_result=True)
def sweep_timeouts() -> int:
    """Fire every deadline that passed more than the grace period ago (lost or late timer messages)."""
    fired = sweep_overdue_tables()
    metrics.SWEEPER_RUNS.inc()
    if fired:
        metrics.SWEEPER_CATCHUPS.inc(fired)
        metrics.TIMEOUTS_FIRED.labels("sweeper").inc(fired)
    requestlog.note(fired=fired, outcome="fired" if fired else "idle", quiet=not fired)
    return fired


@shared_task(name=SIGN_CHECKPOINTS, acks_late=True, ignore_result=True)
def sign_checkpoints(table_id: int) -> int | None:
    """The signer (its own queue and process): replay what ended at the table since its latest checkpoint, then
    sign it or refuse (tables/signer.py)."""
    outcome = sign_table(table_id)
    requestlog.note(
        table=table_id,
        version=outcome.signed,
        outcome="refused" if outcome.refused else "signed" if outcome.signed else "nothing",
        quiet=not outcome.signed and not outcome.refused,
    )
    return outcome.signed


@shared_task(name="tables.sign_pending_checkpoints", ignore_result=True)
def sign_pending_checkpoints() -> int:
    """Sign every table whose last hand end is not signed yet (a lost message, a signer that was down)."""
    signed = 0
    for table_id in pending_tables():
        signed += sign_table(table_id).signed is not None
    requestlog.note(signed=signed, outcome="signed" if signed else "idle", quiet=not signed)
    return signed


@shared_task(name="tables.release_idle_seats", ignore_result=True)
def release_idle_seats() -> int:
    """Release the seats that took part in no hand for a while (API.md v1.2 seats; tables/idle_seats.py)."""
    released = sweep_idle_seats()
    requestlog.note(released=released, outcome="released" if released else "idle", quiet=not released)
    return released


@shared_task(name="responsible.sweep", ignore_result=True)
def responsible_sweep() -> dict[str, int]:
    """Lapse expired raise requests, end finished exclusions, release the seats of players whose session limit
    is used up or who are excluded (after the hand in play). Logs a line only when it did something."""
    counts = seat_release.sweep()
    did = sum(counts.values())
    requestlog.note(**counts, outcome="done" if did else "idle", quiet=not did)
    return counts
