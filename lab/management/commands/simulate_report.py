"""manage.py simulate_report: the house-edge report (same options as ``python -m lab report``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from lab.report import add_report_arguments, report


class Command(BaseCommand):
    help = "Run the house-edge sweeps and write the table, the plots (SVG, PNG) and an HTML page."

    def add_arguments(self, parser: CommandParser) -> None:
        add_report_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        from argparse import Namespace

        out = report(Namespace(**options))
        self.stdout.write(f"wrote {out}/index.html")
