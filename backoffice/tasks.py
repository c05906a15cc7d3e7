"""Infrastructure tasks: the smoke test's ping, the idempotency retention purge and the ledger reconciliation
on beat (docs/operations.md)."""

from __future__ import annotations

from datetime import timedelta

from celery import shared_task
from django.conf import settings
from django.utils import timezone

from backoffice import metrics
from backoffice.monitoring import reconcile_and_record
from kit import requestlog
from tables.models import IdempotencyRecord

PURGE_BATCH = 5000


@shared_task(name="casino.ping")
def ping(payload: str = "pong") -> str:
    """Echo the payload: the smoke test's round trip through a real broker and worker."""
    return payload


def purge_idempotency(*, older_than: timedelta | None = None, batch: int = PURGE_BATCH) -> int:
    """Delete the API's stored idempotent answers older than the retention (``IDEMPOTENCY_RETENTION_HOURS``), in
    batches of ``batch`` rows (short transactions, no long lock); return how many were deleted."""
    cutoff = timezone.now() - (older_than or timedelta(hours=settings.IDEMPOTENCY_RETENTION_HOURS))
    deleted = 0
    while True:
        ids = list(
            IdempotencyRecord.objects.filter(created_at__lt=cutoff)
            .order_by("created_at")
            .values_list("pk", flat=True)[:batch]
        )
        if not ids:
            return deleted
        deleted += IdempotencyRecord.objects.filter(pk__in=ids).delete()[0]


@shared_task(name="casino.purge_idempotency_records", ignore_result=True)
def purge_idempotency_records() -> int:
    deleted = purge_idempotency()
    requestlog.note(deleted=deleted, outcome="purged" if deleted else "idle", quiet=not deleted)
    return deleted


@shared_task(name="casino.reconcile_ledger", ignore_result=True)
def reconcile_ledger() -> bool:
    """Reconcile the ledger and record the outcome (dashboard, ``casino_ledger_reconcile_*``)."""
    report, run = reconcile_and_record(source="beat")
    metrics.RECONCILE_RUNS.labels(str(report.ok).lower()).inc()
    requestlog.note(
        outcome="ok" if report.ok else "differences",
        differences=report.total_differences,
        seconds=round(run.seconds, 2),
        quiet=report.ok,  # a clean hourly check says nothing (the dashboard and /metrics show it); a difference does
    )
    return bool(report.ok)
