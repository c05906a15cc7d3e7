"""Events and commands serialise to plain JSON with stable type names and back."""

from __future__ import annotations

import json

import pytest
from rules_helpers import Table

from tables.rules import (
    EVENT_TYPES,
    Context,
    Hit,
    InvalidRequest,
    PlaceBet,
    Raise,
    SitIn,
    Split,
    Stand,
    command_for_action,
    command_from_json,
    command_to_json,
    event_from_json,
    event_to_json,
)
from tables.rules.codec import COMMAND_TYPES


def test_event_json_has_a_stable_type_name_and_round_trips() -> None:
    t = Table("italian", stock=["7O", "4B", "5C", "11C"])
    t.when(SitIn, "B")
    t.when(PlaceBet, "P1", 10)
    t.when(Hit, "P1")
    for event in t.events:
        data = json.loads(json.dumps(event_to_json(event)))
        assert data["type"] == type(event).__name__
        assert event_from_json(data) == event


def test_every_event_and_command_type_has_a_unique_name() -> None:
    assert len({cls.__name__ for cls in EVENT_TYPES}) == len(EVENT_TYPES) == 33
    assert len({cls.__name__ for cls in COMMAND_TYPES}) == len(COMMAND_TYPES)


def test_commands_round_trip_with_their_context() -> None:
    ctx = Context(now_ms=5, wallets={"a": 10}, entropy="ab" * 32)
    for command in [PlaceBet(ctx, "a", 10), Raise(ctx, "a", 5, 1), Split(ctx, "a"), Stand(ctx, "a", None)]:
        data = json.loads(json.dumps(command_to_json(command)))
        assert command_from_json(data) == command


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"type": "Nope"}, "type"),
        ({"type": "PlaceBet", "ctx": {"now_ms": 1, "wallets": {}, "entropy": "0" * 64}, "player_id": "a"}, "amount"),
        (
            {
                "type": "PlaceBet",
                "ctx": {"now_ms": 1, "wallets": {}, "entropy": "0" * 64},
                "player_id": "a",
                "amount": "9",
            },
            "amount",
        ),
        ({"type": "PlaceBet", "ctx": {"now_ms": True}, "player_id": "a", "amount": 9}, "ctx.now_ms"),
        ({"type": "Stand", "ctx": {"now_ms": 1}, "player_id": "a", "colour": 1}, "colour"),
    ],
)
def test_malformed_json_is_refused_naming_the_field(data: dict, field: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(InvalidRequest) as refused:
        command_from_json(data)
    assert refused.value.details["field"] == field


def test_api_action_bodies_map_to_commands() -> None:
    ctx = Context(now_ms=5)
    assert command_for_action("bet", ctx, "a", {"amount": 10}) == PlaceBet(ctx, "a", 10)
    assert command_for_action("split", ctx, "a", {}) == Split(ctx, "a", None, None)
    with pytest.raises(InvalidRequest):
        command_for_action("fold", ctx, "a", {})
    with pytest.raises(InvalidRequest):
        command_for_action("bet", ctx, "a", {"amount": 1.5})
    with pytest.raises(InvalidRequest):
        command_for_action("stand", ctx, "a", {"amount": 1})


@pytest.mark.parametrize(
    ("command", "field"),
    [
        (PlaceBet(Context(now_ms=5), "P1", 10.5), "amount"),  # type: ignore[arg-type]
        (PlaceBet(Context(now_ms=5), "P1", True), "amount"),
        (Raise(Context(now_ms=5), "P1", 5, "0"), "hand"),  # type: ignore[arg-type]
        (Stand(Context(now_ms=5), 7), "player_id"),  # type: ignore[arg-type]
    ],
)
def test_commands_built_in_python_with_non_integer_arguments_are_refused(command: object, field: str) -> None:
    from tables.rules import decide

    table = Table("classic")
    with pytest.raises(InvalidRequest) as refused:
        decide(command, table.state)  # type: ignore[arg-type]
    assert refused.value.details["field"] == field
