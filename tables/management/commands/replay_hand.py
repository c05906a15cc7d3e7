"""manage.py replay_hand <hand id>: the hand event by event with the full table state after each."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from tables.models import Hand
from tables.rules import Viewer, view
from tables.verify import replay_hand


class Command(BaseCommand):
    help = "Replay a hand from its events, printing each event and the table state after it (auditor's view)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("hand_id", type=int)
        parser.add_argument("--json", action="store_true", help="one JSON object per step")

    def handle(self, *args: Any, hand_id: int, **options: Any) -> None:
        hand = Hand.objects.filter(pk=hand_id).first()
        if hand is None:
            raise CommandError(f"there is no hand {hand_id}")
        for stored, state in replay_hand(hand):
            # an operator's tool: the auditor viewer hides nothing once the hand is settled, and hides what a
            # spectator may not see while it is still in play
            shown = view(state, Viewer.auditor())
            step = {
                "version": stored.version,
                "type": stored.type,
                "at": stored.recorded_at.isoformat(),
                "actor": stored.metadata.get("actor_username"),
                "state": shown,
            }
            if options["json"]:
                self.stdout.write(json.dumps(step, default=str))
            else:
                self.stdout.write(f"v{stored.version} {stored.type} by {step['actor'] or 'system'}")
                hand_view = shown.get("hand") or {}
                for participant in hand_view.get("participants", []):
                    for h in participant.get("hands", []):
                        cards = " ".join(c["code"] or "??" for c in h["cards"])
                        self.stdout.write(
                            f"    {participant.get('role')} {participant.get('username') or 'house'} "
                            f"hand {h.get('index')}: {cards} ({h.get('total')}) {h.get('status')}"
                        )
