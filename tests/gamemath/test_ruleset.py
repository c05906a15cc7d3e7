"""Rule sets: presets (RULES.md §8), overrides and their validation, reserve multipliers (§7)."""

from __future__ import annotations

from typing import Any

import pytest

from rules import PRESETS, InvalidRequest, make_table_config, resolve_rules


def test_presets_match_the_published_table() -> None:
    classic, italian, spanish, hungarian = (PRESETS[n] for n in ("classic", "italian", "spanish", "hungarian"))
    assert (classic.bet_timing, italian.bet_timing, spanish.bet_timing, hungarian.bet_timing) == (
        "before_deal",
        "at_turn_after_peek",
        "at_turn_after_peek",
        "after_deal_all",
    )
    assert hungarian.stake_mode == "bank_fixed" and classic.stake_mode == "player_choice"
    assert spanish.raise_on_draw and not italian.raise_on_draw
    assert spanish.hidden_card_swap and hungarian.hidden_card_swap and not classic.hidden_card_swap
    assert italian.reale and italian.matta == "12O" and italian.pair_of_sevens
    assert (italian.reale_pays, italian.reale_vs_banker_75_pays, italian.banker_reale_collect) == (2, 2, 1)
    assert italian.reale_with_matta == "any" and italian.matta_values == "half_or_integers"
    assert (italian.pair7_pays, italian.banker_pair7_collect) == (3, 1)
    assert (spanish.split_mode, hungarian.split_mode, spanish.max_hands_per_punter) == ("spanish", "hungarian", 4)
    assert (spanish.player_75_pays, hungarian.player_75_pays, classic.player_75_pays) == (2, 2, 1)
    assert (hungarian.banker_75_collect_vs_other, hungarian.banker_75_collect_vs_75) == (2, 4)
    assert italian.bank_transfer_trigger == "reale_or_pair7" and classic.bank_transfer_trigger == "any_75"
    assert all(p.tie_rule == "banker" and p.bank_rotation == "never" for p in PRESETS.values())
    assert all(p.banker_stands_at_hp == 10 for p in PRESETS.values())


@pytest.mark.parametrize(
    ("preset", "overrides", "punter", "banker"),
    [
        ("classic", {}, 1, 1),
        ("spanish", {}, 1, 2),
        ("hungarian", {}, 4, 2),
        ("hungarian", {"tie_rule": "push"}, 2, 2),
        ("italian", {}, 1, 3),
        ("italian", {"banker_reale_collect": 2}, 2, 3),
        ("italian", {"pair_of_sevens": False}, 1, 2),
    ],
)
def test_reserve_multipliers_are_the_largest_that_can_apply(
    preset: str, overrides: dict[str, Any], punter: int, banker: int
) -> None:
    rules = resolve_rules(preset, overrides)
    assert (rules.punter_loss_multiplier, rules.banker_loss_multiplier) == (punter, banker)


@pytest.mark.parametrize(
    ("preset", "overrides", "field"),
    [
        ("classic", {"reale_pays": 3}, "reale_pays"),
        ("classic", {"banker_reale_collect": 2}, "banker_reale_collect"),
        ("classic", {"pair7_pays": 4}, "pair7_pays"),
        ("classic", {"matta_values": "integers_only"}, "matta_values"),
        ("classic", {"max_hands_per_punter": 3}, "max_hands_per_punter"),
        ("classic", {"player_win_pays": -1}, "player_win_pays"),
        ("classic", {"player_win_pays": 0}, "player_win_pays"),
        ("classic", {"player_75_pays": True}, "player_75_pays"),
        ("classic", {"raise_on_draw": "yes"}, "raise_on_draw"),
        ("classic", {"bet_timing": "whenever"}, "bet_timing"),
        ("classic", {"matta": "13O"}, "matta"),
        ("classic", {"colour": "red"}, "colour"),
        ("hungarian", {"raise_on_draw": True}, "raise_on_draw"),
        ("italian", {"reale": False, "pair_of_sevens": False}, "bank_transfer_trigger"),
        ("italian", {"reale": False, "reale_with_matta": "never"}, "reale_with_matta"),
        ("spanish", {"banker_stands_at_hp": 30}, "banker_stands_at_hp"),
        ("poker", {}, "preset"),
    ],
)
def test_a_nonsensical_override_is_refused_naming_the_toggle(
    preset: str, overrides: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidRequest) as refused:
        resolve_rules(preset, overrides)
    assert refused.value.code == "invalid_request"
    assert refused.value.details["field"] == field


def test_sensible_overrides_are_applied() -> None:
    rules = resolve_rules("italian", {"reale_with_matta": "never", "banker_reale_collect": 2})
    assert rules.reale_with_matta == "never" and rules.banker_reale_collect == 2
    assert resolve_rules("classic", {"matta": "12O"}).matta == "12O"


BASE: dict[str, Any] = {"preset": "classic", "min_bet": 5, "max_bet": 50, "max_seats": 6, "bank": "player"}


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"min_bet": 0}, "min_bet"),
        ({"max_bet": 4}, "max_bet"),
        ({"max_seats": 9}, "max_seats"),
        ({"max_seats": 1}, "max_seats"),
        ({"bank": "house", "max_seats": 8}, "max_seats"),
        ({"bank": "casino"}, "bank"),
        ({"preset": "hungarian"}, "fixed_stake"),
        ({"preset": "hungarian", "fixed_stake": 60}, "fixed_stake"),
        ({"fixed_stake": 10}, "fixed_stake"),
        ({"turn_timeout_s": 0}, "turn_timeout_s"),
        ({"betting_timeout_s": "30"}, "betting_timeout_s"),
        ({"overrides": {"banker_stands_at_hp": 12}}, "banker_stands_at_hp"),
    ],
)
def test_an_invalid_table_is_refused_naming_the_field(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidRequest) as refused:
        make_table_config(**{**BASE, **changes})
    assert refused.value.details["field"] == field


def test_a_valid_house_table_may_override_the_house_rule() -> None:
    config = make_table_config(**{**BASE, "bank": "house", "overrides": {"banker_stands_at_hp": 12}})
    assert config.house_bank and config.rules.banker_stands_at_hp == 12
    hungarian = make_table_config(**{**BASE, "preset": "hungarian", "fixed_stake": 10})
    assert hungarian.fixed_stake == 10
