"""The facts of a hand as the admin and ``replay_hand`` show them: the deck and the stock of a hand whose seed was
committed ahead, the house banker's turn credited to the house, every card of a settled hand at every step."""

from __future__ import annotations

import json
import re
from io import StringIO

import pytest
from django.contrib import admin
from django.core.management import call_command

from rules import CANONICAL_DECK
from tables import loader
from tables.hand_events import replay_hand
from tables.models import Event as EventRow
from tables.models import Hand
from tests.support.admin_fixtures import play_table

pytestmark = pytest.mark.django_db

HOUSE_TURN_EVENTS = (
    "CardDealt",
    "CardTurnedUp",
    "HandStood",
    "HandBusted",
    "HandMadeSevenHalf",
    "HandMadePairOfSevens",
)


def _dealt(hand: Hand) -> int:
    return sum(1 for stored, _ in replay_hand(hand) if stored.type == "CardDealt")


def _house_steps(hand: Hand) -> list[int]:
    """The 1-based replay steps that record the house banker's own play."""
    steps = []
    for number, (stored, _) in enumerate(replay_hand(hand), start=1):
        event = loader.decode(stored)
        if stored.type in HOUSE_TURN_EVENTS and getattr(event, "banker", False) and event.seat is None:
            steps.append(number)
    return steps


def test_a_settled_hand_page_shows_its_deck_and_how_many_cards_are_left(as_auditor):
    played = play_table(hands=2, seed=11, prefix="dk")
    for hand in played.settled:
        assert not replay_hand(hand)[-1][1].hand.deck  # its seed was committed ahead: no deck in the state
        page = as_auditor.get(f"/admin/tables/hand/{hand.pk}/change/").content.decode()
        assert "shown when the hand is settled" not in page
        dealt = _dealt(hand)
        assert f"{dealt} cards dealt, {len(CANONICAL_DECK) - dealt} left in the stock" in page
        deck = re.search(r"<th>deck</th><td>(.*?)</td>", page, re.S)
        assert deck is not None and len(re.findall(r'title="deck index', deck.group(1))) == len(CANONICAL_DECK)


def test_the_house_banker_turn_is_credited_to_the_house(as_auditor):
    played = play_table("classic", hands=3, seed=5, prefix="hs", bank="house")
    seen = 0
    for hand in played.settled:
        house_steps = _house_steps(hand)
        seen += len(house_steps)
        context = as_auditor.get(f"/admin/tables/hand/{hand.pk}/change/").context
        for step in house_steps:
            assert context["timeline"][step - 1].who == "the house", (hand.pk, step)
        out = StringIO()
        call_command("replay_hand", str(hand.pk), stdout=out)
        lines = [line for line in out.getvalue().splitlines() if line.startswith("v")]
        for step in house_steps:
            assert lines[step - 1].endswith("by the house"), lines[step - 1]
        events_list = admin.site._registry[EventRow]
        steps = replay_hand(hand)
        for step in house_steps:
            row = EventRow.objects.get(table_id=hand.table_id, version=steps[step - 1][0].version)
            assert events_list.who(row) == "the house", (hand.pk, step)
    assert seen, "no hand had a house turn"


def test_replay_hand_shows_every_card_of_a_settled_hand_at_every_step():
    played = play_table(hands=2, seed=7, prefix="rp")
    for hand in played.settled:
        out = StringIO()
        call_command("replay_hand", str(hand.pk), stdout=out)
        text = out.getvalue()
        assert "??" not in text and "(None)" not in text, text
        out = StringIO()
        call_command("replay_hand", str(hand.pk), "--json", stdout=out)
        steps = [json.loads(line) for line in out.getvalue().splitlines()]
        final = steps[-1]["state"]["hand"]
        assert final["stock_left"] == len(CANONICAL_DECK) - _dealt(hand)
        assert len(final["deck"]) == len(CANONICAL_DECK)
