"""Hand values, categories and the settlement of one punter hand (RULES.md §1, §4.1, §5).

All values are integer half-points (hp); 7½ is 15 hp and a pair of sevens counts 28 hp without busting.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from gamemath.cards import VALUE_HP, is_seven
from gamemath.enums import Category, MattaAlone, Outcome, RealeWithMatta, TieRule
from gamemath.ruleset import Rules

BUST, POINTS, SEVEN_HALF = Category.BUST, Category.POINTS, Category.SEVEN_HALF
REALE, PAIR7 = Category.REALE, Category.PAIR7

#: Categories, worst first; hands compare by (rank of category, total).
CATEGORY_RANK: dict[str, int] = {category: rank for rank, category in enumerate(Category)}
PAIR7_HP = 28

_MATTA_VALUES: dict[str, tuple[int, ...]] = {
    "half_or_integers": (1, 2, 4, 6, 8, 10, 12, 14),
    "integers_only": (2, 4, 6, 8, 10, 12, 14),
    "half_or_seven": (1, 14),
}


class Score(NamedTuple):
    """A hand's evaluation: category, total in hp, and the wild card's value in force (or None)."""

    category: Category
    total_hp: int
    matta_hp: int | None

    @property
    def rank(self) -> tuple[int, int]:
        """The comparison key (category first, then total)."""
        return (CATEGORY_RANK[self.category], self.total_hp)


class Settlement(NamedTuple):
    """How one punter hand settles: outcome win|lose|push, tie flag, multiplier k >= 0 and net chips."""

    outcome: Outcome
    tie: bool
    multiplier: int
    net: int


def _classify(total: int, n_cards: int, reale_ok: bool) -> Category:
    if total > 15:
        return BUST
    if total == 15:
        return REALE if (reale_ok and n_cards == 2) else SEVEN_HALF
    return POINTS


def matta_values(rules: Rules, alone: bool) -> tuple[int, ...]:
    """The values (hp) the wild card may take; alone it is ½ under ``matta_alone_value: half``."""
    if alone and rules.matta_alone_value == MattaAlone.HALF:
        return (1,)
    return _MATTA_VALUES[rules.matta_values]


def evaluate(cards: Sequence[str], rules: Rules, *, split: bool = False) -> Score:
    """Evaluate a hand: the wild card floats to the value giving the best (category, total) without busting.

    ``split`` is true for every hand of a punter who has split: such hands are never reale nor pair7.
    A bust hand records the wild card at its smallest allowed value.
    """
    n = len(cards)
    reale_ok = rules.reale and not split
    matta = rules.matta
    if matta == "none" or matta not in cards:
        if n == 2 and rules.pair_of_sevens and not split and is_seven(cards[0]) and is_seven(cards[1]):
            return Score(PAIR7, PAIR7_HP, None)
        total = 0
        for code in cards:
            total += VALUE_HP[code]
        return Score(_classify(total, n, reale_ok), total, None)
    base = 0
    for code in cards:
        if code != matta:
            base += VALUE_HP[code]
    values = matta_values(rules, alone=(n == 1))
    best: Score | None = None
    for v in values:
        total = base + v
        if total > 15:
            continue
        reale_here = reale_ok and (
            rules.reale_with_matta == RealeWithMatta.ANY
            or (rules.reale_with_matta == RealeWithMatta.MATTA_AS_HALF_ONLY and v == 1)
        )
        score = Score(_classify(total, n, reale_here), total, v)
        if best is None or score.rank > best.rank:
            best = score
    if best is None:
        low = min(values)
        return Score(BUST, base + low, low)
    return best


def win_multiplier(category: str, rules: Rules) -> int:
    """What a winning punter hand of this category is paid when it beats the banker or he busts (§5.3)."""
    if category == REALE:
        return rules.reale_pays
    if category == SEVEN_HALF:
        return rules.player_75_pays
    return rules.player_win_pays


def banker_collect(banker_category: str, punter_category: str, rules: Rules) -> int:
    """What a better (or tying, under ``tie_rule: banker``) banker hand collects from a punter hand (§5.4)."""
    if banker_category == PAIR7:
        return rules.banker_pair7_collect
    if banker_category == REALE:
        return 1 if punter_category == REALE else rules.banker_reale_collect
    if banker_category == SEVEN_HALF:
        if punter_category in (SEVEN_HALF, REALE):
            return rules.banker_75_collect_vs_75
        return rules.banker_75_collect_vs_other
    return 1


def settle_hand(punter: Score, stake: int, banker: Score | None, rules: Rules) -> Settlement:
    """Settle one punter hand with stake ``stake`` against the banker's final hand (§5, in its order).

    ``banker`` may be None only for hands that settle without him (bust, pair of sevens).
    """
    outcome, tie, k, sign = _settlement_terms(punter, banker, rules)
    return Settlement(outcome, tie, k, sign * k * stake)


def _settlement_terms(punter: Score, banker: Score | None, rules: Rules) -> tuple[Outcome, bool, int, int]:
    """(outcome, tie, multiplier k, sign of the net): the net of a stake S is sign * k * S."""
    if punter.category == BUST:
        return Outcome.LOSE, False, 1, -1
    if punter.category == PAIR7:
        return Outcome.WIN, False, rules.pair7_pays, 1
    if banker is None:
        raise ValueError("a standing punter hand settles only against a banker hand")
    if banker.category == BUST:
        return Outcome.WIN, False, win_multiplier(punter.category, rules), 1
    if punter.rank > banker.rank:
        if punter.category == REALE and banker.category == SEVEN_HALF:
            k = rules.reale_vs_banker_75_pays
        else:
            k = win_multiplier(punter.category, rules)
        return Outcome.WIN, False, k, 1
    tie = punter.rank == banker.rank
    if tie and rules.tie_rule == TieRule.PUSH:
        return Outcome.PUSH, True, 0, 0
    return Outcome.LOSE, tie, banker_collect(banker.category, punter.category, rules), -1


def house_banker_draws(score: Score, rules: Rules) -> bool:
    """The published house rule: draw while the total is below ``banker_stands_at_hp``."""
    return score.category == POINTS and score.total_hp < rules.banker_stands_at_hp
