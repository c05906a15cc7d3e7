"""manage.py simulate: the house-edge lab's simulator (same options as ``python -m lab simulate``)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from lab.cli import add_simulate_arguments, simulate


class Command(BaseCommand):
    help = "Simulate hands of a rule set through the rules core on every core: the bank's edge and frequencies."

    def add_arguments(self, parser: CommandParser) -> None:
        add_simulate_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        from argparse import Namespace

        from rules import DomainError

        try:
            simulate(Namespace(**options), self.stdout._out)  # the raw stream: rich and JSON write whole lines
        except DomainError as error:
            raise CommandError(f"{error.code}: {error.message} {error.details}") from error
        except ValueError as error:
            raise CommandError(str(error)) from error
