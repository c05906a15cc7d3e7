"""``manage.py game_audit (--month YYYY-MM | --start DATE --end DATE) [--tables ID ...] [--out PATH]``: the
game-output audit of a period from the event store, stored (the admin's page, the metric) and written as the
monthly report (PATH.csv, PATH.json). Exit status 1 when a table is flagged."""

from __future__ import annotations

import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from certify import monthly
from certify.services import audit_period


def _day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC) if "+" not in text else datetime.fromisoformat(text)


class Command(BaseCommand):
    help = "Audit what the tables paid and dealt in a period against exact values; write the monthly report."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--month", help="YYYY-MM (UTC)")
        parser.add_argument("--start", help="ISO date or time (UTC unless it says otherwise), inclusive")
        parser.add_argument("--end", help="ISO date or time, exclusive")
        parser.add_argument("--tables", type=int, nargs="*", help="table ids (default: every table)")
        parser.add_argument("--out", help="report path without suffix (default: audit-<period>)")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["month"]:
            start, end = monthly.month_bounds(options["month"])
        elif options["start"] and options["end"]:
            start, end = _day(options["start"]), _day(options["end"])
        else:
            raise CommandError("give --month, or --start and --end")
        run = audit_period(start, end, options["tables"])
        out = Path(options["out"] or f"audit-{start:%Y-%m-%d}-{end:%Y-%m-%d}")
        csv_path, json_path = monthly.write(run, out)
        flagged = ", ".join(str(t) for t in run.flagged_tables) or "none"
        self.stdout.write(
            f"{run.hands:,} hands audited in {run.seconds:.1f} s; flagged tables: {flagged}; {csv_path}, {json_path}"
        )
        if run.flagged_tables:
            sys.exit(1)
