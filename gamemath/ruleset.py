"""Rule sets: the toggles of RULES.md §4, the four presets of §8, overrides and their validation.

``resolve_rules(preset, overrides)`` returns a frozen :class:`Rules` or raises
:class:`~gamemath.errors.InvalidRequest` whose ``details["field"]`` names the offending toggle.
The reserve multipliers of §7 are derived here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from enum import StrEnum
from typing import Any

from gamemath.cards import is_card
from gamemath.enums import (
    BankRotation,
    BankTrigger,
    BetTiming,
    MattaAlone,
    MattaValues,
    Preset,
    RealeWithMatta,
    SplitMode,
    StakeMode,
    TieRule,
)
from gamemath.errors import invalid

PRESET_NAMES: tuple[str, ...] = tuple(Preset)

#: The word each enumerated toggle takes (a ``StrEnum``: the admin offers its values as choices).
ENUM_TYPES: dict[str, type[StrEnum]] = {
    "bet_timing": BetTiming,
    "stake_mode": StakeMode,
    "reale_with_matta": RealeWithMatta,
    "matta_values": MattaValues,
    "matta_alone_value": MattaAlone,
    "split_mode": SplitMode,
    "tie_rule": TieRule,
    "bank_transfer_trigger": BankTrigger,
    "bank_rotation": BankRotation,
}
#: The values each enumerated toggle may take.
ENUM_TOGGLES: dict[str, tuple[str, ...]] = {name: tuple(kind) for name, kind in ENUM_TYPES.items()}
_BOOLS = ("raise_on_draw", "hidden_card_swap", "reale", "pair_of_sevens")
#: Pay/collect multipliers: integers >= 1.
_MULTIPLIERS = (
    "reale_pays",
    "reale_vs_banker_75_pays",
    "banker_reale_collect",
    "pair7_pays",
    "banker_pair7_collect",
    "player_win_pays",
    "player_75_pays",
    "banker_75_collect_vs_other",
    "banker_75_collect_vs_75",
)
_MAX_MULTIPLIER = 100
#: Toggles that mean nothing unless another toggle enables them: name -> (enabling toggle, test).
_DEPENDS: dict[str, str] = {
    "reale_pays": "reale",
    "reale_vs_banker_75_pays": "reale",
    "banker_reale_collect": "reale",
    "reale_with_matta": "reale",
    "pair7_pays": "pair_of_sevens",
    "banker_pair7_collect": "pair_of_sevens",
    "matta_values": "matta",
    "matta_alone_value": "matta",
    "max_hands_per_punter": "split_mode",
}


class _Derived:
    """What a :class:`Rules` derives from its toggles once, when it is built: the reserve multipliers of §7, which
    every stake is made of, and the hands a punter may hold. Neither toggles nor encoded (not fields); kept in
    slots of their own."""

    __slots__ = ("banker_loss_multiplier", "hands_per_punter", "punter_loss_multiplier")

    #: The largest multiple of a stake a punter can lose under these toggles (:func:`punter_loss_multiplier`).
    punter_loss_multiplier: int
    #: The largest multiple of a stake a banker can lose (a punter can win) (:func:`banker_loss_multiplier`).
    banker_loss_multiplier: int
    #: How many hands one punter may hold at once (indices 0 to this minus one): more only by splitting.
    hands_per_punter: int


@dataclass(frozen=True, kw_only=True, slots=True)
class Rules(_Derived):
    """Every resolved toggle of RULES.md §4 (the "table card"); checked whenever it is built or decoded
    (:func:`validate_rules`), and what it derives from them worked out then, once per ``Rules`` (:class:`_Derived`).

    A frozen dataclass, not a ``msgspec.Struct`` like the core's other records: ``tools/verify_hand.py`` loads this
    module with the standard library alone (players run it without the server's dependencies). Slotted: a toggle is
    read on almost every step of a hand (a dataclass field with a default, not slotted, is read from the instance
    dictionary past the class default, at twice the cost)."""

    bet_timing: BetTiming = BetTiming.BEFORE_DEAL
    stake_mode: StakeMode = StakeMode.PLAYER_CHOICE
    raise_on_draw: bool = False
    hidden_card_swap: bool = False
    reale: bool = False
    reale_pays: int = 2
    reale_vs_banker_75_pays: int = 2
    banker_reale_collect: int = 1
    reale_with_matta: RealeWithMatta = RealeWithMatta.ANY
    matta: str = "none"
    matta_values: MattaValues = MattaValues.HALF_OR_INTEGERS
    matta_alone_value: MattaAlone = MattaAlone.HALF
    pair_of_sevens: bool = False
    pair7_pays: int = 3
    banker_pair7_collect: int = 1
    split_mode: SplitMode = SplitMode.NONE
    max_hands_per_punter: int = 4
    player_win_pays: int = 1
    player_75_pays: int = 1
    banker_75_collect_vs_other: int = 1
    banker_75_collect_vs_75: int = 1
    tie_rule: TieRule = TieRule.BANKER
    bank_transfer_trigger: BankTrigger = BankTrigger.ANY_75
    bank_rotation: BankRotation = BankRotation.NEVER
    banker_stands_at_hp: int = 10

    def __post_init__(self) -> None:
        validate_rules(self)
        object.__setattr__(self, "punter_loss_multiplier", punter_loss_multiplier(self))
        object.__setattr__(self, "banker_loss_multiplier", banker_loss_multiplier(self))
        object.__setattr__(
            self, "hands_per_punter", 1 if self.split_mode == SplitMode.NONE else self.max_hands_per_punter
        )

    def __getstate__(self) -> dict[str, object]:
        """Copied or pickled as its toggles: what it derives from them is worked out again (``__setstate__``)."""
        return {name: getattr(self, name) for name in TOGGLES}

    def __setstate__(self, state: dict[str, object]) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        self.__post_init__()

    def to_dict(self) -> dict[str, Any]:
        """Every toggle by name, JSON-ready."""
        return asdict(self)

    @property
    def has_matta(self) -> bool:
        """True when a wild card is in play."""
        return self.matta != "none"


TOGGLES: tuple[str, ...] = tuple(f.name for f in fields(Rules))


def punter_loss_multiplier(rules: Rules) -> int:
    """Largest loss multiplier that can apply to a punter hand (§5 step 4 'worse', and bust = 1).

    A banker 7½ collects ``banker_75_collect_vs_75`` only from a punter 7½ it ties with, which under
    ``tie_rule: push`` is returned instead, so that multiplier counts only with ``tie_rule: banker``.
    """
    candidates = [1, rules.banker_75_collect_vs_other]
    if rules.tie_rule == TieRule.BANKER:
        candidates.append(rules.banker_75_collect_vs_75)
    if rules.reale:
        candidates.append(rules.banker_reale_collect)
    if rules.pair_of_sevens:
        candidates.append(rules.banker_pair7_collect)
    return max(candidates)


def banker_loss_multiplier(rules: Rules) -> int:
    """Largest win multiplier a punter hand can be paid (what a banker reserves per staked chip, §7)."""
    candidates = [rules.player_win_pays, rules.player_75_pays]
    if rules.reale:
        candidates += [rules.reale_pays, rules.reale_vs_banker_75_pays]
    if rules.pair_of_sevens:
        candidates.append(rules.pair7_pays)
    return max(candidates)


def _int_in(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _check_value(name: str, value: object) -> None:
    if name in _BOOLS:
        if not isinstance(value, bool):
            raise invalid(name, f"toggle {name} must be true or false")
    elif name in ENUM_TOGGLES:
        if value not in ENUM_TOGGLES[name]:
            raise invalid(name, f"toggle {name} must be one of {', '.join(ENUM_TOGGLES[name])}")
    elif name == "matta":
        if value != "none" and not is_card(value):
            raise invalid(name, "toggle matta must be 'none' or a card code such as '12O'")
    elif name in _MULTIPLIERS:
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= _MAX_MULTIPLIER:
            raise invalid(name, f"toggle {name} must be an integer multiplier from 1 to {_MAX_MULTIPLIER}")
    elif name == "max_hands_per_punter":
        if not isinstance(value, int) or isinstance(value, bool) or not 2 <= value <= 8:
            raise invalid(name, "toggle max_hands_per_punter must be an integer from 2 to 8")
    elif name == "banker_stands_at_hp" and not _int_in(value, 1, 15):
        raise invalid(name, "toggle banker_stands_at_hp must be an integer number of half-points from 1 to 15")


def _enabled(rules: Rules, toggle: str) -> bool:
    if toggle == "matta":
        return rules.has_matta
    if toggle == "split_mode":
        return rules.split_mode != SplitMode.NONE
    return bool(getattr(rules, toggle))


def validate_rules(rules: Rules, overridden: frozenset[str] = frozenset()) -> None:
    """Refuse a rule set that makes no sense; ``overridden`` names the toggles set explicitly.

    Every value is type- and range-checked; an explicitly set toggle that only matters when another is
    enabled (``reale_pays`` without ``reale``, ...) is refused, as is any combination the rules cannot play.
    """
    for name in TOGGLES:
        _check_value(name, getattr(rules, name))
    for name in sorted(overridden):
        enabling = _DEPENDS.get(name)
        if enabling is not None and not _enabled(rules, enabling):
            raise invalid(name, f"toggle {name} makes no sense without {enabling}")
    if rules.raise_on_draw and rules.stake_mode == StakeMode.BANK_FIXED:
        raise invalid("raise_on_draw", "raise_on_draw cannot be used when stake_mode is bank_fixed (every bet is S)")
    if rules.bank_transfer_trigger == BankTrigger.REALE_OR_PAIR7 and not (rules.reale or rules.pair_of_sevens):
        raise invalid(
            "bank_transfer_trigger",
            "bank_transfer_trigger reale_or_pair7 needs reale or pair_of_sevens enabled",
        )


PRESETS: dict[str, Rules] = {
    Preset.CLASSIC: Rules(),
    Preset.ITALIAN: Rules(
        bet_timing=BetTiming.AT_TURN_AFTER_PEEK,
        reale=True,
        matta="12O",
        pair_of_sevens=True,
        bank_transfer_trigger=BankTrigger.REALE_OR_PAIR7,
    ),
    Preset.SPANISH: Rules(
        bet_timing=BetTiming.AT_TURN_AFTER_PEEK,
        raise_on_draw=True,
        hidden_card_swap=True,
        split_mode=SplitMode.SPANISH,
        player_75_pays=2,
    ),
    Preset.HUNGARIAN: Rules(
        bet_timing=BetTiming.AFTER_DEAL_ALL,
        stake_mode=StakeMode.BANK_FIXED,
        hidden_card_swap=True,
        split_mode=SplitMode.HUNGARIAN,
        player_75_pays=2,
        banker_75_collect_vs_other=2,
        banker_75_collect_vs_75=4,
    ),
}


def resolve_rules(preset: str, overrides: Mapping[str, object] | None = None) -> Rules:
    """The preset's toggles with ``overrides`` applied, validated (RULES.md §4, §8)."""
    if preset not in PRESETS:
        raise invalid("preset", f"preset must be one of {', '.join(PRESET_NAMES)}")
    overrides = dict(overrides or {})
    changes = {name: _word(name, value) for name, value in overrides.items()}
    rules = replace(PRESETS[preset], **changes)
    validate_rules(rules, frozenset(overrides))
    return rules


def _word(name: str, value: object) -> Any:
    """A toggle's value as the rules hold it (an enumerated toggle's ``StrEnum`` member), once checked."""
    if name not in TOGGLES:
        raise invalid(name, f"unknown toggle {name}")
    _check_value(name, value)
    kind = ENUM_TYPES.get(name)
    return value if kind is None else kind(str(value))


def rules_from_dict(data: Mapping[str, object]) -> Rules:
    """A :class:`Rules` from its ``to_dict`` form (every toggle present), validated."""
    unknown = set(data) - set(TOGGLES)
    if unknown:
        raise invalid(sorted(unknown)[0], f"unknown toggle {sorted(unknown)[0]}")
    missing = [name for name in TOGGLES if name not in data]
    if missing:
        raise invalid(missing[0], f"toggle {missing[0]} is missing")
    return Rules(**{name: _word(name, data[name]) for name in TOGGLES})
