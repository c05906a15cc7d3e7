"""``POST /tables/{id}/actions``: the answer's shape, and every error code an action can get; a refused
action changes nothing (table version, balances, ledger)."""

from __future__ import annotations

from typing import Any

import pytest

from ledger import services as ledger
from tables.models import Table
from tests.support.api_helpers import assert_error, field_errors, ledger_state
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db


def act(client: Any, table_id: int, body: dict[str, Any], **headers: Any) -> Any:
    return client.post(f"/api/v1/tables/{table_id}/actions", body, format="json", **headers)


@pytest.fixture
def duel(as_staff, make_user, client_for, fund) -> dict[str, Any]:
    """A classic player-banked table (limits 5-50) with a banker and one punter, both funded, in betting."""
    table = ok(
        as_staff.post(
            "/api/v1/tables",
            {"name": "duel", "preset": "classic", "min_bet": 5, "max_bet": 50, "max_seats": 3, "bank": "player"},
            format="json",
        ),
        201,
    )
    users = [make_user("duel") for _ in range(2)]
    clients = {}
    for user in users:
        fund(user, 1000)
        clients[user.get_username()] = client_for(user)
        ok(clients[user.get_username()].post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
    view = ok(clients[users[0].get_username()].get(f"/api/v1/tables/{table['id']}"))
    banker_name = next(s["username"] for s in view["seats"] if s["is_banker"])
    banker = next(u for u in users if u.get_username() == banker_name)
    punter = next(u for u in users if u is not banker)
    return {
        "id": table["id"],
        "banker": banker,
        "punter": punter,
        "as_banker": clients[banker.get_username()],
        "as_punter": clients[punter.get_username()],
    }


def snapshot(table_id: int) -> dict[str, Any]:
    return {"version": Table.objects.get(pk=table_id).version, **ledger_state()}


def refused(duel: dict[str, Any], client: Any, body: dict[str, Any], status: int, code: str) -> dict[str, Any]:
    before = snapshot(duel["id"])
    details = assert_error(act(client, duel["id"], body), status, code)
    assert snapshot(duel["id"]) == before, "a refused action changed something"
    return details


def in_turn(duel: dict[str, Any]) -> dict[str, Any]:
    return ok(act(duel["as_punter"], duel["id"], {"action": "bet", "amount": 10}))


def test_a_bet_answers_the_table_and_the_events_it_appended(duel):
    before = ok(duel["as_punter"].get(f"/api/v1/tables/{duel['id']}"))
    assert before["phase"] == "betting" and "bet" in before["you"]["legal_actions"]
    body = in_turn(duel)
    table, events = body["table"], body["events"]
    assert [e["type"] for e in events][:2] == ["BetPlaced", "BettingClosed"]
    assert [e["seq"] for e in events] == list(range(before["version"] + 1, table["version"] + 1))
    assert table["phase"] == "punters"
    assert table["you"]["seat"] is not None and table["you"]["balance"] == 990
    assert set(table["you"]["legal_actions"]) >= {"hit", "stand"}
    mine = next(p for p in table["hand"]["participants"] if p["role"] == "punter")
    assert mine["hands"][0]["bet"] == 10 and mine["hands"][0]["cards"][0]["code"] is not None
    banker = next(p for p in table["hand"]["participants"] if p["role"] == "banker")
    assert banker["hands"][0]["cards"] == [{"code": None, "face_up": False}]
    dealt = [e for e in events if e["type"] == "CardDealt"]
    assert dealt[0]["data"]["card"] is not None and dealt[1]["data"]["card"] is None  # mine / the banker's


def test_hit_and_stand_play_the_turn(duel):
    in_turn(duel)
    body = ok(act(duel["as_punter"], duel["id"], {"action": "stand"}))
    assert body["table"]["hand"]["phase"] in ("banker", "settled")
    assert any(e["type"] == "HandStood" for e in body["events"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"action": "dance"}, "action"),
        ({}, "action"),
        ({"action": "hit", "amount": 5}, "amount"),
        ({"action": "bet"}, "amount"),
        ({"action": "bet", "amount": "10"}, "amount"),
        ({"action": "bet", "amount": 10.0}, "amount"),
        ({"action": "bet", "amount": 0}, "amount"),
        ({"action": "stand", "hand": -1}, "hand"),
        ({"action": "stand", "target": 1}, "target"),
        ({"action": "stand", "expected_version": "3"}, "expected_version"),
        ({"action": "stand", "colour": "red"}, "colour"),
        ({"action": "sit_down"}, "action"),
    ],
)
def test_a_malformed_action_is_400_naming_the_field(duel, body, field):
    before = snapshot(duel["id"])
    assert field in field_errors(act(duel["as_punter"], duel["id"], body))
    assert snapshot(duel["id"]) == before


