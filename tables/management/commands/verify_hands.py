"""manage.py verify_hands --all | --table N: verify many hands; exit 1 if any fails.

Progress on stderr (a bar on a terminal, plain lines elsewhere); ``--json`` prints the result as one JSON
document on stdout (kit/progress.py)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from kit.progress import add_output_arguments, progress, write_json
from tables.models import Hand
from tables.signals import report_verification_failure
from tables.store import chain_problems, load_stream
from tables.verify import CHECKS, verification_ok, verify_hand


class Command(BaseCommand):
    help = "Verify every settled or abandoned hand (or those of one table)."

    def add_arguments(self, parser: CommandParser) -> None:
        group = parser.add_mutually_exclusive_group(required=True)
        group.add_argument("--all", action="store_true", help="every closed hand")
        group.add_argument("--table", type=int, help="the closed hands of one table")
        parser.add_argument("--full", action="store_true", help="fold every hand's table from its first event")
        add_output_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        as_json = options["json"]
        hands = Hand.objects.exclude(status="in_play").order_by("table_id", "number")
        if options["table"] is not None:
            hands = hands.filter(table_id=options["table"])
        failures: list[dict[str, Any]] = []
        chain_failures: list[dict[str, Any]] = []
        count = 0
        with progress("verify_hands", total=hands.count(), unit="hands", options=options) as bar:
            for hand in hands.iterator(chunk_size=200):
                count += 1
                report = verify_hand(hand, full=options["full"], source="verify_hands")
                bar.advance()
                if verification_ok(report):
                    continue
                failed_checks = {check: report[check] for check in CHECKS if report[check] != "ok"}
                failures.append({"hand": hand.pk, "table": hand.table_id, "number": hand.number, **failed_checks})
                bar.note(f"hand {hand.pk} (table {hand.table_id} #{hand.number}) fails: {', '.join(failed_checks)}")
                if not as_json:
                    self.stdout.write(self.style.ERROR(f"hand {hand.pk} (table {hand.table_id} #{hand.number}):"))
                    for check, text in failed_checks.items():
                        self.stdout.write(f"  {check:<11} {text}")
            table_ids = sorted(set(hands.values_list("table_id", flat=True)))
            bar.stage(f"hash chains of {len(table_ids)} tables")
            for table_id in table_ids:  # the chain between hands too (seats taken and left while waiting)
                problems = chain_problems(load_stream(table_id))
                if problems:
                    report_verification_failure(
                        table_id=table_id,
                        hand_id=None,
                        hand_number=None,
                        checks={"chain": "; ".join(problems[:5])},
                        source="verify_hands",
                    )
                    chain_failures.append({"table": table_id, "chain": problems[:5]})
                    if not as_json:
                        self.stdout.write(self.style.ERROR(f"table {table_id}: " + "; ".join(problems[:5])))
        failed = len(failures) + len(chain_failures)
        if as_json:
            write_json(
                self.stdout,
                {
                    "ok": failed == 0,
                    "hands_checked": count,
                    "hands_verified": count - len(failures),
                    "hands_failed": len(failures),
                    "chains_checked": len(table_ids),
                    "chains_failed": len(chain_failures),
                    "failures": failures,
                    "chain_failures": chain_failures,
                },
            )
        else:
            self.stdout.write(
                f"{count} hands checked, {count - len(failures)} verify, {failed} fail; {len(table_ids)} chains"
            )
        if failed:
            raise CommandError(f"{failed} hands do NOT verify")
