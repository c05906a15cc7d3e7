"""manage.py rebuild_projections: rebuild the read models from the events alone and report differences.

Progress on stderr (a bar on a terminal, plain lines elsewhere); ``--json`` prints the result as one JSON
document on stdout (kit/progress.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from kit.progress import add_output_arguments, progress, write_json
from tables.models import Table
from tables.projection_rebuild import rebuild


class Command(BaseCommand):
    help = "Rebuild lobby rows, hand rows, participants and seats from events; report any live difference."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--table", type=int, action="append", help="only these tables (repeatable)")
        add_output_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        wanted = options["table"]
        total = len(set(wanted)) if wanted else Table.objects.count()
        with progress("rebuild_projections", total=total, unit="tables", options=options) as bar:
            sink, differences = rebuild(wanted, on_table=lambda _table_id: bar.advance())
        counts = {
            "tables": len(sink.lobby),
            "hands": len(sink.hands),
            "participations": sum(len(p) for p in sink.participants.values()),
            "seats": len(sink.seats),
        }
        if options["json"]:
            write_json(self.stdout, {"ok": not differences, "rebuilt": counts, "differences": differences})
        else:
            self.stdout.write(
                f"rebuilt {counts['tables']} tables, {counts['hands']} hands, "
                f"{counts['participations']} participations, {counts['seats']} seats"
            )
            for line in differences:
                self.stdout.write(self.style.ERROR(f"  {line}"))
        if differences:
            raise CommandError(f"{len(differences)} differences between the live read models and the events")
        if not options["json"]:
            self.stdout.write(self.style.SUCCESS("the live read models equal the ones rebuilt from events"))
