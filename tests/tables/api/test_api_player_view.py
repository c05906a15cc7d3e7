"""What a player sees (API.md v1.2): ``last_hand``, deadlines in ISO 8601 UTC, ``you.legal_hands``, and
``sit_in``/``sit_out`` offered (and accepted) only when they change something; through the real API."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from tests.support.api_helpers import assert_error
from tests.support.game_helpers import Player, create_table, deposit, ok, register

pytestmark = pytest.mark.django_db(transaction=True)


def _utc(text: str) -> datetime:
    assert text.endswith("Z") or text.endswith("+00:00"), text
    parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    assert parsed.utcoffset() is not None and parsed.utcoffset().total_seconds() == 0
    return parsed.astimezone(UTC)


def _seated(anon: Any, as_staff: Any, table: dict[str, Any], count: int = 1) -> list[Player]:
    players = [register(anon, "pv") for _ in range(count)]
    for player in players:
        deposit(as_staff, player, 1_000)
        ok(player.client.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    return players


def _play_one_hand(player: Player, table_id: int) -> dict[str, Any]:
    """Bet the minimum and stand at once (the house plays its rule); the table view after the hand ended."""
    for _ in range(20):
        view = player.view(table_id)
        if view["last_hand"] is not None:
            return view
        legal = view["you"]["legal_actions"]
        if "bet" in legal:
            ok(player.act(table_id, "bet", amount=view["min_bet"]))
        elif "stand" in legal:
            ok(player.act(table_id, "stand"))
        else:
            raise AssertionError(f"stuck at {view['phase']} with {legal}")
    raise AssertionError("the hand never ended")


def test_last_hand_shows_the_ended_hand_to_everyone_alike_and_matches_its_history(anon, as_staff, make_user):
    table = create_table(as_staff, "classic", bank="house")
    [player] = _seated(anon, as_staff, table)
    view = _play_one_hand(player, table["id"])
    last = view["last_hand"]
    spectator = ok(register(anon, "spec").client.get(f"/api/v1/tables/{table['id']}"))
    assert spectator["last_hand"] == last
    history = ok(player.client.get(f"/api/v1/hands/{last['id']}"))
    assert history["number"] == last["number"] and last["status"] == "settled"
    assert last["banker"]["seat"] is None and last["banker"]["username"] is None  # the house
    banker_cards = [d["card"] for d in history["deals"] if d["banker"]]
    assert last["banker"]["cards"] == banker_cards
    [row] = last["results"]
    [result] = history["results"]
    assert row["username"] == player.username
    assert (row["outcome"], row["net"], row["total_half_points"], row["category"]) == (
        result["outcome"],
        result["net"],
        result["total_half_points"],
        result["category"],
    )
    assert row["cards"] == [d["card"] for d in history["deals"] if d["to_seat"] == row["seat"] and not d["banker"]]


def test_last_hand_stays_after_the_next_hand_opens(anon, as_staff):
    table = create_table(as_staff, "classic", bank="house")
    [player] = _seated(anon, as_staff, table)
    last = _play_one_hand(player, table["id"])["last_hand"]
    view = player.view(table["id"])
    if view["hand"] is None or view["hand"]["number"] == last["number"]:
        ok(player.act(table["id"], "bet", amount=view["min_bet"]))  # the next hand opens on a bet
        view = player.view(table["id"])
    assert view["hand"]["number"] == last["number"] + 1
    assert view["last_hand"] == last


def test_every_deadline_is_iso_8601_utc_and_the_betting_window_has_its_own(anon, as_staff):
    table = create_table(as_staff, "classic", bank="house")
    [player] = _seated(anon, as_staff, table)
    view = player.view(table["id"])
    assert view["phase"] == "betting", view["phase"]
    hand = view["hand"]
    betting = _utc(hand["betting_deadline"])
    assert betting == _utc(hand["turn"]["deadline"]) and betting > datetime.now(UTC)
    ok(player.act(table["id"], "bet", amount=view["min_bet"]))
    view = player.view(table["id"])
    assert view["hand"]["betting_deadline"] is None  # the window closed
    assert view["hand"]["turn"]["seat"] == view["you"]["seat"]
    _utc(view["hand"]["turn"]["deadline"])


def test_legal_hands_names_the_hand_each_hand_action_accepts_and_it_is_accepted(anon, as_staff):
    table = create_table(as_staff, "classic", bank="house")
    [player] = _seated(anon, as_staff, table)
    view = player.view(table["id"])
    assert view["you"]["legal_hands"] == {}  # betting: no action takes a hand
    ok(player.act(table["id"], "bet", amount=view["min_bet"]))
    you = player.view(table["id"])["you"]
    assert you["legal_hands"]["hit"] == [0] and you["legal_hands"]["stand"] == [0]
    assert set(you["legal_hands"]) <= set(you["legal_actions"])
    ok(player.act(table["id"], "stand", hand=you["legal_hands"]["stand"][0]))


def test_sit_in_and_sit_out_are_offered_and_accepted_only_when_they_change_something(anon, as_staff):
    table = create_table(as_staff, "classic", bank="house")
    [player] = _seated(anon, as_staff, table)
    legal = player.view(table["id"])["you"]["legal_actions"]
    assert "sit_in" not in legal and "sit_out" in legal
    assert_error(player.act(table["id"], "sit_in"), 409, "illegal_action")
    ok(player.act(table["id"], "sit_out"))
    legal = player.view(table["id"])["you"]["legal_actions"]
    assert "sit_out" not in legal and "sit_in" in legal
    assert_error(player.act(table["id"], "sit_out"), 409, "illegal_action")
    ok(player.act(table["id"], "sit_in"))
    assert "sit_in" not in player.view(table["id"])["you"]["legal_actions"]
