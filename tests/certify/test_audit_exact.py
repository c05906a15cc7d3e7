"""The audit's exact expectations, checked against the exact engine of "What every table is worth" without a
database. Averaged over every way the published default strategy's hand can go (stand at 5 or more, minimum
stake, classic house bank), the audit's expected return of a hand as played must be the table card's ``flat``
figure (computed by the engine's own dynamic programme). Hands of that strategy, dealt by the published shuffle
(seeds from a counter: the same hands every run) and settled by ``gamemath.scoring``, are not flagged."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from certify.audit import TableTally, _Hands, _round_moments, tally, verdicts
from certify.records import Dealt, HandRecord, Result
from gamemath import worth
from gamemath.cards import CANONICAL_DECK
from gamemath.enums import Bank, Category
from gamemath.scoring import evaluate, house_banker_draws, settle_hand
from gamemath.shuffle import shuffle_deck
from rules import TableConfig, resolve_rules

RULES = resolve_rules("classic")
CONFIG = TableConfig(preset="classic", rules=RULES, min_bet=10, max_bet=10, max_seats=7, bank=Bank.HOUSE)
HANDS = 5_000


def standard_hand(number: int) -> HandRecord:
    """One hand of the default strategy: the punter stands at 5 or more, the house draws below 5."""
    seed = hashlib.sha256(f"exact:{number}".encode()).digest()
    deck = shuffle_deck(seed, "client", number)
    dealt = [Dealt(0, False, 1, 0), Dealt(1, True, None, 0)]
    punter, banker, top = [deck[0]], [deck[1]], 2
    while (score := evaluate(punter, RULES)).category == Category.POINTS and score.total_hp < 10:
        punter.append(deck[top])
        dealt.append(Dealt(top, False, 1, 0))
        top += 1
    banker_score = None
    if score.category != Category.BUST:
        while house_banker_draws(banker_score := evaluate(banker, RULES), RULES):
            banker.append(deck[top])
            dealt.append(Dealt(top, True, None, 0))
            top += 1
    settled = settle_hand(score, 10, banker_score, RULES)
    result = Result(1, 0, 10, str(score.category), score.total_hp, settled.net, settled.tie)
    return HandRecord(1, number, seed.hex(), "client", tuple(dealt), (result,))


@pytest.fixture(scope="module")
def tallied() -> TableTally:
    return tally((standard_hand(n) for n in range(1, HANDS + 1)), {1: CONFIG})[1]


def _default_strategy_return(helper: _Hands, held: tuple[int, ...], left: tuple[int, ...]) -> float:
    """The audit's expected net of one chip, averaged over every way the punter's hand can go from ``held``."""
    pack = helper.pack
    score = pack.score(held, False)
    if score.category == Category.BUST:
        return -1.0
    if score.category == Category.POINTS and score.total_hp < 10:
        total = sum(left)
        return sum(
            n / total * _default_strategy_return(helper, pack.add(held, t), pack.remove(left, t))
            for t, n in enumerate(left)
            if n
        )
    standing = [Result(1, 0, 1, str(score.category), score.total_hp, 0, False)]
    return _round_moments(pack, left, 0, standing)[0]


def test_the_expected_return_of_the_default_strategy_is_the_flat_figure() -> None:
    helper = _Hands(CONFIG)
    flat = worth.house_worth(RULES, min_bet=10, max_bet=10).flat
    assert 1 + _default_strategy_return(helper, helper.pack.empty, helper.pack.full) == pytest.approx(float(flat))


def test_honest_hands_are_not_flagged(tallied: TableTally) -> None:
    (audited,), _ = verdicts({1: tallied}, lambda config: (None, None))
    assert audited.hands == HANDS and not audited.flagged
    assert audited.rtp_low is not None and audited.rtp_low < audited.actual_rtp < audited.rtp_high


@settings(max_examples=40, deadline=None)
@given(
    punter_cards=st.lists(st.sampled_from(range(40)), min_size=1, max_size=5, unique=True),
    stake=st.integers(min_value=1, max_value=100),
)
def test_a_rounds_moments_are_those_of_a_distribution(punter_cards: list[int], stake: int) -> None:
    helper = _Hands(CONFIG)
    pack = helper.pack
    remaining = list(pack.full)
    for i in punter_cards:
        remaining[helper.type_of[CANONICAL_DECK[i]]] -= 1
    score = evaluate([CANONICAL_DECK[i] for i in punter_cards], RULES)
    if score.category == Category.BUST:
        return
    standing = [Result(1, 0, stake, str(score.category), score.total_hp, 0, False)]
    mean, var, tie_mean, tie_var = _round_moments(pack, tuple(remaining), 0, standing)
    assert -stake <= mean <= stake and 0 <= var <= stake * stake + 1e-9
    assert 0 <= tie_mean <= 1 and tie_var == pytest.approx(tie_mean * (1 - tie_mean), abs=1e-9)
