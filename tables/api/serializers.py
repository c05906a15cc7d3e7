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


class DisputeInput(StrictSerializer):
    reason = StrictCharField(max_length=2000, help_text="What went wrong, in your words.")

    class Meta:
        ref_name = "DisputeRequest"


# --- queries ---------------------------------------------------------------------------------------------------


class CheckpointsQuery(serializers.Serializer):
    after = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=2**31 - 1, help_text="Only checkpoints with version > after."
    )
