"""manage.py verify_hands --all | --table N: verify many hands; exit 1 if any fails."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.models import Hand
from tables.store import chain_problems, load_stream
from tables.verify import CHECKS, verification_ok, verify_hand


class Command(BaseCommand):
    help = "Verify every settled or abandoned hand (or those of one table)."

    def add_arguments(self, parser: CommandParser) -> None:
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--all", action="store_true", help="every closed hand")
        group.add_argument("--table", type=int, help="the closed hands of one table")
        parser.add_argument("--full", action="store_true", help="fold every hand's table from its first event")

    def handle(self, *args: Any, **options: Any) -> None:
        hands = Hand.objects.exclude(status="in_play").order_by("table_id", "number")
        if options["table"] is not None:
            hands = hands.filter(table_id=options["table"])
        failed = 0
        count = 0
        for hand in hands.iterator():
            count += 1
            report = verify_hand(hand, full=options["full"])
            if not verification_ok(report):
                failed += 1
                self.stdout.write(self.style.ERROR(f"hand {hand.pk} (table {hand.table_id} #{hand.number}):"))
                for check in CHECKS:
                    if report[check] != "ok":
                        self.stdout.write(f"  {check:<11} {report[check]}")
        table_ids = sorted(set(hands.values_list("table_id", flat=True)))
        for table_id in table_ids:  # the chain between hands too (seats taken and left while waiting)
            problems = chain_problems(load_stream(table_id))
            if problems:
                failed += 1
                self.stdout.write(self.style.ERROR(f"table {table_id}: " + "; ".join(problems[:5])))
        self.stdout.write(f"{count} hands checked, {count - failed} verify, {failed} fail; {len(table_ids)} chains")
        if failed:
            raise CommandError(f"{failed} hands do NOT verify")
