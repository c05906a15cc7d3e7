"""manage.py verify_hands --all | --table N: verify many hands; exit 1 if any fails."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.models import Hand
from tables.verify import CHECKS, verification_ok, verify_hand


class Command(BaseCommand):
    help = "Verify every settled or abandoned hand (or those of one table)."

    def add_arguments(self, parser: CommandParser) -> None:
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--all", action="store_true", help="every closed hand")
        group.add_argument("--table", type=int, help="the closed hands of one table")

    def handle(self, *args: Any, **options: Any) -> None:
        hands = Hand.objects.exclude(status="in_play").order_by("table_id", "number")
        if options["table"] is not None:
            hands = hands.filter(table_id=options["table"])
        failed = 0
        count = 0
        for hand in hands.iterator():
            count += 1
            report = verify_hand(hand)
            if not verification_ok(report):
                failed += 1
                self.stdout.write(self.style.ERROR(f"hand {hand.pk} (table {hand.table_id} #{hand.number}):"))
                for check in CHECKS:
                    if report[check] != "ok":
                        self.stdout.write(f"  {check:<11} {report[check]}")
        self.stdout.write(f"{count} hands checked, {count - failed} verify, {failed} fail")
        if failed:
            raise CommandError(f"{failed} hands do NOT verify")
