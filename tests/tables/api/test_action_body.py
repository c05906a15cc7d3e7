"""``POST /tables/{id}/actions`` has one schema (``rules.actions``: a tagged record per action with its bounds):
it accepts exactly the bodies of API.md "Actions", builds each action's command, refuses everything else with the
contract's error naming the field, and is what the OpenAPI document publishes."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gamemath.errors import InvalidRequest
from rules import API_ACTIONS, action_body
from rules.actions import BODIES
from rules.commands import Assign, Hit, PlaceBet, Raise, RetireBank, SetStake, SitIn, SitOut, Split, Stand

ACCEPTED: list[tuple[dict[str, Any], Any]] = [
    ({"action": "bet", "amount": 10}, PlaceBet(player_id="p", amount=10)),
    ({"action": "bet", "amount": 1, "expected_version": 0}, PlaceBet(player_id="p", amount=1)),
    ({"action": "bet", "amount": 10**12}, PlaceBet(player_id="p", amount=10**12)),
    ({"action": "hit"}, Hit(player_id="p")),
    ({"action": "hit", "hand": 15}, Hit(player_id="p", hand=15)),
    ({"action": "stand", "expected_version": 2**31 - 1}, Stand(player_id="p")),
    ({"action": "raise", "amount": 5, "hand": 1}, Raise(player_id="p", amount=5, hand=1)),
    ({"action": "split"}, Split(player_id="p")),
    ({"action": "split", "amount": 7}, Split(player_id="p", amount=7)),
    ({"action": "assign", "hand": 1}, Assign(player_id="p", hand=1)),
    ({"action": "assign", "target": 1}, Assign(player_id="p", hand=1)),
    ({"action": "assign", "hand": 1, "target": 1}, Assign(player_id="p", hand=1)),
    ({"action": "sit_out"}, SitOut(player_id="p")),
    ({"action": "sit_in"}, SitIn(player_id="p")),
    ({"action": "set_stake", "amount": 20}, SetStake(player_id="p", amount=20)),
    ({"action": "retire_bank"}, RetireBank(player_id="p")),
]

REFUSED: list[tuple[Any, str]] = [
    ({"action": "bet"}, "amount"),
    ({"action": "bet", "amount": 10**12 + 1}, "amount"),
    ({"action": "bet", "amount": 0}, "amount"),
    ({"action": "bet", "amount": -5}, "amount"),
    ({"action": "bet", "amount": 10.0}, "amount"),
    ({"action": "bet", "amount": "10"}, "amount"),
    ({"action": "bet", "amount": True}, "amount"),
    ({"action": "bet", "amount": None}, "amount"),
    ({"action": "hit", "hand": 16}, "hand"),
    ({"action": "hit", "hand": False}, "hand"),
    ({"action": "hit", "amount": 5}, "amount"),
    ({"action": "stand", "expected_version": 2**31}, "expected_version"),
    ({"action": "stand", "expected_version": -1}, "expected_version"),
    ({"action": "hit", "target": 1}, "target"),
    ({"action": "assign"}, "hand"),
    ({"action": "assign", "hand": 0, "target": 1}, "target"),
    ({"action": "hit", "colour": "red"}, "colour"),
    ({"action": "sit_down"}, "action"),
    ({"action": "leave"}, "action"),
    ({"action": "HIT"}, "action"),
    ({"action": 1}, "action"),
    ({"action": ["hit"]}, "action"),
    ({"action": None}, "action"),
    ({"action": ""}, "action"),
    ({"amount": 10}, "action"),
    ({}, "action"),
    ([], "non_field_errors"),
    (["hit"], "non_field_errors"),
    ("hit", "non_field_errors"),
    (None, "non_field_errors"),
    (7, "non_field_errors"),
]


@pytest.mark.parametrize(("body", "command"), ACCEPTED, ids=repr)
def test_every_action_body_of_the_contract_builds_its_command(body: dict[str, Any], command: Any) -> None:
    assert action_body(body).command("p") == command


@pytest.mark.parametrize(("body", "field"), REFUSED, ids=repr)
def test_anything_else_is_refused_naming_the_field(body: Any, field: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        action_body(body)
    assert refused.value.details == {"field": field}, refused.value
    assert str(refused.value)


BOUNDS = {"amount": (1, 10**12), "hand": (0, 15), "target": (0, 15), "expected_version": (0, 2**31 - 1)}


@given(
    action=st.sampled_from(API_ACTIONS),
    args=st.dictionaries(
        st.sampled_from(sorted(BOUNDS)), st.integers(-(2**40), 2**40) | st.booleans() | st.none(), max_size=4
    ),
)
def test_a_body_is_accepted_exactly_when_each_argument_is_the_actions_own_and_in_bounds(action, args) -> None:
    """The property behind both tables: accepted iff every argument is one the action takes, an integer (not a
    bool) inside its bounds, and the required ones are there (assign: hand or target, naming one hand)."""
    takes = set(BODIES[action].__struct_fields__)
    required = {"bet": {"amount"}, "raise": {"amount"}, "set_stake": {"amount"}}.get(action, set())
    fits = all(
        name in takes and type(value) is int and BOUNDS[name][0] <= value <= BOUNDS[name][1]
        for name, value in args.items()
    )
    assign_ok = action != "assign" or (
        bool({"hand", "target"} & set(args)) and len({args[k] for k in ("hand", "target") if k in args}) == 1
    )
    expected = fits and required <= set(args) and assign_ok
    try:
        action_body({**args, "action": action})
    except InvalidRequest:
        assert not expected, (action, args)
    else:
        assert expected, (action, args)


def test_the_published_schema_is_the_bodies(anon) -> None:
    """The OpenAPI document's request body for actions is generated from the same records: one component per
    action, chosen by ``action``, with the records' bounds."""
    schema = anon.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/tables/{table_id}/actions"]["post"]
    ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert request["discriminator"]["propertyName"] == "action"
    assert set(request["discriminator"]["mapping"]) == set(API_ACTIONS)
    bet = schema["components"]["schemas"]["BetBody"]
    assert bet["properties"]["amount"]["minimum"] == 1 and bet["properties"]["amount"]["maximum"] == 10**12
    assert bet["required"] == ["action", "amount"] or set(bet["required"]) == {"action", "amount"}


@pytest.mark.django_db
def test_a_refused_body_gets_the_contracts_error_and_changes_nothing(as_player) -> None:
    answer = as_player.post("/api/v1/tables/1/actions", {"action": "bet", "amount": "ten"}, format="json")
    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert error["code"] == "invalid_request"
    assert list(error["details"]["fields"]) == ["amount"]
