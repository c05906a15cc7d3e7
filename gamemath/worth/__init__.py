"""What a house-banked table is worth to a punter, exactly (issue #41; API.md "What a table is worth (v1.3)").

Standard library only, exact ``Fraction``s. One punter against the house banker's published fixed rule
(``banker_stands_at_hp``), by dynamic programming over what is left in the 40-card pack (:mod:`.play`,
:mod:`.pack`; the method is in docs/exact-worth.md):

- ``flat``: the return per chip staked of a punter staking the minimum (or S) and playing the published default
  strategy (the lab's ``standard``: stand at 5 or more, always split, never raise);
- ``best_play``: ``1 + E[winnings] / E[chips staked]`` for the play that maximises his expected winnings within
  the table's limits (the stake after the peek, raises, splits, hits, stands and assigns), without knowledge of
  the banker's face-down card.

Only the spread ``max_bet / min_bet`` matters. Every figure depends on the rule set and that ratio alone, and
is cached per (rules, ratio).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import gcd

from gamemath.enums import SplitMode, StakeMode
from gamemath.ruleset import Rules

from .pack import Pack
from .play import STANDARD, Solver, Strategy, Value

__all__ = [
    "MAX_BET_CEILING",
    "STANDARD",
    "Solver",
    "Strategy",
    "Worth",
    "break_even_spread",
    "house_worth",
    "max_bet_allowed",
    "pack_of",
    "solve",
]

#: What :func:`max_bet_allowed` answers when every maximum passes (no spread lets a punter reach the limit).
MAX_BET_CEILING = 10**12
#: Spreads at or beyond which the best play no longer changes for any rule set (checked, not assumed: see
#: :func:`_limit_passes`).
_FAR = 10**9


@dataclass(frozen=True, slots=True)
class Worth:
    """A table's two figures, returns per chip staked as exact fractions, and what they assume, in words."""

    best_play: Fraction
    flat: Fraction
    assumptions: tuple[str, ...]


@cache
def pack_of(rules: Rules) -> Pack:
    """The rule set's pack model and its caches (the banker's play, evaluations), built once per rule set."""
    return Pack(rules)


def _levels(rules: Rules, min_bet: int, max_bet: int) -> tuple[int, int]:
    if rules.stake_mode == StakeMode.BANK_FIXED:
        return 1, 1
    if not 1 <= min_bet <= max_bet:
        raise ValueError("the limits must satisfy 1 <= min_bet <= max_bet")
    g = gcd(min_bet, max_bet)
    return min_bet // g, max_bet // g


@cache
def solve(rules: Rules, low: int, high: int, strategy: Strategy | None = None, *, exact_splits: bool = False) -> Value:
    """The round's value as a linear form in the two stake amounts (see :mod:`.play`), scaled by 40! (times a
    constant in the fast model of split rounds): ``(w_low, w_high, s_low, s_high)``, for the best play at
    (``low``, ``high``) or for ``strategy``. ``exact_splits`` values split rounds exactly (slow: minutes for
    more than two hands; docs/exact-worth.md)."""
    return Solver(pack_of(rules), low, high, strategy, exact_splits=exact_splits).top()


def _ratio(value: Value, low: int, high: int) -> Fraction:
    w = value[0] * low + value[1] * high
    s = value[2] * low + value[3] * high
    return 1 + Fraction(w, s)


def _best_play(rules: Rules, low: int, high: int) -> Fraction:
    return _ratio(solve(rules, low, high), low, high)


def assumptions(rules: Rules) -> tuple[str, ...]:
    """What the figures leave out or take for granted, in words (API.md: ``assumptions``)."""
    out = [
        "one punter at the table: other punters' cards drawn from the same pack are not modelled",
        "the punter never knows the banker's face-down card; the house banker plays its published fixed rule",
        "best play maximises the expected winnings in chips; where two plays win the same, the one listed first "
        "(standing, the smaller stake, not raising, not splitting)",
    ]
    if rules.hidden_card_swap:
        out.append("hit_face_down is worth exactly what hit is: the house banker's fixed rule ignores shown cards")
    if rules.stake_mode == StakeMode.BANK_FIXED:
        out.append("every stake is the fixed stake S: the limits do not change the figures")
    if rules.split_mode == SplitMode.SPANISH:
        out.append(
            "approximate after a split (exact everywhere else): each hand of a split round is played as if the "
            "cards of the round's hands already finished were back in the pack, and settled against the banker as "
            "soon as it stands, with the pack as it is then (about 0.1 point from the exact value at two hands)"
        )
    elif rules.split_mode == SplitMode.HUNGARIAN:
        out.append(
            "approximate after a split (exact everywhere else): every card after the punter's first split is "
            "drawn from the pack as it stood at the split, and each hand is settled against the banker drawing "
            "from that pack (about 0.2 point from the exact value at two hands)"
            if not rules.has_matta
            else "approximate after a split (exact everywhere else): each hand of a split round is played as if "
            "the cards of the round's hands already finished were back in the pack, and settled against the banker "
            "as soon as it stands, with the pack as it is then"
        )
    return tuple(out)


