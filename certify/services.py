"""Running the game-output audit of a period and keeping it (the admin's page, the monthly report, the metric)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime
from fractions import Fraction
from typing import Any

from certify.audit import TableAudit, audit
from certify.hands import settled_hands
from certify.models import AuditRun
from certify.stats import ALPHA, verdict_rule
from rules import TableConfig
from tables.models import Hand
from tables.worth import table_configs, worth_of


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


def audit_period(start: datetime, end: datetime, table_ids: Sequence[int] | None = None) -> AuditRun:
    """Audit the hands settled in ``[start, end)`` at ``table_ids`` (None: all) and store the run."""
    began = time.perf_counter()
    settled = Hand.objects.filter(status="settled", settled_at__gte=start, settled_at__lt=end)
    if table_ids is not None:
        settled = settled.filter(table_id__in=table_ids)
    configs = table_configs(settled.values_list("table_id", flat=True).distinct())
    tables, threshold = audit(settled_hands(start, end, table_ids), configs, _worth)
    return AuditRun.objects.create(
        period_start=start,
        period_end=end,
        tables=list(table_ids or []),
        hands=sum(t.hands for t in tables),
        flagged_tables=[t.table_id for t in tables if t.flagged],
        report=report_data(tables, threshold, start, end),
        seconds=time.perf_counter() - began,
    )
