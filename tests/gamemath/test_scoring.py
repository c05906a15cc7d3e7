"""Values, categories, the wild card (§1, §4.1) and the settlement of one hand (§5)."""

from __future__ import annotations

import pytest

from rules import PRESETS, Score, evaluate, resolve_rules, settle_hand, value_hp

CLASSIC = PRESETS["classic"]
ITALIAN = PRESETS["italian"]


def test_card_values_in_half_points() -> None:
    assert [value_hp(f"{r}O") for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)] == [2, 4, 6, 8, 10, 12, 14, 1, 1, 1]


@pytest.mark.parametrize(
    ("cards", "category", "total"),
    [
        (["5O", "2C"], "points", 14),
        (["7C", "10O"], "seven_half", 15),
        (["4O", "3C", "10E"], "seven_half", 15),
        (["6O", "4C"], "bust", 20),
        (["7O", "7C"], "bust", 28),
        (["10B", "11E", "12C", "10E"], "points", 4),
    ],
)
def test_classic_hands(cards: list[str], category: str, total: int) -> None:
    assert evaluate(cards, CLASSIC) == Score(category, total, None)


def test_two_card_seven_and_a_half_is_reale_only_where_enabled_and_unsplit() -> None:
    assert evaluate(["7O", "11C"], ITALIAN).category == "reale"
    assert evaluate(["7O", "11C"], ITALIAN, split=True).category == "seven_half"
    assert evaluate(["7O", "11C"], CLASSIC).category == "seven_half"
    assert evaluate(["4O", "3C", "10E"], ITALIAN).category == "seven_half"


def test_pair_of_sevens_counts_28_without_busting_but_never_with_the_matta_or_after_a_split() -> None:
    assert evaluate(["7O", "7C"], ITALIAN) == Score("pair7", 28, None)
    assert evaluate(["7O", "7C"], ITALIAN, split=True).category == "bust"
    assert evaluate(["7O", "12O"], ITALIAN) == Score("reale", 15, 1)
    as_seven = resolve_rules("italian", {"matta": "7O"})
    assert evaluate(["7O", "7C"], as_seven).category != "pair7"


@pytest.mark.parametrize(
    ("overrides", "cards", "expected"),
    [
        ({}, ["12O", "5C"], Score("points", 14, 4)),
        ({}, ["12O"], Score("points", 1, 1)),
        ({"matta_alone_value": "free"}, ["12O"], Score("points", 14, 14)),
        ({}, ["12O", "11C"], Score("reale", 15, 14)),
        ({"reale_with_matta": "matta_as_half_only"}, ["12O", "11C"], Score("seven_half", 15, 14)),
        ({"reale_with_matta": "matta_as_half_only"}, ["12O", "7C"], Score("reale", 15, 1)),
        ({"reale_with_matta": "never"}, ["12O", "7C"], Score("seven_half", 15, 1)),
        ({"matta_values": "integers_only"}, ["12O", "6C", "3B"], Score("bust", 20, 2)),
        ({"matta_values": "half_or_integers"}, ["12O", "6C", "3B"], Score("bust", 19, 1)),
        ({"matta_values": "half_or_seven"}, ["12O", "1C"], Score("points", 3, 1)),
        ({"matta_values": "half_or_seven"}, ["12O", "10C"], Score("reale", 15, 14)),
    ],
)
def test_the_matta_floats_to_the_best_value_without_busting(
    overrides: dict[str, str], cards: list[str], expected: Score
) -> None:
    assert evaluate(cards, resolve_rules("italian", overrides)) == expected


def _s(category: str, total: int) -> Score:
    return Score(category, total, None)


@pytest.mark.parametrize(
    ("preset", "punter", "banker", "expected"),
    [
        ("classic", _s("bust", 20), _s("bust", 18), ("lose", False, 1, -10)),
        ("classic", _s("points", 4), _s("bust", 18), ("win", False, 1, 10)),
        ("classic", _s("points", 14), _s("points", 14), ("lose", True, 1, -10)),
        ("classic", _s("seven_half", 15), _s("seven_half", 15), ("lose", True, 1, -10)),
        ("spanish", _s("seven_half", 15), _s("points", 14), ("win", False, 2, 20)),
        ("hungarian", _s("points", 12), _s("seven_half", 15), ("lose", False, 2, -20)),
        ("hungarian", _s("seven_half", 15), _s("seven_half", 15), ("lose", True, 4, -40)),
        ("italian", _s("reale", 15), _s("seven_half", 15), ("win", False, 2, 20)),
        ("italian", _s("reale", 15), _s("reale", 15), ("lose", True, 1, -10)),
        ("italian", _s("pair7", 28), _s("pair7", 28), ("win", False, 3, 30)),
        ("italian", _s("seven_half", 15), _s("pair7", 28), ("lose", False, 1, -10)),
    ],
)
def test_settlement_of_one_hand(
    preset: str, punter: Score, banker: Score, expected: tuple[str, bool, int, int]
) -> None:
    assert tuple(settle_hand(punter, 10, banker, PRESETS[preset])) == expected


def test_tie_rule_push_returns_the_stake_and_flags_the_tie() -> None:
    rules = resolve_rules("hungarian", {"tie_rule": "push"})
    assert tuple(settle_hand(_s("seven_half", 15), 10, _s("seven_half", 15), rules)) == ("push", True, 0, 0)
    assert tuple(settle_hand(_s("points", 9), 10, _s("points", 9), rules)) == ("push", True, 0, 0)
