"""Records of operations that the dashboard and the metrics read: failed verifications and reconciliation runs.

A failed verification is announced by the game (``tables.signals.verification_failed``, wherever the check runs:
the admin, the management commands, the API, the signer) and kept here; a reconciliation is run and kept here
(``manage.py reconcile``, the beat task). Neither is ever edited. They are small tables read newest first
through an index on ``at``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from backoffice.models import ReconcileRun, VerificationFailure
from ledger.reconcile import reconcile
from tables.signals import verification_failed

log = logging.getLogger("backoffice.monitoring")


def record_verification_failure(
    *, table_id: int, hand_id: int | None, hand_number: int | None, checks: Mapping[str, str], source: str, **_: Any
) -> None:
    """Keep a failed verification (``tables.signals.verification_failed``: its failing checks only)."""
    VerificationFailure.objects.create(
        table_id=table_id, hand_id=hand_id, hand_number=hand_number, checks=dict(checks), source=source
    )


def record_reconcile_run(report: Any, *, seconds: float, source: str) -> ReconcileRun:
    """Keep the outcome of a reconciliation (``ledger.reconcile_report.Report``)."""
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


def connect() -> None:
    """Keep every failed verification the game announces (called once, from ``BackofficeConfig.ready``)."""
    verification_failed.connect(record_verification_failure, dispatch_uid="backoffice.record_verification_failure")
