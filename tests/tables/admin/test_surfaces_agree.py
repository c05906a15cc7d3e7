"""Every surface that shows a hand shows the same facts (DESIGN.md principle 15).

Hands of every preset and bank mode (splits, timeouts and abandoned hands among them) are played through the
services; for every hand the API's history, its export, the admin's hand page and its replay steps, the
``replay_hand`` command and the verifier are read, and their cards, deck, stock left, totals, categories,
results, nets and who took each action (the house shown as the house) must agree.
"""

from __future__ import annotations

import json
import random
from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from rules import CANONICAL_DECK
from tables import services
from tables.admin.views import load_replay
from tables.models import Event as EventRow
from tables.models import Hand
from tables.verify import verify_hand
from tests.support.play import make_players, make_table, state_of, step

pytestmark = pytest.mark.django_db

TABLES = [(preset, bank) for preset in ("classic", "italian", "spanish", "hungarian") for bank in ("player", "house")]
HANDS_PER_TABLE = 2
# the table that plays on (splitting whenever it may) until a hand was split: seeds are drawn at random, and two
# pictures come together in about one hand in twelve
SPLITS_AT = (("spanish", "player"), ("hungarian", "player"))
MOST_HANDS = 60


def _play(preset: str, bank: str, rng: random.Random) -> int:
    """Play ``HANDS_PER_TABLE`` hands, letting the clock run out now and then (timeouts, abandoned hands); at
    ``SPLITS_AT``, go on until a hand was split."""
    table = make_table(preset, bank=bank, max_seats=4 if bank == "player" else 3)
    until_split = (preset, bank) in SPLITS_AT
    chips = 50_000 if until_split else 5_000  # enough for every stake and split of a long run
    players = make_players(3 if bank == "player" else 2, prefix=f"{preset[:2]}{bank[0]}", chips=chips)
    for user in players:
        services.table_sit(table_id=table.pk, user=user)
    for _ in range(MOST_HANDS * 40):
        state = state_of(table.pk)
        done = state.settled_through >= HANDS_PER_TABLE and not state.hand_in_play
        split = EventRow.objects.filter(table_id=table.pk, type="HandSplit").exists() if until_split else True
        if (done and split) or state.settled_through >= MOST_HANDS:
            return table.pk
        if done:  # playing on for a split: everybody plays, nobody lets the clock run out
            for seat in state.seats:
                if seat.sitting_out and not state.hand_in_play:
                    user = next(p for p in players if str(p.pk) == seat.player_id)
                    services.table_act(table_id=table.pk, user=user, action="sit_in", args={})
            state = state_of(table.pk)
        if not done and state.awaiting is not None and rng.random() < 0.25:
            services.table_timeout(table_id=table.pk, version=state.version, now_ms=state.awaiting.deadline_ms)
        else:
            prefer = "split" if until_split else None
            assert step(table, players, rng, prefer=prefer), f"table {table.pk} is stuck"
    raise AssertionError(f"table {table.pk} did not finish its hands")


def _history_facts(history: dict[str, Any]) -> dict[str, Any]:
    hands = {
        (p["role"], p["seat"], h["index"]): (h["cards"], h["total_half_points"])
        for p in history["participants"]
        for h in p["hands"]
    }
    results = [
        (r["seat"], r["hand"], r["category"], r["total_half_points"], r["outcome"], r["net"])
        for r in history["results"]
    ]
    return {
        "hands": hands,
        "deck": history["deck"],
        "stock_left": len(CANONICAL_DECK) - len(history["deals"]),
        "results": results,
    }


def _admin_facts(state: dict[str, Any]) -> dict[str, Any]:
    hand = state["hand"]
    hands = {
        (p["role"], p["seat"], h["index"]): (
            [c.code for c in h["cards"]],
            h["score"]["total_half_points"] if h["score"] else None,
        )
        for p in hand["participants"]
        for h in p["hands"]
    }
    results = [
        (r["seat"], r["hand"], r["category"], r["total_half_points"], r["outcome"], r["net"]) for r in hand["results"]
    ]
    return {
        "hands": hands,
        "deck": list(hand["deck"]) if hand["deck"] else None,
        "stock_left": hand["stock_left"],
        "results": results,
    }


def _command_facts(step: dict[str, Any]) -> dict[str, Any]:
    hand = step["state"]["hand"]
    hands = {
        (p["role"], p["seat"], h["index"]): ([c["code"] for c in h["cards"]], h["total_half_points"])
        for p in hand["participants"]
        for h in p["hands"]
    }
    results = [
        (r["seat"], r["hand"], r["category"], r["total_half_points"], r["outcome"], r["net"])
        for r in hand["results"] or ()
    ]
    return {"hands": hands, "deck": hand["deck"], "stock_left": hand["stock_left"], "results": results}


