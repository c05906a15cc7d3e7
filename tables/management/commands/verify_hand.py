"""manage.py verify_hand <hand id>: every check of a hand, "ok" or what differs; exit 1 on any failure."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.errors import HandInPlay
from tables.models import Hand
from tables.verify import CHECKS, verification_ok, verify_hand


class Command(BaseCommand):
    help = "Verify a hand: commitment, shuffle, replay of the recorded commands, ledger postings, hash chain."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("hand_id", type=int)

    def handle(self, *args: Any, hand_id: int, **options: Any) -> None:
        hand = Hand.objects.filter(pk=hand_id).first()
        if hand is None:
            raise CommandError(f"there is no hand {hand_id}")
        try:
            report = verify_hand(hand, source="verify_hand")
        except HandInPlay as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"hand {hand.pk} (table {hand.table_id}, hand #{hand.number}, {hand.status})")
        for check in CHECKS:
            self.stdout.write(f"  {check:<11} {report[check]}")
        if not verification_ok(report):
            raise CommandError(f"hand {hand.pk} does NOT verify")
        self.stdout.write(self.style.SUCCESS(f"hand {hand.pk} verifies"))
