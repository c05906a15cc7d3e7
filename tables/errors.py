"""Every error the game's shell raises (the rules core's own refusals are ``rules.DomainError``s, the
ledger's are in ``ledger.errors``).

Those that reach a client are ``DomainError``s with the API contract's ``code``; ``kit.api_errors`` is the one
place that turns any of them into a response body. The others are for the shell itself: a timer delivered early,
a stream appended to first, a dispute resolved twice, a table id with no table.
"""

from __future__ import annotations

from typing import Any

from rules import DomainError


# --- refusals a client sees (kit.api_errors maps them by ``code``) -----------------------------------------------
class TableNotFound(DomainError):
    """A command for a table that does not exist."""

    code = "not_found"


class Forbidden(DomainError):
    """The user may not read this (a hand of others, a table's feed as somebody else...)."""

    code = "forbidden"


class HandInPlay(DomainError):
    """A hand cannot be verified before it ends."""

    code = "wrong_phase"


class StaleVersion(DomainError):
    """The client said which version it acted on, and the table has moved on."""

    code = "stale_version"

    def __init__(self, expected: int, actual: int) -> None:
        super().__init__(
            f"the table is at version {actual}, not {expected}", {"expected_version": expected, "version": actual}
        )


class SeatLimit(DomainError):
    """The account already holds ``SEATS_PER_ACCOUNT`` seats over all tables (API.md v1.2 "Actions", seats)."""

    code = "seat_limit"


class RulesRefused(DomainError):
    """A house-banked table card outside the casino's return-to-player limits (API.md v1.3, ``tables.worth``)."""

    code = "rules_refused"


class IdempotencyConflict(DomainError):
    """The same idempotency key was used before for a different command."""

    code = "idempotency_conflict"


# --- conditions the shell handles itself ----------------------------------------------------------------------------
class SeatNotIdle(Exception):
    """A seat the idle sweep found is not idle any more (its player took part, left, or sat down again)."""

    def __init__(self, table_id: int, user_id: int) -> None:
        super().__init__(f"the seat of user {user_id} at table {table_id} is not idle")


class ConcurrencyConflict(Exception):
    """Another command appended to the stream first: the expected version is taken.

    The pipeline decides again on the new state; only if that keeps failing does it reach a client, as a 409.
    """

    code = "stale_version"
    message = "the table changed while the command was decided; try again"
    details: dict[str, Any] = {}


class TableMissing(LookupError):
    """There is no such table (the engine's load; the services turn it into ``TableNotFound``)."""


class TimeoutNotDue(Exception):
    """A timeout asked for before its deadline, on the database's clock (``remaining_ms`` to go)."""

    def __init__(self, table_id: int, remaining_ms: int) -> None:
        super().__init__(f"the wait of table {table_id} is not due for {remaining_ms} ms")
        self.remaining_ms = remaining_ms


class DisputeAlreadyResolved(Exception):
    """The dispute was resolved before (perhaps by another operator a moment ago)."""
