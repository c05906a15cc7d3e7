"""Request bodies (strict) and query parameters of the game endpoints (spec/API.md).

Answers are the published records of :mod:`tables.api.records` (their schema generated from them:
:mod:`tables.api.openapi`); the schemathesis run of the test suite checks every response against the schema.
"""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.settings import api_settings

from kit.serializers import StrictCharField, StrictIntegerField, StrictSerializer
from rules import PRESETS, TOGGLES, DomainError
from tables.api.presenters import API_ACTIONS
from tables.table_spec import TableSpec

# Read models keep chips per hand in 32-bit columns: a bet of at most this many chips keeps even the worst
# hand (8 hands x 7 punters x a 100x multiplier) inside them.
MAX_TABLE_BET = 100_000
MAX_TIMEOUT_S = 3600

# --- requests --------------------------------------------------------------------------------------------------


class TableCreateInput(StrictSerializer):
    name = StrictCharField(max_length=100, help_text="Shown in the lobby.")
    preset = serializers.ChoiceField(choices=list(PRESETS), help_text="classic, italian, spanish or hungarian.")
    rules = serializers.DictField(
        required=False,
        child=serializers.JSONField(),
        help_text="Overrides of single toggles of the preset, by name (RULES.md §4).",
    )
    min_bet = StrictIntegerField(min_value=1, max_value=MAX_TABLE_BET)
    max_bet = StrictIntegerField(min_value=1, max_value=MAX_TABLE_BET)
    max_seats = StrictIntegerField(
        min_value=2, max_value=8, help_text="Every seated player, a player banker included (house bank: 2-7)."
    )
    bank = serializers.ChoiceField(choices=["player", "house"])
    fixed_stake = StrictIntegerField(
        required=False, allow_null=True, min_value=1, max_value=MAX_TABLE_BET, help_text="S under bank_fixed."
    )
    turn_timeout_s = StrictIntegerField(required=False, min_value=1, max_value=MAX_TIMEOUT_S, default=30)
    betting_timeout_s = StrictIntegerField(required=False, min_value=1, max_value=MAX_TIMEOUT_S, default=30)

    class Meta:
        ref_name = "TableCreateRequest"

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        # The whole combination is the core's to judge (the same validation CreateTable runs), so a bad one is
        # a 400 naming the field; a toggle is named inside ``rules``.
        try:
            TableSpec.from_data(attrs).config()
        except DomainError as exc:
            field = str(exc.details.get("field") or api_settings.NON_FIELD_ERRORS_KEY)
            if field in TOGGLES or field not in self.fields:
                raise serializers.ValidationError({"rules": {field: [exc.message]}}) from exc
            raise serializers.ValidationError({field: [exc.message]}) from exc
        return attrs


class SeatInput(StrictSerializer):
    seat = StrictIntegerField(required=False, min_value=1, max_value=8, help_text="Default: the lowest free seat.")

    class Meta:
        ref_name = "SeatRequest"


class ActionInput(StrictSerializer):
    action = serializers.ChoiceField(choices=list(API_ACTIONS))
    amount = StrictIntegerField(required=False, min_value=1, max_value=10**12, help_text="Chips (bet, raise, ...).")
    hand = StrictIntegerField(
        required=False, min_value=0, max_value=15, help_text="Hand index (0 = first); default: the hand in turn."
    )
    target = StrictIntegerField(
        required=False, min_value=0, max_value=15, help_text="For assign: the hand to give the drawn card to."
    )
    expected_version = StrictIntegerField(
        required=False, min_value=0, max_value=2**31 - 1, help_text="409 stale_version if the table moved on."
    )

    class Meta:
        ref_name = "TableActionRequest"

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "target" in attrs:
            if attrs["action"] != "assign":
                raise serializers.ValidationError({"target": ["Only assign takes a target."]})
            if "hand" in attrs and attrs["hand"] != attrs["target"]:
                raise serializers.ValidationError({"target": ["Give the hand to assign to once (hand or target)."]})
            attrs["hand"] = attrs.pop("target")
        return attrs

    def command_args(self) -> dict[str, Any]:
        """The action's arguments for ``tables.services.table_act``."""
        return action_args(self.validated_data)


#: The integer fields of :class:`ActionInput` a plain body may carry, with their bounds (``target`` is not one: a
#: body naming it goes through the serializer's own check).
_PLAIN_ACTION_INTS = {"amount": (1, 10**12), "hand": (0, 15), "expected_version": (0, 2**31 - 1)}
_API_ACTION_SET = frozenset(API_ACTIONS)


def plain_action(body: Any) -> dict[str, Any] | None:
    """The validated data :class:`ActionInput` gives a body that plainly passes it (an object of a known
    ``action`` and in-range JSON integers among ``amount``, ``hand``, ``expected_version``), without building
    the serializer (DRF deep-copies its fields for every instance); None for anything else, which the serializer
    then judges and words the refusal of. ``tests/tables/api/test_action_input.py`` holds the two to the same
    answers."""
    if type(body) is not dict:
        return None
    action = body.get("action")
    if type(action) is not str or action not in _API_ACTION_SET:
        return None
    for key, value in body.items():
        if key == "action":
            continue
        bounds = _PLAIN_ACTION_INTS.get(key)
        if bounds is None or type(value) is not int or not bounds[0] <= value <= bounds[1]:
            return None
    return dict(body)


def action_args(validated: dict[str, Any]) -> dict[str, Any]:
    """The action's arguments for ``tables.services.table_act``, from the validated data of an action body."""
    return {k: v for k, v in validated.items() if k in ("amount", "hand")}


class DisputeInput(StrictSerializer):
    reason = StrictCharField(max_length=2000, help_text="What went wrong, in your words.")

    class Meta:
        ref_name = "DisputeRequest"


# --- queries ---------------------------------------------------------------------------------------------------


class CheckpointsQuery(serializers.Serializer):
    after = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=2**31 - 1, help_text="Only checkpoints with version > after."
    )