def _who_by_api(history: dict[str, Any], seated: dict[int, str]) -> dict[int, str]:
    """Who took each action, as the API's history says: a seat's player (``seated``: seat -> username of the
    players at the table who took no part), the house or the system."""
    usernames = {**seated, **{p["seat"]: p["username"] for p in history["participants"]}}
    who = {}
    for row in history["actions"]:
        if row["seat"] is not None:
            who[row["seq"]] = usernames[row["seat"]]
        elif row["args"].get("reason") == "house_rule":
            who[row["seq"]] = "the house"
        else:
            who[row["seq"]] = f"system ({row['args']['reason']})"
    return who


def test_every_surface_shows_the_same_hand(as_auditor, auditor):
    rng = random.Random(28)
    tables = [_play(preset, bank, rng) for preset, bank in TABLES]
    api = APIClient()
    api.force_login(auditor)  # staff use the API through their session (kit/tokens.py)
    seen = {"split": 0, "timeout": 0, "abandoned": 0, "house": 0}
    closed = Hand.objects.filter(table_id__in=tables).exclude(status="in_play").order_by("table_id", "number")
    assert closed.count() >= len(TABLES) * HANDS_PER_TABLE
    # each table's first hands, and the split ones of the tables that played on for a split (not the dozen or so
    # plain hands on the way: they add time, not cases)
    splits = list(EventRow.objects.filter(table_id__in=tables, type="HandSplit").values_list("table_id", "version"))

    def has_split(hand: Hand) -> bool:
        return any(t == hand.table_id and hand.opened_version < v <= hand.closed_version for t, v in splits)

    hands = [h for h in closed if h.number <= HANDS_PER_TABLE or has_split(h)]
    for hand in hands:
        where = (hand.table_id, hand.number, hand.status)
        history = api.get(f"/api/v1/hands/{hand.pk}").json()
        export = api.get(f"/api/v1/hands/{hand.pk}/export").json()
        page = as_auditor.get(f"/admin/tables/hand/{hand.pk}/change/").context
        out = StringIO()
        call_command("replay_hand", str(hand.pk), "--json", stdout=out)
        steps = [json.loads(line) for line in out.getvalue().splitlines()]
        report = verify_hand(hand, record=False)

        # cards, totals, deck, stock left, categories, results and nets
        facts = _history_facts(history)
        assert _history_facts(export["hand"]) == facts, where
        assert _admin_facts(page["now"]) == facts, where
        assert (
            _admin_facts(page["replay"]["state"]) == facts
            if page["replay"]["step"] == page["replay"]["count"]
            else True
        )
        assert _command_facts(steps[-1]) == facts, where
        assert page["now"]["hand"]["deck_reason"] == history["deck_reason"] == report.notes.get("deck"), where
        assert report.failing() == {}, (where, report)
        if facts["deck"] is not None:
            assert len(facts["deck"]) == len(CANONICAL_DECK)
            dealt = [d["card"] for d in history["deals"]]
            assert facts["deck"][: len(dealt)] == dealt, where
        if history["results"]:
            banker_net = -sum(r["net"] for r in history["results"])
            assert page["now"]["hand"]["banker_net"] == banker_net, where

        # every replay step of the admin page shows the same hand as the command's step
        replay = load_replay(hand)  # what the page draws at ?step=N (the page itself is read once, above)
        for number in range(1, len(steps) + 1):
            state = replay.state_at(number)
            if state["hand"] is not None:
                assert _admin_facts(state)["hands"] == _command_facts(steps[number - 1])["hands"], (where, number)

        # who took each action: the API's actions, the admin's timeline and replay_hand
        timeline = {row.seq: row.who for row in page["timeline"]}
        by_command = {s["version"]: s["actor"] for s in steps}
        assert timeline == by_command, where
        seated = {s["seat"]: s["username"] for s in page["now"]["seats"]}
        for seq, who in _who_by_api(history, seated).items():
            if seq in timeline:
                assert timeline[seq] == who, (where, seq)

        seen["split"] += any(len(p["hands"]) > 1 for p in history["participants"])
        seen["timeout"] += any(row["args"].get("reason") == "timeout" for row in history["actions"])
        seen["abandoned"] += hand.status == "abandoned"
        seen["house"] += "the house" in timeline.values()
    assert all(seen.values()), seen
