"""``manage.py reconcile``: check the ledger against itself; print a report; exit 1 on any difference."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from ledger.reconcile import reconcile


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

    def handle(self, *args: Any, **options: Any) -> None:
        report = reconcile(limit=options["limit"])
        self.stdout.write(report.render())
        if not report.ok:
            raise CommandError(f"the ledger does not reconcile: {report.total_differences} difference(s)", returncode=1)
