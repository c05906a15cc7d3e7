"""``TableSpec``: what an operator chooses when creating a table, passed as one value from the layer that reads
it (the API's ``TableCreateInput``, the admin's ``TableCreateForm``, the demo seeder) through
``tables.services.table_create`` to the core's ``CreateTable``.

The core stays the judge of a combination (``make_table_config``, the same validation ``CreateTable`` runs); this
is only the shell's carrier of the nine settings, converted to the core's arguments in one place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules import CreateTable, TableConfig, make_table_config

DEFAULT_TIMEOUT_S = 30


@dataclass(frozen=True, slots=True, kw_only=True)
class TableSpec:
    """A table's settings (API.md ``POST /tables``): the preset and its overrides (``rules``, toggles by name),
    the bets, the seats, the bank and the timeouts. The table's name is no part of it (no event holds it)."""

    preset: str
    rules: Mapping[str, Any] = field(default_factory=dict)
    min_bet: int
    max_bet: int
    max_seats: int
    bank: str
    fixed_stake: int | None = None
    turn_timeout_s: int = DEFAULT_TIMEOUT_S
    betting_timeout_s: int = DEFAULT_TIMEOUT_S

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> TableSpec:
        """The spec of validated input (``TableCreateInput``'s fields; a ``name`` in it is ignored)."""
        return cls(
            preset=data["preset"],
            rules=dict(data.get("rules") or {}),
            min_bet=data["min_bet"],
            max_bet=data["max_bet"],
            max_seats=data["max_seats"],
            bank=data["bank"],
            fixed_stake=data.get("fixed_stake"),
            turn_timeout_s=data.get("turn_timeout_s", DEFAULT_TIMEOUT_S),
            betting_timeout_s=data.get("betting_timeout_s", DEFAULT_TIMEOUT_S),
        )

    def _core_arguments(self) -> dict[str, Any]:
        return {
            "preset": self.preset,
            "overrides": dict(self.rules),
            "min_bet": self.min_bet,
            "max_bet": self.max_bet,
            "max_seats": self.max_seats,
            "bank": self.bank,
            "fixed_stake": self.fixed_stake,
            "turn_timeout_s": self.turn_timeout_s,
            "betting_timeout_s": self.betting_timeout_s,
        }

    def config(self) -> TableConfig:
        """The resolved, validated configuration; raises the core's ``DomainError`` naming the field."""
        return make_table_config(**self._core_arguments())

    def command(self) -> CreateTable:
        """The core's command that creates a table with these settings."""
        return CreateTable(**self._core_arguments())
