"""Invariants of the exact engine (gamemath.worth) over rule sets drawn by hypothesis (rule sets without splits,
which the engine prices in well under a second each; split rule sets through the fast model of split rounds)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from gamemath.enums import BetTiming, TieRule
from gamemath.ruleset import PRESETS, Rules
from gamemath.worth import Strategy, house_worth, max_bet_allowed, solve

RULES = st.builds(
    lambda preset, timing, hp, tie, raise_, win, pays75: replace(
        PRESETS[preset],
        bet_timing=timing,
        banker_stands_at_hp=hp,
        tie_rule=tie,
        raise_on_draw=raise_,
        player_win_pays=win,
        player_75_pays=pays75,
    ),
    st.sampled_from(["classic", "italian"]),
    st.sampled_from(list(BetTiming)),
    st.integers(6, 13),
    st.sampled_from(list(TieRule)),
    st.booleans(),
    st.integers(1, 2),
    st.integers(1, 3),
)
OTHERS = [
    Strategy(),
    Strategy(stand_at=8, high_first=frozenset({14})),
    Strategy(stand_at=11, high_first=frozenset({1, 14}), raise_at=frozenset({12, 13})),
    Strategy(stand_at=12, high_before_deal=True, raise_at=frozenset({14})),
]


def _winnings(rules: Rules, low: int, high: int, strategy: Strategy | None) -> int:
    wl, wh, _, _ = solve(rules, low, high, strategy)
    return wl * low + wh * high


@settings(max_examples=12, deadline=None)
@given(RULES, st.integers(1, 12))
def test_the_best_play_wins_at_least_what_any_other_play_wins(rules: Rules, spread: int) -> None:
    best = _winnings(rules, 1, spread, None)
    for other in OTHERS:
        assert best >= _winnings(rules, 1, spread, other)


@settings(max_examples=12, deadline=None)
@given(RULES, st.integers(2, 12))
def test_flat_ignores_the_spread_and_best_play_never_falls_as_it_grows(rules: Rules, spread: int) -> None:
    one = house_worth(rules, min_bet=3, max_bet=3)
    wide = house_worth(rules, min_bet=3, max_bet=3 * spread)
    wider = house_worth(rules, min_bet=3, max_bet=3 * spread + 1)
    assert one.flat == wide.flat
    assert one.best_play <= wide.best_play <= wider.best_play
    most = max(rules.banker_loss_multiplier, 1) + 1
    for figure in (one.flat, wide.flat, one.best_play, wide.best_play):
        assert 0 <= figure <= most


@settings(max_examples=6, deadline=None)
@given(RULES, st.sampled_from([Fraction(95, 100), Fraction(985, 1000), Fraction(1)]))
def test_max_bet_allowed_is_the_largest_maximum_that_passes(rules: Rules, limit: Fraction) -> None:
    allowed = max_bet_allowed(rules, min_bet=10, fixed_stake=None, max_rtp=limit)
    if allowed is None:
        assert house_worth(rules, min_bet=10, max_bet=10).best_play > limit
        return
    assert house_worth(rules, min_bet=10, max_bet=allowed).best_play <= limit
    if allowed < 10**12:
        assert house_worth(rules, min_bet=10, max_bet=allowed + 1).best_play > limit


#: Split rule sets, priced by the fast model of split rounds (docs/exact-worth.md): Spanish up to four hands, and
#: Hungarian with two (more take seconds) and the choice of stake that lets a spread matter.
SPLIT_RULES = st.one_of(
    st.builds(
        lambda hp, hands, raise_, pays75: replace(
            PRESETS["spanish"],
            banker_stands_at_hp=hp,
            max_hands_per_punter=hands,
            raise_on_draw=raise_,
            player_75_pays=pays75,
        ),
        st.integers(6, 13),
        st.integers(2, 4),
        st.booleans(),
        st.integers(1, 3),
    ),
    st.builds(
        lambda hp, timing: replace(
            PRESETS["hungarian"],
            banker_stands_at_hp=hp,
            max_hands_per_punter=2,
            stake_mode="player_choice",
            bet_timing=timing,
        ),
        st.integers(6, 13),
        st.sampled_from(list(BetTiming)),
    ),
)
SPLIT_OTHERS = [*OTHERS, Strategy(split=False), Strategy(stand_at=9, split=False, high_first=frozenset({1}))]


@settings(max_examples=10, deadline=None)
@given(SPLIT_RULES, st.integers(1, 12))
def test_in_split_rounds_the_best_play_wins_at_least_what_any_other_play_wins(rules: Rules, spread: int) -> None:
    best = _winnings(rules, 1, spread, None)
    for other in SPLIT_OTHERS:
        assert best >= _winnings(rules, 1, spread, other)


@settings(max_examples=8, deadline=None)
@given(SPLIT_RULES, st.integers(2, 12))
def test_in_split_rounds_best_play_never_falls_as_the_spread_grows(rules: Rules, spread: int) -> None:
    one = house_worth(rules, min_bet=1, max_bet=1)
    wide = house_worth(rules, min_bet=1, max_bet=spread)
    assert one.flat == wide.flat
    assert one.best_play <= wide.best_play
