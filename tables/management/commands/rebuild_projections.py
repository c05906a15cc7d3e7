"""manage.py rebuild_projections: rebuild the read models from the events alone and report differences."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.projections import rebuild


class Command(BaseCommand):
    help = "Rebuild lobby rows, hand rows, participants and seats from events; report any live difference."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--table", type=int, action="append", help="only these tables (repeatable)")

    def handle(self, *args: Any, **options: Any) -> None:
        sink, differences = rebuild(options["table"])
        self.stdout.write(
            f"rebuilt {len(sink.lobby)} tables, {len(sink.hands)} hands, "
            f"{sum(len(p) for p in sink.participants.values())} participations, {len(sink.seats)} seats"
        )
        for line in differences:
            self.stdout.write(self.style.ERROR(f"  {line}"))
        if differences:
            raise CommandError(f"{len(differences)} differences between the live read models and the events")
        self.stdout.write(self.style.SUCCESS("the live read models equal the ones rebuilt from events"))
