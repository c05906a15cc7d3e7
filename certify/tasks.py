"""The monthly audit on beat (thin: one service call)."""

from __future__ import annotations

from celery import shared_task

from certify.services import audit_last_month


@shared_task(name="certify.audit_last_month", acks_late=True, ignore_result=True)
def audit_last_month_task() -> int | None:
    """Audit last month (UTC) unless it has been audited; the run's id, or None when there was nothing to do."""
    run = audit_last_month()
    return None if run is None else run.pk
