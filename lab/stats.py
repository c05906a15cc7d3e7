"""What a simulation counts (integers only, so chunks merge exactly in any order) and the edge's interval.

The bank's edge is a ratio estimator: R = (sum of the bank's net over rounds) / (sum staked over rounds),
one round being one dealt hand of the table (all its punter hands, splits included). Rounds are the
independent units: punter hands of one round share the banker's cards, so their results are correlated and
the interval is computed from per-round sums (the delta method for a ratio):

    Var(R) ~ sum_i (x_i - R s_i)^2 / (n (n - 1) mean(s)^2)

with x_i the bank's net and s_i the stake of round i. 95% interval: R +- 1.96 sqrt(Var(R)).
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

Z95 = 1.959963984540054

#: Per punter hand, from each HandResult.
PUNTER_KEYS = ("bust", "points", "seven_half", "reale", "pair7", "win", "lose", "push", "tie")
#: Per round: the banker's final category (or "skipped" when he did not play), splits, bank passing.
ROUND_KEYS = (
    "banker_bust",
    "banker_points",
    "banker_seven_half",
    "banker_reale",
    "banker_pair7",
    "banker_skipped",
    "splits",
    "rounds_with_split",
    "bank_transfers",
    "bank_rotations",
)


@dataclass
class Tally:
    """Sums over rounds. ``counts`` holds the PUNTER_KEYS and ROUND_KEYS counters."""

    rounds: int = 0
    punter_hands: int = 0
    staked: int = 0
    bank_net: int = 0
    sum_x2: int = 0  # sum over rounds of (bank net)^2
    sum_s2: int = 0  # sum over rounds of (stake)^2
    sum_xs: int = 0  # sum over rounds of net * stake
    counts: Counter[str] = field(default_factory=Counter)

    def add_round(self, net: int, stake: int) -> None:
        """One settled round: the bank's net and what the punters staked in it."""
        self.rounds += 1
        self.staked += stake
        self.bank_net += net
        self.sum_x2 += net * net
        self.sum_s2 += stake * stake
        self.sum_xs += net * stake

    def merge(self, other: Tally) -> None:
        """Add another tally (exact: integers only)."""
        self.rounds += other.rounds
        self.punter_hands += other.punter_hands
        self.staked += other.staked
        self.bank_net += other.bank_net
        self.sum_x2 += other.sum_x2
        self.sum_s2 += other.sum_s2
        self.sum_xs += other.sum_xs
        self.counts.update(other.counts)

    def copy(self) -> Tally:
        new = Tally()
        new.merge(self)
        return new

    def to_json(self) -> dict[str, Any]:
        """Every sum, JSON-ready (integers)."""
        return {
            "rounds": self.rounds,
            "punter_hands": self.punter_hands,
            "staked": self.staked,
            "bank_net": self.bank_net,
            "sum_x2": self.sum_x2,
            "sum_s2": self.sum_s2,
            "sum_xs": self.sum_xs,
            "counts": {k: self.counts[k] for k in (*PUNTER_KEYS, *ROUND_KEYS)},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Tally:
        counts = Counter({k: int(v) for k, v in data.get("counts", {}).items()})
        fields = {
            k: int(data[k]) for k in ("rounds", "punter_hands", "staked", "bank_net", "sum_x2", "sum_s2", "sum_xs")
        }
        return cls(**fields, counts=counts)

    # -- estimates ------------------------------------------------------------------------------------------

    @property
    def edge(self) -> float:
        """The bank's net per unit staked (positive: the bank wins)."""
        return self.bank_net / self.staked if self.staked else math.nan

    @property
    def half_width(self) -> float:
        """Half the 95% confidence interval of :attr:`edge` (nan below two rounds)."""
        n = self.rounds
        if n < 2 or not self.staked:
            return math.nan
        r = self.bank_net / self.staked
        spread = self.sum_x2 - 2 * r * self.sum_xs + r * r * self.sum_s2
        mean_stake = self.staked / n
        variance = max(spread, 0.0) / (n * (n - 1) * mean_stake * mean_stake)
        return Z95 * math.sqrt(variance)

    def frequencies(self) -> dict[str, float]:
        """Per punter hand (categories, outcomes, ties) and per round (banker, splits, bank passing)."""
        hands = self.punter_hands or 1
        rounds = self.rounds or 1
        out = {k: self.counts[k] / hands for k in PUNTER_KEYS}
        out.update({k: self.counts[k] / rounds for k in ROUND_KEYS})
        return out
