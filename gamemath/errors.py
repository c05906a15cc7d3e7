"""Domain errors of the rules core.

Every refusal is a :class:`DomainError` carrying a stable machine-readable ``code`` (the error codes of
API.md), a human sentence and a JSON-ready ``details`` dict. A refused command produces no events.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class DomainError(Exception):
    """A request the rules refuse; ``code`` is one of the API error codes."""

    code: str = "illegal_action"

    def __init__(self, message: str, details: Mapping[str, Any] | None = None, *, code: str | None = None):
        super().__init__(message)
        if code is not None:
            self.code = code
        self.message = message
        self.details: dict[str, Any] = dict(details or {})

    def to_json(self) -> dict[str, Any]:
        """The API error body: ``{"error": {"code", "message", "details"}}``."""
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r}, {self.details!r})"


class NotYourTurn(DomainError):
    code = "not_your_turn"


class WrongPhase(DomainError):
    code = "wrong_phase"


class IllegalAction(DomainError):
    code = "illegal_action"


class InsufficientFunds(DomainError):
    code = "insufficient_funds"


class BankCannotCover(DomainError):
    code = "bank_cannot_cover"


class LimitReached(DomainError):
    """A stake would pass the player's responsible-gaming loss limit (``Context.loss_room``)."""

    code = "limit_reached"


class SeatOccupied(DomainError):
    """The chosen seat has a player (API code ``seat_taken``; the event of sitting down is ``SeatTaken``)."""

    code = "seat_taken"


class TableFull(DomainError):
    code = "table_full"


class AlreadySeated(DomainError):
    code = "already_seated"


class NotFound(DomainError):
    code = "not_found"


class NotSeated(DomainError):
    """An action at a table (that exists) where the caller has no seat; API status 409."""

    code = "not_seated"


class BetOutOfLimits(DomainError):
    """A stake outside the table's static limits (or not exactly S under ``bank_fixed``); API status 400."""

    code = "bet_out_of_limits"


class InvalidRequest(DomainError):
    """A malformed command or an invalid table configuration; ``details["field"]`` names the culprit."""

    code = "invalid_request"


def invalid(field: str, message: str) -> InvalidRequest:
    """An :class:`InvalidRequest` naming ``field``."""
    return InvalidRequest(message, {"field": field})


ERROR_CODES: tuple[str, ...] = (
    "not_your_turn",
    "wrong_phase",
    "illegal_action",
    "insufficient_funds",
    "bank_cannot_cover",
    "seat_taken",
    "table_full",
    "already_seated",
    "not_seated",
    "not_found",
    "bet_out_of_limits",
    "invalid_request",
)
