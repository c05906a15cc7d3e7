"""API.md v1.1 details (issue 20): ``not_seated``, hand indices a caller does not hold, the client-seed alphabet.

Each refusal answers the contract's error body and changes nothing: the table's version, the ledger, the
player's stored client seed.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from rules import InvalidRequest, SetClientSeed
from rules.client_seed import client_seed_error, is_valid_client_seed
from tables.models import PlayerProfile, Table
from tables.pipeline import execute
from tests.support.api_helpers import assert_error, field_errors, ledger_state
from tests.support.game_helpers import ok

pytestmark = pytest.mark.django_db


def act(client: Any, table_id: int, body: dict[str, Any]) -> Any:
    return client.post(f"/api/v1/tables/{table_id}/actions", body, format="json")


def state_of(table_id: int) -> dict[str, Any]:
    return {"version": Table.objects.get(pk=table_id).version, **ledger_state()}


@pytest.fixture
def house_table(as_staff, make_user, client_for, fund):
    """A house-banked classic table whose punters may split (Spanish splits, up to 4 hands each)."""

    def make(**rules: Any) -> dict[str, Any]:
        body = {"name": "v11", "preset": "classic", "min_bet": 5, "max_bet": 50, "max_seats": 3, "bank": "house"}
        if rules:
            body["rules"] = rules
        table = ok(as_staff.post("/api/v1/tables", body, format="json"), 201)
        punter = make_user("v11")
        fund(punter, 1000)
        client = client_for(punter)
        ok(client.post(f"/api/v1/tables/{table['id']}/seats", {}, format="json"), 201)
        return {"id": table["id"], "punter": punter, "client": client}

    return make


def in_turn(table: dict[str, Any]) -> dict[str, Any]:
    """Bet; the hand is dealt and the punter is in turn on hand 0."""
    body = ok(act(table["client"], table["id"], {"action": "bet", "amount": 10}))
    assert body["table"]["hand"]["turn"]["hand"] == 0, body["table"]["hand"]
    return body


# --- not_seated ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("body", [{"action": "bet", "amount": 10}, {"action": "stand"}, {"action": "sit_out"}])
def test_an_action_without_a_seat_is_409_not_seated_and_changes_nothing(house_table, make_user, client_for, body):
    table = house_table()
    outsider = client_for(make_user("outsider"))
    before = state_of(table["id"])
    assert_error(act(outsider, table["id"], body), 409, "not_seated")
    assert state_of(table["id"]) == before


def test_leaving_a_table_one_does_not_sit_at_is_409_not_seated(house_table, make_user, client_for):
    table = house_table()
    outsider = client_for(make_user("outsider"))
    before = state_of(table["id"])
    assert_error(outsider.delete(f"/api/v1/tables/{table['id']}/seats/me"), 409, "not_seated")
    assert state_of(table["id"]) == before


def test_a_table_that_does_not_exist_stays_404_not_found(as_player):
    assert_error(act(as_player, 987654321, {"action": "stand"}), 404, "not_found")
    assert_error(as_player.delete("/api/v1/tables/987654321/seats/me"), 404, "not_found")


# --- hand indices -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["hit", "stand"])
def test_a_hand_within_the_limits_that_the_caller_does_not_hold_is_409_illegal_action(house_table, action):
    table = house_table(split_mode="spanish", max_hands_per_punter=4)
    in_turn(table)
    before = state_of(table["id"])
    details = assert_error(act(table["client"], table["id"], {"action": action, "hand": 3}), 409, "illegal_action")
    assert details == {"hand": 3}
    assert state_of(table["id"]) == before


@pytest.mark.parametrize("index", [4, 7, 15, 16, -1])
def test_a_hand_outside_the_limits_is_400_invalid_request_naming_hand(house_table, index):
    table = house_table(split_mode="spanish", max_hands_per_punter=4)
    in_turn(table)
    before = state_of(table["id"])
    assert set(field_errors(act(table["client"], table["id"], {"action": "hit", "hand": index}))) == {"hand"}
    assert state_of(table["id"]) == before


def test_without_splits_a_punter_holds_one_hand_so_hand_1_is_outside_the_limits(house_table):
    table = house_table()
    in_turn(table)
    before = state_of(table["id"])
    assert set(field_errors(act(table["client"], table["id"], {"action": "hit", "hand": 1}))) == {"hand"}
    assert state_of(table["id"]) == before
    ok(act(table["client"], table["id"], {"action": "stand", "hand": 0}))


def test_the_schema_lists_not_seated_for_actions_and_leaving(anon):
    schema = yaml.safe_load(anon.get("/api/schema/").content)
    operations = (("/api/v1/tables/{table_id}/actions", "post"), ("/api/v1/tables/{table_id}/seats/me", "delete"))
    for path, method in operations:
        assert "not_seated" in str(schema["paths"][path][method]["responses"]["409"]), (path, method)


# --- the client-seed alphabet -------------------------------------------------------------------------------------

GOOD = ["x", "~" * 64, "AZaz09!#$%&'()*+,-./;<=>?@[]^_`{|}\\\""]
BAD = ["", "x" * 65, "a:b", ":", "has space", " lead", "trail ", "tab\there", "new\nline", "caf\u00e9", "\x7f", "\x00"]


@pytest.mark.parametrize("seed", GOOD)
def test_the_rule_accepts_printable_ascii_without_space_or_colon(seed):
    assert is_valid_client_seed(seed) and client_seed_error(seed) is None


@pytest.mark.parametrize("seed", [*BAD, 42, None, ["a"]])
def test_the_rule_refuses_everything_else(seed):
    assert not is_valid_client_seed(seed)
    assert "printable ASCII other than space and ':'" in (client_seed_error(seed) or "")


@pytest.mark.parametrize("seed", GOOD)
def test_put_client_seed_accepts_the_alphabet(as_player, player, seed):
    # v1.3: the answer also names each table the player sits at with the version the seed was set at (none here)
    body = ok(as_player.put("/api/v1/me/client-seed", {"client_seed": seed}, format="json"))
    assert body == {"client_seed": seed, "tables": []}
    assert PlayerProfile.objects.get(user=player).client_seed == seed


@pytest.mark.parametrize("seed", BAD)
def test_put_client_seed_refuses_the_rest_naming_the_field_and_changes_nothing(as_player, player, seed):
    ok(as_player.put("/api/v1/me/client-seed", {"client_seed": "before"}, format="json"))
    before = ledger_state()
    response = as_player.put("/api/v1/me/client-seed", {"client_seed": seed}, format="json")
    assert set(field_errors(response)) == {"client_seed"}
    assert PlayerProfile.objects.get(user=player).client_seed == "before"
    assert ledger_state() == before


def test_a_seated_player_with_a_colon_seed_cannot_reach_the_table_either(house_table):
    """The rules core applies the same rule: a command carrying a bad seed is refused before any event."""
    table = house_table()
    before = state_of(table["id"])
    with pytest.raises(InvalidRequest) as refused:
        execute(
            table_id=table["id"],
            build=lambda ctx, state: SetClientSeed(player_id=str(table["punter"].pk), client_seed="a:b"),
            actor_id=table["punter"].pk,
        )
    assert refused.value.details == {"field": "client_seed"}
    assert state_of(table["id"]) == before


def test_registration_defaults_follow_the_rule(as_player):
    assert is_valid_client_seed(as_player.get("/api/v1/me").json()["client_seed"])
