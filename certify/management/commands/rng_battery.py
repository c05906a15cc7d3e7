"""``manage.py rng_battery [--long] [--out PATH] [--master HEX]``: the RNG battery and its report
(docs/certification.md). Exit status 1 when the verdict is FAIL."""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from certify import battery, report


class Command(BaseCommand):
    help = "Run the RNG battery on the shuffle's keystream and write one report (JSON and Markdown)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--long", action="store_true", help="the documented long run (10^6 decks, dieharder -a)")
        parser.add_argument("--decks", type=int, help="decks for the chi-squares (overrides the run's size)")
        parser.add_argument("--out", default="rng-battery", help="report path without suffix (.json and .md)")
        parser.add_argument("--master", help="hex master seed: a reproducible run (default: OS entropy)")

    def handle(self, *args: Any, **options: Any) -> None:
        sizes = battery.LONG if options["long"] else battery.SHORT
        if options["decks"]:
            sizes = dataclasses.replace(sizes, decks=options["decks"])
        master = bytes.fromhex(options["master"]) if options["master"] else None
        result = battery.run(sizes, master, say=lambda line: self.stdout.write(line))
        json_path, md_path = report.write(result, Path(options["out"]))
        verdict = "PASS" if result.passed else "FAIL"
        self.stdout.write(f"{verdict}: {len(result.pvalues)} p-values, report {json_path} and {md_path}")
        if not result.passed:
            sys.exit(1)
