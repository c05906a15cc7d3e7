"""``POST /tables/{id}/actions`` checks a plainly valid body without building DRF's serializer
(``tables.api.serializers.plain_action``): it must accept exactly what ``ActionInput`` accepts, with the same
validated data, and leave every other body to the serializer (which words the refusal)."""

from __future__ import annotations

from typing import Any

import pytest

from tables.api.presenters import API_ACTIONS
from tables.api.serializers import ActionInput, action_args, plain_action

BODIES: list[Any] = [
    *({"action": name} for name in API_ACTIONS),
    {"action": "bet", "amount": 10},
    {"action": "bet", "amount": 1},
    {"action": "bet", "amount": 10**12},
    {"action": "bet", "amount": 10**12 + 1},
    {"action": "bet", "amount": 0},
    {"action": "bet", "amount": -5},
    {"action": "bet", "amount": 10.0},
    {"action": "bet", "amount": "10"},
    {"action": "bet", "amount": True},
    {"action": "bet", "amount": None},
    {"action": "hit", "hand": 0},
    {"action": "hit", "hand": 15},
    {"action": "hit", "hand": 16},
    {"action": "hit", "hand": False},
    {"action": "stand", "expected_version": 0},
    {"action": "stand", "expected_version": 2**31 - 1},
    {"action": "stand", "expected_version": 2**31},
    {"action": "stand", "expected_version": -1},
    {"action": "assign", "target": 1},
    {"action": "hit", "target": 1},
    {"action": "assign", "hand": 1, "target": 1},
    {"action": "assign", "hand": 0, "target": 1},
    {"action": "hit", "colour": "red"},
    {"action": "sit_down"},
    {"action": "leave"},
    {"action": "HIT"},
    {"action": 1},
    {"action": ["hit"]},
    {"action": None},
    {"action": ""},
    {"amount": 10},
    {},
    [],
    ["hit"],
    "hit",
    None,
    7,
]


@pytest.mark.parametrize("body", BODIES, ids=repr)
def test_a_plain_body_is_accepted_exactly_as_the_serializer_accepts_it(body: Any) -> None:
    serializer = ActionInput(data=body)
    valid = serializer.is_valid()
    plain = plain_action(body)
    if plain is None:  # left to the serializer: only bodies it refuses, or a target it rewrites
        assert not valid or (isinstance(body, dict) and "target" in body), body
        return
    assert valid, (body, serializer.errors)
    assert plain == dict(serializer.validated_data)
    assert action_args(plain) == serializer.command_args()


def test_plainly_valid_bodies_take_the_fast_path() -> None:
    """Not a stub: the bench's bodies are judged without the serializer."""
    assert plain_action({"action": "bet", "amount": 10}) == {"action": "bet", "amount": 10}
    assert plain_action({"action": "stand", "hand": 0, "expected_version": 3}) is not None
