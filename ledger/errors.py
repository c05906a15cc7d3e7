"""Errors of the ledger. Each has a stable ``code`` (the error codes of API.md where the API has one) and the
HTTP status the API contract gives it, so one DRF exception handler can map every ledger error."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class LedgerError(Exception):
    """Base of every refusal by the ledger. Nothing has been written when one is raised."""

    code: str = "ledger_error"
    http_status: int = 409

    def __init__(self, message: str, details: Mapping[str, Any] | None = None):
        super().__init__(message)
        self.message = message
        self.details: dict[str, Any] = dict(details or {})

    def to_json(self) -> dict[str, Any]:
        """The API error body: ``{"error": {"code", "message", "details"}}``."""
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


class InsufficientFunds(LedgerError):
    """A wallet would go below zero (a stake, a withdrawal, a correction)."""

    code = "insufficient_funds"


class BankCannotCover(LedgerError):
    """A player banker's wallet cannot reserve what the banker could lose on a stake."""

    code = "bank_cannot_cover"


class IdempotencyConflict(LedgerError):
    """The cause was already posted with different content."""

    code = "idempotency_conflict"


class InvalidEntry(LedgerError, ValueError):
    """Malformed arguments: a non-positive or non-integer amount, an unbalanced correction, ..."""

    code = "invalid_request"
    http_status = 400


class UnknownAccount(LedgerError):
    """An account code or user that does not exist."""

    code = "not_found"
    http_status = 404


class LedgerInvariantError(LedgerError):
    """The caller asked for something that would break an invariant of the ledger (a bug in the caller,
    never something a client can send): a settlement that does not empty the hand's escrow, ..."""

    code = "ledger_invariant"
    http_status = 500


class SettlementMismatch(LedgerInvariantError):
    """Payouts that do not add up to what the hand holds in escrow, or do not match the hand's results."""

    code = "settlement_mismatch"


class HandAlreadySettled(LedgerInvariantError):
    """A stake or a second settlement for a hand that is already settled."""

    code = "hand_already_settled"
