"""Validation of the services' arguments: integers are ints (never bools, floats or strings), causes are
non-empty strings that fit the column."""

from __future__ import annotations

from ledger.accounts import check_int
from ledger.errors import InvalidEntry

MAX_CAUSE_LENGTH = 200

__all__ = ["MAX_CAUSE_LENGTH", "check_cause", "check_int", "non_negative", "positive"]


def check_cause(cause: object) -> str:
    if not isinstance(cause, str) or not cause or len(cause) > MAX_CAUSE_LENGTH:
        raise InvalidEntry(f"cause must be a non-empty string of at most {MAX_CAUSE_LENGTH} characters")
    return cause


def positive(value: object, name: str) -> int:
    number = check_int(value, name)
    if number <= 0:
        raise InvalidEntry(f"{name} must be positive, got {number}", {"field": name})
    return number


def non_negative(value: object, name: str) -> int:
    number = check_int(value, name)
    if number < 0:
        raise InvalidEntry(f"{name} must not be negative, got {number}", {"field": name})
    return number
