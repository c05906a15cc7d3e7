"""The exact engine (gamemath.worth) against the independent enumeration of tests/lab/exact.py, written from
RULES.md alone: the same Fraction wherever both apply (classic and its payout, tie and house-rule overrides); and
the fast model of split rounds against the exact engine where that is quick (two hands at most)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from gamemath.enums import TieRule
from gamemath.ruleset import PRESETS
from gamemath.worth import Solver, Strategy, house_worth, pack_of, solve
from gamemath.worth.pack import FACT
from tests.lab.exact import Toggles, exact_edge

CASES = [
    Toggles(punter_stands_at=10, banker_stands_at=10),
    Toggles(punter_stands_at=8, banker_stands_at=8),
    Toggles(punter_stands_at=12, banker_stands_at=12),
    Toggles(punter_stands_at=11, banker_stands_at=10),
    Toggles(punter_stands_at=6, banker_stands_at=4, tie_push=True, player_75_pays=2, banker_75_collect_vs_other=2),
    Toggles(punter_stands_at=9, banker_stands_at=13, player_win_pays=2, banker_75_collect_vs_75=3),
]


def _rules(t: Toggles):
    return replace(
        PRESETS["classic"],
        banker_stands_at_hp=t.banker_stands_at,
        tie_rule=TieRule.PUSH if t.tie_push else TieRule.BANKER,
        player_win_pays=t.player_win_pays,
        player_75_pays=t.player_75_pays,
        banker_75_collect_vs_other=t.banker_75_collect_vs_other,
        banker_75_collect_vs_75=t.banker_75_collect_vs_75,
    )


@pytest.mark.parametrize("t", CASES, ids=lambda t: f"p{t.punter_stands_at}-b{t.banker_stands_at}")
def test_the_engine_gives_the_enumerations_fraction(t: Toggles) -> None:
    wl, wh, sl, sh = solve(_rules(t), 1, 1, Strategy(stand_at=t.punter_stands_at))
    assert wh == sh == 0
    assert Fraction(-wl, sl) == exact_edge(t)


def test_the_published_classic_figure() -> None:
    worth = house_worth(PRESETS["classic"], min_bet=1, max_bet=10)
    assert worth.flat == 1 - exact_edge(Toggles(punter_stands_at=10, banker_stands_at=10))
    assert round(float(1 - worth.flat), 5) == 0.17339
    # betting before the deal, with no raise or split, the best play stakes the minimum at any spread
    assert worth.best_play == house_worth(PRESETS["classic"], min_bet=5, max_bet=5).best_play
    assert worth.best_play > worth.flat


# -- split rounds: the fast model (docs/exact-worth.md, "Split rounds") against the exact engine -------------------


def _flat(rules, *, exact_splits: bool) -> Fraction:
    wl, _, sl, _ = solve(rules, 1, 1, Strategy(), exact_splits=exact_splits)
    return 1 + Fraction(wl, sl)


@pytest.mark.parametrize(("preset", "tolerance"), [("spanish", Fraction(2, 1000)), ("hungarian", Fraction(3, 1000))])
def test_the_fast_split_model_is_within_a_few_tenths_of_a_point_of_the_exact_engine(
    preset: str, tolerance: Fraction
) -> None:
    # two hands at most: the exact engine takes seconds there (minutes with more hands)
    rules = replace(PRESETS[preset], max_hands_per_punter=2)
    exact, fast = _flat(rules, exact_splits=True), _flat(rules, exact_splits=False)
    assert exact != fast  # the fast model is used, and it is not exact
    assert abs(exact - fast) < tolerance


def test_rule_sets_without_splits_are_priced_by_the_exact_engine_whatever_the_flag() -> None:
    rules = replace(PRESETS["italian"], banker_stands_at_hp=12)
    assert solve(rules, 1, 5) == solve(rules, 1, 5, exact_splits=True)


def test_a_spanish_split_round_in_the_fast_model_is_two_hands_each_played_alone() -> None:
    """The fast model's definition, computed apart: after a split of two pictures with two hands at most, the hand
    kept plays on from the pack as it is (38 cards), the new one from the pack less its own picture (39 cards),
    each settled against the banker drawing from what its own play left."""
    rules = replace(PRESETS["spanish"], max_hands_per_punter=2)
    p = pack_of(rules)
    fast, exact = Solver(p, 1, 1, Strategy()), Solver(p, 1, 1, Strategy(), exact_splits=True)
    picture = p.hand(p.add(p.empty, 0), 0)
    two = p.hand(p.add(picture[0], 0), 0)
    at_split = p.remove(p.remove(p.full, 0), 0)
    after_one = p.remove(p.full, 0)
    v = fast.turn(at_split, two, 0, (), (), 1, False)
    kept = exact.turn(at_split, picture, 0, (), (), 2, True)[0]
    new = exact.turn(after_one, picture, 0, (), (), 2, True)[0]
    assert Fraction(v[0], fast.scale(at_split)) == Fraction(kept, FACT[38]) + Fraction(new, FACT[39])
    assert Fraction(v[2], fast.scale(at_split)) == 1  # the new hand's stake (the split hand's own is outside)
