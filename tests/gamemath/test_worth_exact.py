"""The exact engine (gamemath.worth) against the independent enumeration of tests/lab/exact.py, written from
RULES.md alone: the same Fraction wherever both apply (classic and its payout, tie and house-rule overrides)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from gamemath.enums import TieRule
from gamemath.ruleset import PRESETS
from gamemath.worth import Strategy, house_worth, solve
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
