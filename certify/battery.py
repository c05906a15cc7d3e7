"""The RNG battery (issue #48): what a testing laboratory runs on a card game's shuffle, run by the product.

1. The keystream (the 32-bit values the shuffle draws, :mod:`certify.keystream`) through dieharder
   (:mod:`certify.dieharder`) and NIST SP 800-22 (:mod:`certify.nist`).
2. Decks shuffled from fresh seeds: a card-by-position chi-square (40 x 40 cells; each row and each column sums
   to the number of decks, so (40 - 1)^2 = 1521 degrees of freedom), the first card's frequencies (39 degrees
   of freedom) and the ordered pair of the first two cards (40 x 39 cells, 1559 degrees of freedom).

Every p-value goes into one :class:`Report`, under the verdict rule of :mod:`certify.stats` stated beforehand.
Sizes: :data:`SHORT` for the suite, :data:`LONG` for the documented long run (docs/certification.md).
"""

from __future__ import annotations

import platform
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from certify import dieharder, keystream, nist
from certify.stats import ALPHA, PValue, bonferroni, chi_square, verdict_rule
from gamemath.cards import CANONICAL_DECK

_INDEX = {card: i for i, card in enumerate(CANONICAL_DECK)}
_N = len(CANONICAL_DECK)


@dataclass(frozen=True, slots=True)
class Sizes:
    """How much of each part a run does."""

    decks: int
    nist_bits: int
    dieharder_tests: tuple[tuple[int, int], ...] | None  # None: dieharder's whole battery (-a)
    name: str


SHORT = Sizes(decks=20_000, nist_bits=100_000, dieharder_tests=((0, 5),), name="short")
LONG = Sizes(decks=1_000_000, nist_bits=1_000_000, dieharder_tests=None, name="long")


@dataclass
class Report:
    """One battery run: its sizes, the rule, every p-value, and the verdict the rule gives."""

    sizes: Sizes
    started: str
    seconds: float = 0.0
    rule: str = field(default_factory=verdict_rule)
    alpha: float = ALPHA
    pvalues: list[PValue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def threshold(self) -> float:
        return bonferroni(len(self.pvalues), self.alpha)

    @property
    def failures(self) -> list[PValue]:
        return [p for p in self.pvalues if p.p < self.threshold]

    @property
    def passed(self) -> bool:
        return bool(self.pvalues) and not self.failures


def deck_tests(decks: int, master: bytes | None = None) -> list[PValue]:
    """The chi-squares over ``decks`` shuffled decks: card by position, first card, first two cards."""
    by_position = [[0] * _N for _ in range(_N)]
    pairs = [[0] * _N for _ in range(_N)]
    for hand in keystream.hands(decks, master):
        deck = hand.deck
        for position, card in enumerate(deck):
            by_position[position][_INDEX[card]] += 1
        pairs[_INDEX[deck[0]]][_INDEX[deck[1]]] += 1
    cells = [count for row in by_position for count in row]
    stat, p = chi_square(cells, [decks / _N] * len(cells), (_N - 1) ** 2)
    out = [PValue("card by position (40 x 40)", p, f"{decks:,} decks, chi-square {stat:.1f}, {(_N - 1) ** 2} dof")]
    stat, p = chi_square(by_position[0], [decks / _N] * _N, _N - 1)
    out.append(PValue("first card", p, f"{decks:,} decks, chi-square {stat:.1f}, {_N - 1} dof"))
    observed = [pairs[a][b] for a in range(_N) for b in range(_N) if a != b]
    dof = _N * (_N - 1) - 1
    stat, p = chi_square(observed, [decks / (_N * (_N - 1))] * len(observed), dof)
    out.append(PValue("first two cards (ordered pair)", p, f"{decks:,} decks, chi-square {stat:.1f}, {dof} dof"))
    return out


def run(sizes: Sizes, master: bytes | None = None, say: Callable[[str], None] = lambda _: None) -> Report:
    """The battery at ``sizes``; seeds from OS entropy as in play, or derived from ``master`` (reproducible)."""
    start = time.perf_counter()
    report = Report(sizes=sizes, started=datetime.now(UTC).isoformat(timespec="seconds"))
    seeds = "derived from a master seed (reproducible run)" if master else "OS entropy, as the product draws them"
    report.notes.append(f"seeds: {seeds}; python {platform.python_version()}")
    say(f"decks: {sizes.decks:,} shuffles")
    report.pvalues.extend(deck_tests(sizes.decks, master))
    say(f"NIST SP 800-22: {sizes.nist_bits:,} bits")
    report.pvalues.extend(nist.run(sizes.nist_bits, master))
    report.notes.extend(f"SP 800-22 {name} not run: {why}" for name, why in nist.EXCLUDED.items())
    say("dieharder: " + ("the whole battery (-a)" if sizes.dieharder_tests is None else str(sizes.dieharder_tests)))
    found = dieharder.run(sizes.dieharder_tests, master)
    if isinstance(found, dieharder.Missing):
        report.notes.append(f"dieharder not run: {found.reason}")
    else:
        report.pvalues.extend(found)
    report.seconds = time.perf_counter() - start
    return report