def test_a_bet_outside_the_table_limits_is_400_bet_out_of_limits(duel):
    details = refused(duel, duel["as_punter"], {"action": "bet", "amount": 51}, 400, "bet_out_of_limits")
    assert details["max"] == 50
    refused(duel, duel["as_punter"], {"action": "bet", "amount": 4}, 400, "bet_out_of_limits")


def test_playing_out_of_turn_is_409_not_your_turn(duel):
    in_turn(duel)
    refused(duel, duel["as_banker"], {"action": "hit"}, 409, "not_your_turn")


def test_playing_in_the_betting_phase_is_409_wrong_phase(duel):
    refused(duel, duel["as_punter"], {"action": "hit"}, 409, "wrong_phase")
    refused(duel, duel["as_punter"], {"action": "stand"}, 409, "wrong_phase")


def test_an_action_the_rules_forbid_is_409_illegal_action(duel):
    refused(duel, duel["as_banker"], {"action": "bet", "amount": 10}, 409, "illegal_action")
    in_turn(duel)
    refused(duel, duel["as_punter"], {"action": "split"}, 409, "illegal_action")
    refused(duel, duel["as_punter"], {"action": "bet", "amount": 10}, 409, "illegal_action")
    refused(duel, duel["as_punter"], {"action": "retire_bank"}, 409, "illegal_action")


def test_a_bet_over_the_wallet_is_409_insufficient_funds(duel, staff):
    ledger.withdraw(user=duel["punter"], amount=980, reference="t", operator=staff, cause="t:withdraw:punter")
    refused(duel, duel["as_punter"], {"action": "bet", "amount": 30}, 409, "insufficient_funds")


def test_a_bet_the_banker_cannot_cover_is_409_bank_cannot_cover(duel, staff):
    ledger.withdraw(user=duel["banker"], amount=980, reference="t", operator=staff, cause="t:withdraw:banker")
    refused(duel, duel["as_punter"], {"action": "bet", "amount": 30}, 409, "bank_cannot_cover")


def test_an_expected_version_behind_the_table_is_409_stale_version(duel):
    version = Table.objects.get(pk=duel["id"]).version
    details = refused(
        duel, duel["as_punter"], {"action": "bet", "amount": 10, "expected_version": version - 1}, 409, "stale_version"
    )
    assert details["version"] == version
    ok(act(duel["as_punter"], duel["id"], {"action": "bet", "amount": 10, "expected_version": version}))


def test_a_repeated_idempotency_key_replays_and_another_body_conflicts(duel):
    first = act(duel["as_punter"], duel["id"], {"action": "bet", "amount": 10}, HTTP_IDEMPOTENCY_KEY="bet-1")
    assert first.status_code == 200
    before = snapshot(duel["id"])
    again = act(duel["as_punter"], duel["id"], {"action": "bet", "amount": 10}, HTTP_IDEMPOTENCY_KEY="bet-1")
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert snapshot(duel["id"]) == before
    conflict = act(duel["as_punter"], duel["id"], {"action": "bet", "amount": 11}, HTTP_IDEMPOTENCY_KEY="bet-1")
    assert_error(conflict, 409, "idempotency_conflict")
    assert snapshot(duel["id"]) == before


def test_the_idempotency_key_reaches_the_event_metadata(duel):
    from tables.store import load_stream

    ok(act(duel["as_punter"], duel["id"], {"action": "bet", "amount": 10}, HTTP_IDEMPOTENCY_KEY="meta-1"))
    keyed = [e for e in load_stream(duel["id"]) if e.metadata.get("idempotency_key") == "meta-1"]
    assert keyed and keyed[0].type == "BetPlaced"


def test_a_player_who_is_not_seated_gets_409_not_seated(duel, make_user, client_for):
    outsider = client_for(make_user("outsider"))
    assert_error(act(outsider, duel["id"], {"action": "bet", "amount": 10}), 409, "not_seated")


def test_an_unknown_table_is_404_and_anonymous_is_401(duel, anon, as_player):
    assert_error(act(as_player, 987654321, {"action": "stand"}), 404, "not_found")
    assert_error(act(as_player, 10**19, {"action": "stand"}), 404, "not_found")
    assert_error(act(anon, duel["id"], {"action": "stand"}), 401, "not_authenticated")


def test_sit_out_and_sit_in(duel):
    body = ok(act(duel["as_punter"], duel["id"], {"action": "sit_out"}))
    me = next(s for s in body["table"]["seats"] if s["username"] == duel["punter"].get_username())
    assert me["sitting_out"] is True
    body = ok(act(duel["as_punter"], duel["id"], {"action": "sit_in"}))
    me = next(s for s in body["table"]["seats"] if s["username"] == duel["punter"].get_username())
    assert me["sitting_out"] is False
