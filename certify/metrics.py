"""The audit's figures for ``/metrics`` (read at scrape time by ``backoffice.metrics.DatabaseCollector``)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily

from certify.models import AuditRun


def collect() -> Iterator[GaugeMetricFamily]:
    """``casino_audit_flagged_tables`` (tables the latest audit flagged; -1 before any audit) and when it ran."""
    run = AuditRun.objects.order_by("-started_at", "-id").first()
    yield GaugeMetricFamily(
        "casino_audit_flagged_tables",
        "Tables whose play the latest game-output audit flagged (return or frequencies outside their interval; "
        "-1: never audited)",
        value=-1 if run is None else len(run.flagged_tables),
    )
    yield GaugeMetricFamily(
        "casino_audit_last_run_timestamp_seconds",
        "When the latest game-output audit ran (0: never)",
        value=0 if run is None else run.started_at.timestamp(),
    )
