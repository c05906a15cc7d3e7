"""Running the game-output audit of a period and keeping it (the admin's page, the monthly report, the metric)."""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from fractions import Fraction
from typing import Any

from django.db import connections
from django.db.models import Count
from django.utils import timezone

from certify.audit import TableAudit, TableTally, tally, verdicts
from certify.hands import settled_hands
from certify.models import AuditRun
from certify.stats import ALPHA, verdict_rule
from rules import TableConfig
from tables.models import Hand
from tables.worth import table_configs, worth_of

#: Hands from which an audit runs on every core.
PARALLEL_FROM = 50_000


def _worth(config: TableConfig) -> tuple[Fraction | None, Fraction | None]:
    figure = worth_of(config)
    return figure.flat, figure.best_play


def _decimal(value: float | Fraction | None, places: int = 6) -> str | None:
    return None if value is None else f"{float(value):.{places}f}"


def lab_row(table: TableAudit, start: datetime, end: datetime) -> dict[str, Any]:
    """The laboratories' monthly row of one table (the CSV's and the admin page's columns)."""
    interval = ""
    if table.rtp_low is not None and table.rtp_high is not None:
        interval = f"[{table.rtp_low:.6f}, {table.rtp_high:.6f}]"
    return {
        "period": f"{start:%Y-%m-%d} to {end:%Y-%m-%d}",
        "table": table.table_id,
        "game": f"seven and a half ({table.game}, {table.bank} bank)",
        "hands": table.hands,
        "turnover": table.turnover,
        "paid": table.paid,
        "actual_rtp": _decimal(table.actual_rtp),
        "theoretical_rtp": _decimal(table.flat),
        "best_play_rtp": _decimal(table.best_play),
        "expected_rtp": _decimal(table.expected_rtp),
        "deviation": _decimal(table.deviation),
        "interval": interval,
        "flag": "FLAG" if table.flagged else "",
    }


def report_data(tables: list[TableAudit], threshold: float, start: datetime, end: datetime) -> dict[str, Any]:
    """The whole audit as plain data: the rule, one lab row per table, and every figure behind it."""
    return {
        "kind": "game_audit",
        "period_start": start.isoformat(),
        "period_end": end.isoformat(),
        "rule": verdict_rule(ALPHA),
        "threshold": threshold,
        "rows": [lab_row(t, start, end) for t in tables],
        "figures": {
            str(t.table_id): [
                {
                    "name": f.name,
                    "observed": f.observed,
                    "expected": f.expected,
                    "low": f.low,
                    "high": f.high,
                    "p": f.p,
                    "flag": f.flagged,
                    "trials": f.trials,
                }
                for f in t.figures
            ]
            for t in tables
        },
    }


def _tally_group(job: tuple[datetime, datetime, list[int], dict[int, TableConfig]]) -> dict[int, TableTally]:
    """One worker's share: whole tables, read on its own connection."""
    start, end, ids, configs = job
    try:
        return tally(settled_hands(start, end, ids), configs)
    finally:
        connections.close_all()


def _groups(hands_by_table: dict[int, int], workers: int) -> list[list[int]]:
    """Tables dealt to ``workers`` groups, the largest first to the lightest group."""
    groups: list[tuple[int, list[int]]] = [(0, []) for _ in range(workers)]
    for table_id, n in sorted(hands_by_table.items(), key=lambda item: -item[1]):
        load, ids = min(groups, key=lambda group: group[0])
        groups.remove((load, ids))
        groups.append((load + n, [*ids, table_id]))
    return [ids for _, ids in groups if ids]


def tally_period(
    start: datetime, end: datetime, table_ids: Sequence[int] | None = None, workers: int | None = None
) -> dict[int, TableTally]:
    """The tables' sums over the period; on ``workers`` processes (default: every core once the period holds
    :data:`PARALLEL_FROM` hands or more), each taking whole tables."""
    settled = Hand.objects.filter(status="settled", settled_at__gte=start, settled_at__lt=end)
    if table_ids is not None:
        settled = settled.filter(table_id__in=table_ids)
    hands_by_table = dict(settled.values_list("table_id").annotate(n=Count("*")).order_by())
    configs = table_configs(hands_by_table)
    if workers is None:
        workers = (os.cpu_count() or 1) if sum(hands_by_table.values()) >= PARALLEL_FROM else 1
    groups = _groups(hands_by_table, min(workers, len(hands_by_table)) or 1)
    if len(groups) <= 1:
        return tally(settled_hands(start, end, table_ids), configs)
    connections.close_all()  # each process opens its own
    with multiprocessing.get_context("fork").Pool(len(groups)) as pool:
        parts = pool.map(_tally_group, [(start, end, ids, {i: configs[i] for i in ids}) for ids in groups])
    return {table_id: found for part in parts for table_id, found in part.items()}


def audit_last_month(now: datetime | None = None) -> AuditRun | None:
    """Audit every table over the last whole month (UTC) unless a run of that period over every table exists; on
    one process (a Celery worker's process may not fork its own)."""
    today = (now or timezone.now()).astimezone(UTC)
    end = today.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
    start = (end - timedelta(days=1)).replace(day=1)
    if AuditRun.objects.filter(period_start=start, period_end=end, tables=[]).exists():
        return None
    return audit_period(start, end, workers=1)


def audit_period(
    start: datetime, end: datetime, table_ids: Sequence[int] | None = None, workers: int | None = None
) -> AuditRun:
    """Audit the hands settled in ``[start, end)`` at ``table_ids`` (None: all) and store the run."""
    began = time.perf_counter()
    tables, threshold = verdicts(tally_period(start, end, table_ids, workers), _worth)
    return AuditRun.objects.create(
        period_start=start,
        period_end=end,
        tables=list(table_ids or []),
        hands=sum(t.hands for t in tables),
        flagged_tables=[t.table_id for t in tables if t.flagged],
        report=report_data(tables, threshold, start, end),
        seconds=time.perf_counter() - began,
    )
