"""The table configuration carried by ``CreateTable`` / ``TableCreated`` and its validation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Struct

from gamemath.enums import Bank, Preset, StakeMode
from gamemath.errors import invalid
from gamemath.ruleset import Rules, resolve_rules

BANKS: tuple[str, ...] = tuple(Bank)
DEFAULT_TIMEOUT_S = 30
MAX_TIMEOUT_S = 3600


class TableConfig(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A validated table: preset, resolved rules, limits, seats, bank and timeouts (API.md table body)."""

    preset: Preset
    rules: Rules
    min_bet: int
    max_bet: int
    max_seats: int
    bank: Bank
    fixed_stake: int | None = None
    turn_timeout_s: int = DEFAULT_TIMEOUT_S
    betting_timeout_s: int = DEFAULT_TIMEOUT_S

    @property
    def house_bank(self) -> bool:
        """True when the house is the permanent banker."""
        return self.bank == Bank.HOUSE


def _positive_int(field: str, value: object, *, low: int = 1, high: int | None = None) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < low or (high is not None and value > high):
        bound = f"from {low} to {high}" if high is not None else f"of at least {low}"
        raise invalid(field, f"{field} must be an integer {bound}")
    return value


def make_table_config(
    *,
    preset: str,
    overrides: Mapping[str, object] | None = None,
    min_bet: object,
    max_bet: object,
    max_seats: object,
    bank: object,
    fixed_stake: object = None,
    turn_timeout_s: object = DEFAULT_TIMEOUT_S,
    betting_timeout_s: object = DEFAULT_TIMEOUT_S,
) -> TableConfig:
    """Resolve the preset with its overrides and validate the whole table; errors name the field.

    ``max_seats`` counts every seated player: 2-8 with a player bank (the banker included) and 2-7 with a
    house bank, since RULES.md §2 allows at most 7 punters against one banker.
    """
    if not isinstance(preset, str):
        raise invalid("preset", "preset must be a string")
    rules = resolve_rules(preset, overrides)
    if bank not in BANKS:
        raise invalid("bank", "bank must be 'player' or 'house'")
    if bank == "player" and overrides and "banker_stands_at_hp" in overrides:
        raise invalid("banker_stands_at_hp", "banker_stands_at_hp applies only to a house bank")
    low = _positive_int("min_bet", min_bet)
    high = _positive_int("max_bet", max_bet, low=low)
    seats = _positive_int("max_seats", max_seats, low=2, high=8 if bank == "player" else 7)
    stake: int | None = None
    if rules.stake_mode == StakeMode.BANK_FIXED:
        if fixed_stake is None:
            raise invalid("fixed_stake", "fixed_stake is required when stake_mode is bank_fixed")
        stake = _positive_int("fixed_stake", fixed_stake, low=low, high=high)
    elif fixed_stake is not None:
        raise invalid("fixed_stake", "fixed_stake is only for stake_mode bank_fixed")
    return TableConfig(
        preset=Preset(preset),
        rules=rules,
        min_bet=low,
        max_bet=high,
        max_seats=seats,
        bank=Bank(bank),
        fixed_stake=stake,
        turn_timeout_s=_positive_int("turn_timeout_s", turn_timeout_s, high=MAX_TIMEOUT_S),
        betting_timeout_s=_positive_int("betting_timeout_s", betting_timeout_s, high=MAX_TIMEOUT_S),
    )


def config_to_dict(config: TableConfig) -> dict[str, Any]:
    """The configuration as plain JSON (rules as a dict of every toggle)."""
    return {
        "preset": config.preset,
        "rules": config.rules.to_dict(),
        "min_bet": config.min_bet,
        "max_bet": config.max_bet,
        "max_seats": config.max_seats,
        "bank": config.bank,
        "fixed_stake": config.fixed_stake,
        "turn_timeout_s": config.turn_timeout_s,
        "betting_timeout_s": config.betting_timeout_s,
    }
