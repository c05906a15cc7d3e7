"""``manage.py reconcile``: check the ledger against itself; print a report; exit 1 on any difference.

Progress on stderr (one step per check: a bar on a terminal, plain lines elsewhere); ``--json`` prints the
report as one JSON document on stdout (kit/progress.py). Each run is recorded (``casino.ReconcileRun``) for the
dashboard and the ``casino_ledger_reconcile_*`` metrics."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from backoffice.monitoring import reconcile_and_record
from kit.progress import add_output_arguments, progress, write_json
from ledger.reconcile import CHECK_NAMES


class Command(BaseCommand):
    help = (
        "Reconcile the ledger: trial balance zero, every transaction balanced, cached balances and running "
        "balances equal to the postings, no negative wallet, each table escrow holding exactly its hands in "
        "play, every settled hand's postings matching its results. Exits 1 on any difference."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--limit", type=int, default=20, help="differences listed per check (all are counted); default 20"
        )
        add_output_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        with progress("reconcile", total=len(CHECK_NAMES), unit="checks", options=options) as bar:
            started: list[str] = []

            def on_check(name: str) -> None:
                if started:
                    bar.advance()
                started.append(name)
                bar.stage(name)

            report, _run = reconcile_and_record(source="command", limit=options["limit"], on_check=on_check)
            bar.advance()
        if options["json"]:
            write_json(self.stdout, report.to_json())
        else:
            self.stdout.write(report.render())
        if not report.ok:
            raise CommandError(f"the ledger does not reconcile: {report.total_differences} difference(s)", returncode=1)
