"""The simulator against exact values computed by enumeration (tests/lab/exact.py, written from RULES.md).

1. Rigged stocks: every distinct hand of a small rule set is dealt through the simulator (the core's test-only
   ``rig_next_hand``), and the probability-weighted sum of what the simulator tallied equals the exact edge, as a
   fraction, and every single hand's net equals the enumeration's.
2. Real shuffles: a seeded run lands within its own interval of the exact edge (4 standard errors, so a
   correct simulator fails once in 15,000 runs, and any seed that passes passes forever).
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from lab.runner import run
from lab.sim import SimTable, Spec
from rules import CANONICAL_DECK, TableState, value_hp
from rules.testing import rig_next_hand
from tests.lab.exact import Toggles, exact_edge, leaves, punter_net

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CODES_BY_VALUE: dict[int, list[str]] = {}
for _code in CANONICAL_DECK:
    CODES_BY_VALUE.setdefault(value_hp(_code), []).append(_code)


def stock_of(values: tuple[int, ...]) -> list[str]:
    """Distinct card codes with these values, in this order."""
    used: dict[int, int] = {}
    stock = []
    for v in values:
        stock.append(CODES_BY_VALUE[v][used.get(v, 0)])
        used[v] = used.get(v, 0) + 1
    return stock


class RiggedTable(SimTable):
    """A simulated table whose next hand deals ``self.next_stock`` first (a test-only seam of the core)."""

    next_stock: list[str] | None = None

    def prepare(self, state: TableState) -> TableState:
        if self.next_stock is not None and state.rigged_stock is None:
            state = rig_next_hand(state, self.next_stock)
            self.next_stock = None
        return state


def spec_for(t: Toggles) -> Spec:
    overrides: dict[str, object] = {"banker_stands_at_hp": t.banker_stands_at}
    if t.tie_push:
        overrides["tie_rule"] = "push"
    for name in ("player_win_pays", "player_75_pays", "banker_75_collect_vs_other", "banker_75_collect_vs_75"):
        if getattr(t, name) != 1:
            overrides[name] = getattr(t, name)
    return Spec(preset="classic", overrides=overrides, bank="house", punters=1, punter=f"stand:{t.punter_stands_at}")


SMALL = [
    Toggles(punter_stands_at=4, banker_stands_at=4),
    Toggles(punter_stands_at=6, banker_stands_at=4, tie_push=True, player_75_pays=2, banker_75_collect_vs_other=2),
]


@pytest.mark.parametrize("toggles", SMALL, ids=["classic-4-4", "push-75pays2-6-4"])
def test_every_hand_dealt_through_the_simulator_adds_up_to_the_exact_edge(toggles):
    table = RiggedTable(spec_for(toggles), b"rigged")
    # the table opened its first hand when the punter sat down: play it out, rigging the one after
    hands = list(leaves(toggles))
    total = Fraction(0)
    previous = None
    for leaf in [*hands, None]:
        table.next_stock = stock_of(leaf[0]) if leaf is not None else None
        before = table.tally.copy()
        table.play(1)
        net = table.tally.bank_net - before.bank_net
        if previous is not None:  # the hand just played was rigged with the previous leaf's stock
            _, probability, punter, banker = previous
            assert net == -punter_net(toggles, punter, banker), previous
            assert table.tally.staked - before.staked == 1
            total += probability * net
        previous = leaf
    assert sum(p for _, p, _, _ in hands) == 1
    assert total == exact_edge(toggles)


@pytest.mark.parametrize(
    "toggles",
    [Toggles(punter_stands_at=10, banker_stands_at=10), *SMALL],
    ids=["classic-standard", "classic-4-4", "push-75pays2-6-4"],
)
def test_a_seeded_run_lands_within_its_interval_of_the_exact_edge(toggles):
    result = run(Spec(**{**spec_for(toggles).__dict__, "hands": 20_000, "chunk": 5_000, "seed": 7}), processes=2)
    exact = float(exact_edge(toggles))
    sigma = result.half_width / 1.959963984540054
    assert result.tally.rounds == 20_000 and result.tally.punter_hands == 20_000
    assert math.isfinite(sigma) and 0.005 < sigma < 0.0095  # about 1/sqrt(20000), as a unit-stake game should be
    assert abs(result.edge - exact) < 4 * sigma, (result.edge, exact, sigma)


def test_the_enumeration_itself_sums_to_one_and_matches_its_memoised_form():
    t = Toggles(punter_stands_at=6, banker_stands_at=6)
    hands = list(leaves(t))
    assert sum(p for _, p, _, _ in hands) == 1
    assert exact_edge(t) == -sum((p * punter_net(t, a, b) for _, p, a, b in hands), Fraction(0))
    # the published figure of the default rules (docs/house-edge.md quotes it)
    assert round(float(exact_edge(Toggles(punter_stands_at=10, banker_stands_at=10))), 5) == 0.17339
