"""Events and commands serialise to plain JSON with stable type names and back."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pytest
from msgspec.structs import replace

from gamemath.enums import SitInReason, StandReason
from rules import (
    EVENT_TYPES,
    BetPlaced,
    Context,
    HandBusted,
    HandStood,
    Hit,
    InvalidRequest,
    NextSeed,
    PlaceBet,
    Raise,
    SatIn,
    SitIn,
    Split,
    Stand,
    command_for_action,
    command_from_json,
    command_to_json,
    context_to_json,
    event_from_json,
    event_to_json,
    recorded_command,
)
from rules.codec import COMMAND_TYPES, UPCASTERS, added, upcast_event
from tests.rules.rules_helpers import Table


def test_event_json_has_a_stable_type_name_and_round_trips() -> None:
    t = Table("italian", stock=["7O", "4B", "5C", "11C"])
    t.when(SitIn, player_id="B")
    t.when(PlaceBet, player_id="P1", amount=10)
    t.when(Hit, player_id="P1")
    for event in t.events:
        data = json.loads(json.dumps(event_to_json(event)))
        assert data["type"] == type(event).__name__
        assert event_from_json(data) == event


def test_every_event_and_command_type_has_a_unique_name() -> None:
    assert len({cls.__name__ for cls in EVENT_TYPES}) == len(EVENT_TYPES) == 33
    assert len({cls.__name__ for cls in COMMAND_TYPES}) == len(COMMAND_TYPES)


def test_commands_round_trip_and_their_context_is_recorded_beside_them_without_plain_seeds() -> None:
    seed = NextSeed(commitment="c" * 64, sealed="sealed", seed="d" * 64, number=3)
    ctx = Context(now_ms=5, wallets={"a": 10}, entropy="ab" * 32, seeds=("e" * 64,), next_seeds=(seed,))
    for command in [
        PlaceBet(player_id="a", amount=10),
        Raise(player_id="a", amount=5, hand=1),
        Split(player_id="a"),
        Stand(player_id="a", hand=None),
    ]:
        data = json.loads(json.dumps(command_to_json(command)))
        assert "ctx" not in data and command_from_json(data) == command
        recorded = json.loads(json.dumps(context_to_json(ctx)))
        assert "d" * 64 not in json.dumps(recorded) and "e" * 64 not in json.dumps(recorded)
        again, context = recorded_command(data, recorded)
        assert again == command
        assert context == replace(ctx, seeds=(), next_seeds=(replace(seed, seed=None),))


def test_a_command_recorded_with_its_context_inside_still_decodes() -> None:
    """Events recorded before the context went beside the command hold it as the command's ``ctx``."""
    old = {"type": "PlaceBet", "ctx": {"now_ms": 7, "wallets": {"a": 3}, "entropy": "0" * 64}, "player_id": "a"}
    command, context = recorded_command({**old, "amount": 2}, None)
    assert command == PlaceBet(player_id="a", amount=2)
    assert context == Context(now_ms=7, wallets={"a": 3}, entropy="0" * 64)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"type": "Nope"}, "type"),
        ({"type": "PlaceBet", "player_id": "a"}, "amount"),
        ({"type": "PlaceBet", "player_id": "a", "amount": "9"}, "amount"),
        ({"type": "PlaceBet", "ctx": {"now_ms": True}, "player_id": "a", "amount": 9}, "ctx.now_ms"),
        ({"type": "Stand", "ctx": {"now_ms": 1}, "player_id": "a", "colour": 1}, "colour"),
    ],
)
def test_malformed_json_is_refused_naming_the_field(data: dict, field: str) -> None:  # type: ignore[type-arg]
    with pytest.raises(InvalidRequest) as refused:
        recorded_command(data, None) if "ctx" in data else command_from_json(data)
    assert refused.value.details["field"] == field


def test_api_action_bodies_map_to_commands() -> None:
    assert command_for_action("bet", "a", {"amount": 10}) == PlaceBet(player_id="a", amount=10)
    assert command_for_action("split", "a", {}) == Split(player_id="a", amount=None, hand=None)
    with pytest.raises(InvalidRequest):
        command_for_action("fold", "a", {})
    with pytest.raises(InvalidRequest):
        command_for_action("bet", "a", {"amount": 1.5})
    with pytest.raises(InvalidRequest):
        command_for_action("stand", "a", {"amount": 1})


@pytest.mark.parametrize(
    ("command", "field"),
    [
        (PlaceBet(player_id="P1", amount=10.5), "amount"),  # type: ignore[arg-type]
        (PlaceBet(player_id="P1", amount=True), "amount"),
        (Raise(player_id="P1", amount=5, hand="0"), "hand"),  # type: ignore[arg-type]
        (Stand(player_id=7), "player_id"),  # type: ignore[arg-type]
    ],
)
def test_commands_built_in_python_with_non_integer_arguments_are_refused(command: object, field: str) -> None:
    from rules import decide

    table = Table("classic")
    with pytest.raises(InvalidRequest) as refused:
        decide(command, table.state, table.ctx())  # type: ignore[arg-type]
    assert refused.value.details["field"] == field


