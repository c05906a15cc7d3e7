"""The monthly report in the laboratories' format: one CSV row per table (and the same rows, with every figure
behind them, as JSON), written from a stored :class:`~certify.models.AuditRun`."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from pathlib import Path

from certify.models import AuditRun

#: The CSV's columns, in order (``certify.services.lab_row``'s keys).
COLUMNS: tuple[str, ...] = (
    "period",
    "table",
    "game",
    "hands",
    "turnover",
    "paid",
    "actual_rtp",
    "theoretical_rtp",
    "best_play_rtp",
    "expected_rtp",
    "deviation",
    "interval",
    "flag",
)


def month_bounds(month: str) -> tuple[datetime, datetime]:
    """``"2026-11"`` -> (2026-11-01, 2026-12-01), UTC."""
    start = datetime.strptime(month, "%Y-%m").replace(tzinfo=UTC)
    end = start.replace(year=start.year + 1, month=1) if start.month == 12 else start.replace(month=start.month + 1)
    return start, end


def write(run: AuditRun, path: Path) -> tuple[Path, Path]:
    """``path``.csv (the lab rows) and ``path``.json (the whole report); returns both paths."""
    csv_path, json_path = path.with_suffix(".csv"), path.with_suffix(".json")
    with csv_path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        writer.writeheader()
        for row in run.report.get("rows", []):
            writer.writerow({c: "" if row[c] is None else row[c] for c in COLUMNS})
    json_path.write_text(json.dumps(run.report, indent=2) + "\n")
    return csv_path, json_path
