"""manage.py replay_hand <hand id>: the hand event by event with the full table state after each."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from msgspec import to_builtins
from msgspec.structs import replace

from gamemath.cards import card_words
from rules import HandFacts, TableState, Viewer, acted_by, describe_event, hand_facts, view
from tables import loader
from tables.hand_events import replay_hand
from tables.models import Hand

AUDITOR = Viewer.auditor()


def _hand_at(state: TableState, number: int, public: bool, names: dict[int, str]) -> HandFacts | None:
    hand = state.hand
    if hand is None or hand.number != number:
        return None
    return hand_facts(state, hand, AUDITOR, public=public, names=names)


class Command(BaseCommand):
    help = "Replay a hand from its events, printing each event and the table state after it (auditor's view)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("hand_id", type=int)
        parser.add_argument("--json", action="store_true", help="one JSON object per step")

    def handle(self, *args: Any, hand_id: int, **options: Any) -> None:
        hand = Hand.objects.filter(pk=hand_id).first()
        if hand is None:
            raise CommandError(f"there is no hand {hand_id}")
        steps = replay_hand(hand)
        final = steps[-1][1].hand
        # an operator's tool: once the hand is over every card dealt in it is public at every step (the core's
        # rule); while it is in play each step shows what the auditor may see (no face-down card, no seed)
        public = final is not None and final.number == hand.number and not final.in_play
        names = {s.seat: s.username for _, state in (steps[0], steps[-1]) for s in state.seats}
        for stored, state in steps:
            event = loader.decode(stored)
            actor = acted_by(event, stored.metadata)
            facts = _hand_at(state, hand.number, public, names)
            if options["json"]:
                step = {
                    "version": stored.version,
                    "type": stored.type,
                    "at": stored.recorded_at.isoformat(),
                    "actor": actor.label,
                    "what": describe_event(event, names, AUDITOR, state),
                    "state": to_builtins(replace(view(state, AUDITOR), hand=facts)),
                }
                self.stdout.write(json.dumps(step, default=str))
                continue
            self.stdout.write(f"v{stored.version} {stored.type} by {actor.label}")
            self.stdout.write(f"    {describe_event(event, names, AUDITOR, state)}")
            for participant in facts.participants if facts is not None else ():
                for h in participant.hands:
                    # the one notation of operators' lines (rules.describe): the card's name, as the admin says it
                    named = [card_words(c.code) if c.code else "a face-down card" for c in h.cards]
                    cards = ", ".join(named) or "no card"
                    total = f" ({h.total})" if h.total is not None else ""
                    self.stdout.write(
                        f"    {participant.role} {participant.username or 'the house'} "
                        f"hand {h.index}: {cards}{total} {h.status}"
                    )
