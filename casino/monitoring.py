"""Records of operations that the dashboard and the metrics read: failed verifications and reconciliation runs.

Both are written where the check runs (the admin, the management commands, the API, the beat task) and are
never edited. They are small tables read newest first through an index on ``at``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from casino.models import ReconcileRun, VerificationFailure
from ledger.reconcile import reconcile

log = logging.getLogger("casino.monitoring")


def record_verification_failure(
    *, table_id: int, hand_id: int | None, hand_number: int | None, checks: Mapping[str, str], source: str
) -> None:
    """Keep a failed verification (only its failing checks) and log it."""
    failing = {name: text for name, text in checks.items() if text != "ok"}
    if not failing:
        return
    what = f"hand {hand_id} (table {table_id} #{hand_number})" if hand_id is not None else f"table {table_id} chain"
    log.error("verification failed: %s: %s (%s)", what, ", ".join(failing), source)
    VerificationFailure.objects.create(
        table_id=table_id, hand_id=hand_id, hand_number=hand_number, checks=failing, source=source
    )


def record_reconcile_run(report: Any, *, seconds: float, source: str) -> ReconcileRun:
    """Keep the outcome of a reconciliation (``ledger.reconcile.Report``)."""
    failed = [check.name for check in report.checks if not check.ok]
    if failed:
        differences = report.total_differences
        log.error("ledger reconciliation: %s difference(s) in %s (%s)", differences, ", ".join(failed), source)
    return ReconcileRun.objects.create(
        ok=report.ok, differences=report.total_differences, seconds=seconds, source=source, failed_checks=failed
    )


def reconcile_and_record(*, source: str, limit: int = 20, on_check: Any = None) -> tuple[Any, ReconcileRun]:
    """Run the ledger reconciliation and record its outcome; return (report, run)."""
    started = time.monotonic()
    report = reconcile(limit=limit, on_check=on_check)
    run = record_reconcile_run(report, seconds=time.monotonic() - started, source=source)
    return report, run
