"""Serializer building blocks of the API: strict input (no unknown fields, no coerced types) and the error body.

DRF is lenient by default: it ignores fields it does not know, reads ``"10"`` and ``10.0`` as the integer 10
and ``123`` as the string ``"123"``. The API contract refuses all of these with 400 ``invalid_request``, so
every input serializer derives from :class:`StrictSerializer` and uses the strict fields below.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework import serializers
from rest_framework.settings import api_settings

# The largest chip amount one request may move: far above any real stake or deposit, far below the range of
# the ledger's bigint balances (so no sum of accepted amounts can overflow them), and exact in JSON numbers.
MAX_CHIP_AMOUNT = 10**12

UNKNOWN_FIELD_MESSAGE = "Unknown field."


class RejectUnknownFieldsMixin:
    # Refuses a body that carries a field the serializer does not declare (or declares read-only), naming it
    # among the other field errors. Works at every level of nesting: a nested strict serializer checks its
    # own object. (Comments, not docstrings: drf-spectacular would show them as every subclass's description.)

    def to_internal_value(self, data: Any) -> Any:
        unknown: dict[str, list[str]] = {}
        if isinstance(data, Mapping):
            writable = {field.field_name for field in self._writable_fields}  # type: ignore[attr-defined]
            unknown = {str(name): [UNKNOWN_FIELD_MESSAGE] for name in data if name not in writable}
        try:
            value = super().to_internal_value(data)  # type: ignore[misc]
        except serializers.ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                raise serializers.ValidationError({**unknown, **exc.detail}) from exc
            raise
        if unknown:
            raise serializers.ValidationError(unknown)
        return value


class StrictSerializer(RejectUnknownFieldsMixin, serializers.Serializer):
    # Base of every input serializer of the API: unknown fields are refused.
    pass


class StrictCharField(serializers.CharField):
    """A string, and only a string (DRF's CharField turns numbers into strings)."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer, and only that: no booleans, floats (even ``10.0``) or strings of digits."""

    default_error_messages = {"invalid": "A JSON integer is required (no strings, floats or booleans)."}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return int(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    """``true`` or ``false``, and nothing that merely looks like them (``"yes"``, ``1``)."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class ChipAmountField(StrictIntegerField):
    """A positive whole number of chips (1 to :data:`MAX_CHIP_AMOUNT`)."""

    def __init__(self, **kwargs: Any):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_CHIP_AMOUNT)
        super().__init__(**kwargs)


# --- the error body (for the OpenAPI schema; the handler in kit.api_errors builds it) -------------------


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable machine-readable code, such as `insufficient_funds`.")
    message = serializers.CharField(help_text="A human sentence.")
    details = serializers.DictField(
        help_text=(
            "Machine-readable context. Validation errors carry `fields`: `{field: [messages]}` (errors about "
            f"the body as a whole under `{api_settings.NON_FIELD_ERRORS_KEY}`)."
        )
    )

    class Meta:
        ref_name = "Error"


class ErrorResponseSerializer(serializers.Serializer):
    """Every error response of the API has this body."""

    error = ErrorSerializer()

    class Meta:
        ref_name = "ErrorResponse"