def test_every_state_of_random_play_round_trips_through_plain_json() -> None:
    """Snapshots and the cached starting states of hands are stored as this JSON (issue #12)."""
    import random

    from rules import TableState, initial_state, state_from_json, state_to_json
    from tests.rules.rules_random_play import PRESETS, RandomTable

    seen = 0
    for n, preset in enumerate(PRESETS * 2):
        table = RandomTable(random.Random(n), preset, "house" if n % 2 else "player", rig_pictures=n > 3)
        table.setup(3)
        states: list[TableState] = [initial_state(), table.state]
        states += [step.after for step in table.run(150)]
        for state in states:
            data = json.loads(json.dumps(state_to_json(state)))
            assert state_from_json(data) == state
            seen += 1
    assert seen > 1000


@pytest.mark.parametrize(
    "data",
    [
        None,
        "a string",
        [1, 2, 3],
        {"version": "1"},
        {"version": 1, "unknown": 2},
        {"version": 1, "seats": [{"seat": 1}]},
        {"version": 1, "hand": {"number": 1}},
        {"__reduce__": ["os.system", ["echo owned"]]},
        {"version": 1, "config": {"preset": "classic", "rules": {"no": 1}}},
    ],
)
def test_a_state_that_does_not_decode_is_refused(data: object) -> None:
    from rules import state_from_json

    with pytest.raises(InvalidRequest):
        state_from_json(data)


# -- upcasting: a new field never breaks old rows ---------------------------------------------------------------


def test_an_old_shape_event_missing_a_field_added_later_decodes_with_its_default() -> None:
    # a bust recorded before the events carried the cards they show (no "cards" key)
    old = {
        "type": "HandBusted",
        "seat": 2,
        "hand": 0,
        "banker": False,
        "total_half_points": 17,
        "matta_value": None,
    }
    event = event_from_json(old)
    assert isinstance(event, HandBusted) and event.cards == ()
    # a bet recorded before timeouts placed bets (no "by_timeout")
    bet = event_from_json(
        {
            "type": "BetPlaced",
            "seat": 1,
            "player_id": "p",
            "hand": 0,
            "amount": 10,
            "stake": 10,
            "punter_reserve": 10,
            "banker_reserve": 10,
            "banker_id": "b",
        }
    )
    assert isinstance(bet, BetPlaced) and bet.by_timeout is False


def test_an_upcaster_fills_what_a_default_cannot(monkeypatch: pytest.MonkeyPatch) -> None:
    def seat_from_player(data: Mapping[str, Any]) -> Mapping[str, Any]:
        return data if "seat" in data else {**data, "seat": int(data["player_id"][1:])}

    monkeypatch.setitem(UPCASTERS, "SatIn", (seat_from_player, added("reason", "request")))
    assert event_from_json({"type": "SatIn", "player_id": "p3"}) == SatIn(
        seat=3, player_id="p3", reason=SitInReason.REQUEST
    )
    assert upcast_event({"type": "SatIn", "seat": 1, "player_id": "p3", "reason": "ready"})["seat"] == 1


def test_an_old_row_still_fails_clearly_where_nothing_upcasts_it() -> None:
    with pytest.raises(InvalidRequest) as missing:
        event_from_json({"type": "SatIn", "seat": 1, "player_id": "p"})
    assert missing.value.details["field"] == "reason"
    with pytest.raises(InvalidRequest) as unknown:
        event_from_json({"type": "HandDoubled", "seat": 1})
    assert unknown.value.details["field"] == "type" and "HandDoubled" in unknown.value.message
    with pytest.raises(InvalidRequest) as extra:
        event_from_json({"type": "SatIn", "seat": 1, "player_id": "p", "reason": "ready", "mood": "happy"})
    assert extra.value.details["field"] == "mood"


def test_the_words_of_the_rules_decode_to_their_enums_and_refuse_other_strings() -> None:
    stood = event_from_json({"type": "HandStood", "seat": 1, "hand": 0, "banker": False, "reason": "timeout"})
    assert isinstance(stood, HandStood) and stood.reason is StandReason.TIMEOUT and stood.reason == "timeout"
    assert json.dumps(event_to_json(stood)) == json.dumps(
        {"type": "HandStood", "seat": 1, "hand": 0, "banker": False, "reason": "timeout"}
    )
    with pytest.raises(InvalidRequest) as refused:
        event_from_json({"type": "HandStood", "seat": 1, "hand": 0, "banker": False, "reason": "bored"})
    assert refused.value.details["field"] == "reason"