def house_worth(rules: Rules, *, min_bet: int, max_bet: int, fixed_stake: int | None = None) -> Worth:
    """Both figures of a house-banked table with these rules and limits (exact)."""
    if rules.stake_mode == StakeMode.BANK_FIXED and fixed_stake is None:
        raise ValueError("a bank_fixed table needs its fixed_stake")
    low, high = _levels(rules, min_bet, max_bet)
    flat = _ratio(solve(rules, 1, 1, STANDARD), 1, 1)
    return Worth(best_play=_best_play(rules, low, high), flat=flat, assumptions=assumptions(rules))


def _limit_passes(rules: Rules, min_bet: int, max_rtp: Fraction) -> bool:
    return _best_play(rules, min_bet, min_bet * _FAR) <= max_rtp


def max_bet_allowed(rules: Rules, *, min_bet: int, fixed_stake: int | None, max_rtp: Fraction) -> int | None:
    """The largest integer ``max_bet >= min_bet`` whose ``best_play`` is at most ``max_rtp`` (everything else
    unchanged); None when even ``max_bet = min_bet`` is above it; :data:`MAX_BET_CEILING` when no maximum is
    (a table whose punter cannot use a larger maximum: no peek, no raise, or a fixed stake).

    ``best_play`` does not decrease as the maximum grows (tested); the search is a bracket narrowed by the
    exact crossing of the current best play's linear form (its winnings and stakes are linear in the maximum),
    so a few exact evaluations settle it.
    """
    if rules.stake_mode == StakeMode.BANK_FIXED:
        return MAX_BET_CEILING if _best_play(rules, 1, 1) <= max_rtp else None
    if _best_play(rules, min_bet, min_bet) > max_rtp:
        return None
    if _limit_passes(rules, min_bet, max_rtp):
        return MAX_BET_CEILING
    lo, hi = min_bet, min_bet * _FAR  # lo passes, hi does not
    bisect = False
    while hi - lo > 1:
        guess = (lo + hi) // 2 if bisect else _crossing(rules, min_bet, hi, max_rtp)
        guess = min(max(guess, lo + 1), hi - 1)
        width = hi - lo
        if _best_play(rules, min_bet, guess) <= max_rtp:
            lo = guess
        else:
            hi = guess
        bisect = (hi - lo) * 2 > width  # a guess that did not halve the bracket: bisect next
    return lo


def _crossing(rules: Rules, min_bet: int, max_bet: int, max_rtp: Fraction) -> int:
    """Where the best play at ``max_bet``, held fixed, would have ``best_play == max_rtp`` (rounded down)."""
    g = gcd(min_bet, max_bet)
    low, high = min_bet // g, max_bet // g
    wl, wh, sl, sh = solve(rules, low, high)
    # 1 + (wl * m + wh * x) / (sl * m + sh * x) = r  <=>  x * (wh - (r - 1) sh) = ((r - 1) sl - wl) * m
    edge = max_rtp - 1
    slope = wh - edge * sh
    if slope <= 0:
        return max_bet - 1
    x = (edge * sl - wl) * min_bet / slope
    return int(x) if x >= 0 else min_bet


def break_even_spread(rules: Rules) -> Fraction | None:
    """The spread ``max_bet / min_bet`` at which ``best_play`` reaches 1 (a fair game), exactly; None if it never
    does. The best play's expected winnings are convex in the spread (a maximum of linear forms), so Newton's
    steps on the current best play's linear form land on the root in finitely many steps."""
    if rules.stake_mode == StakeMode.BANK_FIXED:
        return None if _best_play(rules, 1, 1) < 1 else Fraction(1)
    wl, wh, _, _ = solve(rules, 1, 1)
    if wl + wh >= 0:
        return Fraction(1)
    far = solve(rules, 1, _FAR)
    if far[0] + far[1] * _FAR < 0:
        return None
    r = Fraction(_FAR)
    for _ in range(200):
        wl, wh, _, _ = solve(rules, r.denominator, r.numerator)
        if wl * r.denominator + wh * r.numerator == 0:
            return r
        if wh <= 0:  # pragma: no cover - convexity forbids it above the root
            break
        r = Fraction(-wl, wh)
    raise ArithmeticError("break_even_spread did not converge")  # pragma: no cover
