"""The game-output audit (issue #48): what tables paid and dealt, against exact values (docs/certification.md).

**The principle.** Every card is dealt from the top of a shuffled deck, so, whatever anybody decided before,
the next card is uniform over the cards not dealt yet; and at a house-banked table nobody sees the banker's
face-down card, so once the punters have finished, the banker's cards are a uniform ordering of the cards the
punters did not receive, played by the published fixed rule. Both facts hold for any way of playing, so the audit
measures every hand against its exact expected value *given the choices its players made*, with no assumption
about their strategy:

- **return**: a bust hand loses its stake and a pair of sevens wins ``pair7_pays`` times it (the published
  rules); a standing hand's net against the banker has its exact distribution over the banker's final hands
  from the remaining pack (``gamemath.worth``'s :class:`~gamemath.worth.pack.Pack`, the exact engine of "What
  every table is worth", with ``gamemath.scoring.settle_hand``). Summed over hands: the expected amount paid and
  its exact variance (the hands of one round share a banker: their covariance is in it);
- **outcomes**: each card a punter's unsplit hand or the banker receives makes that hand 7½, reale, a pair of
  sevens or a bust with a probability counted exactly over the undealt cards; ties (house bank) from the banker's
  distribution as above;
- **first card**: the deck's first card is each of the 40 with probability 1/40 (exact binomial test).

Each figure gets a two-sided p-value and an interval (expected +- z standard deviations, z from the threshold);
the audit is flagged where a p-value is below ``ALPHA / k`` (Bonferroni over the k figures of the audit, stated in
the report). The table card's published figures (``TableWorth.flat``, ``best_play``) are reported beside: ``flat``
is the return of the published default strategy at the minimum stake, the figure a laboratory's "theoretical
RTP" column holds; the flag judges the return against the exact expectation of the play as played, which is
``flat`` only when everybody plays that strategy (a player who stands on 4 gets less, a perfect one up to
``best_play``).

Player-banked tables: the banker is a person whose choices see the cards, so their return and ties are not
audited (reported as such); their cards and first cards are.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction

from certify.records import HandRecord, Result
from certify.stats import ALPHA, binomial_two_sided, bonferroni, normal_two_sided, z_for
from gamemath import shuffle
from gamemath.cards import CANONICAL_DECK
from gamemath.enums import Category
from gamemath.scoring import Score
from gamemath.worth import pack_of
from gamemath.worth.pack import Counts, Pack
from rules import TableConfig

#: Outcome frequencies audited per receiving side (punter hands, the banker), where the rules have them.
OUTCOMES: tuple[Category, ...] = (Category.SEVEN_HALF, Category.REALE, Category.PAIR7, Category.BUST)
_WORDS = {Category.SEVEN_HALF: "7½", Category.REALE: "reale", Category.PAIR7: "pair of sevens", Category.BUST: "bust"}


@dataclass
class Tally:
    """A sum of independent terms: what was observed, its exact expectation and variance."""

    observed: float = 0.0
    expected: float = 0.0
    variance: float = 0.0
    trials: int = 0

    def add(self, observed: float, expected: float, variance: float) -> None:
        self.observed += observed
        self.expected += expected
        self.variance += variance
        self.trials += 1


@dataclass(frozen=True, slots=True)
class Figure:
    """One audited figure: observed against expected, with the p-value, the interval and the flag."""

    name: str
    observed: float
    expected: float
    low: float
    high: float
    p: float
    flagged: bool
    trials: int
    unit: str = "count"  # "count", or "rtp" for the return (per chip staked)


@dataclass
class TableTally:
    """Everything the audit sums for one table."""

    table_id: int
    config: TableConfig
    hands: int = 0
    turnover: int = 0
    paid: int = 0
    ret: Tally = field(default_factory=Tally)  # the net the punters won, against its expectation
    ties: Tally = field(default_factory=Tally)
    outcomes: dict[str, Tally] = field(default_factory=dict)
    first: list[int] = field(default_factory=lambda: [0] * len(CANONICAL_DECK))


@dataclass(frozen=True, slots=True)
class TableAudit:
    """One table's audit: the laboratories' row (hands, turnover, paid, RTPs, deviation, interval, flag) and
    every figure behind it."""

    table_id: int
    game: str
    bank: str
    hands: int
    turnover: int
    paid: int
    actual_rtp: float | None
    expected_rtp: float | None
    rtp_low: float | None
    rtp_high: float | None
    flat: Fraction | None
    best_play: Fraction | None
    figures: tuple[Figure, ...]

    @property
    def flagged(self) -> bool:
        return any(f.flagged for f in self.figures)

    @property
    def deviation(self) -> float | None:
        if self.actual_rtp is None or self.expected_rtp is None:
            return None
        return self.actual_rtp - self.expected_rtp


_INDEX = {card: i for i, card in enumerate(CANONICAL_DECK)}


class _Hands:
    """The per-rule-set helpers: card types, the category a card would make, the banker's distribution."""

    def __init__(self, config: TableConfig) -> None:
        self.rules = config.rules
        self.pack: Pack = pack_of(config.rules)
        self.type_of: dict[str, int] = {}
        for t, codes in enumerate(self.pack.codes):
            for code in codes:
                self.type_of[code] = t
        self.audited = [c for c in OUTCOMES if self._has(c)]
        self._next: dict[Counts, tuple[Category, ...]] = {}
        self._chances: dict[tuple[Counts, Counts], tuple[float, ...]] = {}
        self.rounds: dict[tuple[Counts, int, tuple[tuple[str, int, int], ...]], tuple[float, float, float, float]] = {}

    def _has(self, category: Category) -> bool:
        if category == Category.REALE:
            return bool(self.rules.reale)
        if category == Category.PAIR7:
            return bool(self.rules.pair_of_sevens)
        return True

    def next_categories(self, held: Counts) -> tuple[Category, ...]:
        """The category of ``held`` plus one card of each type (an unsplit hand)."""
        found = self._next.get(held)
        if found is None:
            found = tuple(self.pack.score(self.pack.add(held, t), False).category for t in range(self.pack.types))
            self._next[held] = found
        return found

    def chances(self, held: Counts, left: Counts) -> tuple[float, ...]:
        """The probability that the next card, uniform over ``left``, makes ``held`` each audited category."""
        key = (held, left)
        found = self._chances.get(key)
        if found is None:
            categories = self.next_categories(held)
            total = sum(left)
            found = tuple(
                sum(n for n, c in zip(left, categories, strict=True) if c == category) / total
                for category in self.audited
            )
            self._chances[key] = found
        return found


def _counts(pack: Pack, types: Iterable[int]) -> Counts:
    out = [0] * pack.types
    for t in types:
        out[t] += 1
    return tuple(out)


def tally_hand(tally: TableTally, helper: _Hands, record: HandRecord, deck: list[str]) -> None:
    """Add one settled hand to its table's tally."""
    pack = helper.pack
    tally.hands += 1
    tally.first[_INDEX[deck[0]]] += 1
    split_seats = {r.seat for r in record.results if r.hand > 0}
    held: dict[tuple[bool, int | None, int | None], list[int]] = {}
    left = list(pack.full)
    punter_types: list[int] = []
    for card in record.dealt:
        t = helper.type_of[deck[card.deck_index]]
        key = (card.banker, card.seat, card.hand)
        unsplit = card.banker or (card.hand is not None and card.seat not in split_seats)
        if unsplit:
            before = held.setdefault(key, [])
            held_counts = _counts(pack, before)
            actual = helper.next_categories(held_counts)[t]
            side = "banker" if card.banker else "punter"
            for category, p in zip(helper.audited, helper.chances(held_counts, tuple(left)), strict=True):
                name = f"{side} {_WORDS[category]}"
                tally.outcomes.setdefault(name, Tally()).add(float(actual == category), p, p * (1 - p))
            before.append(t)
        if not card.banker:
            punter_types.append(t)
        left[t] -= 1
    for result in record.results:
        tally.turnover += result.bet
        tally.paid += result.bet + result.net
    if tally.config.house_bank:
        _tally_return(tally, helper, record.results, _remaining(pack, punter_types), split_seats)


def _remaining(pack: Pack, punter_types: list[int]) -> Counts:
    left = list(pack.full)
    for t in punter_types:
        left[t] -= 1
    return tuple(left)


def _tally_return(
    tally: TableTally, helper: _Hands, results: tuple[Result, ...], remaining: Counts, split_seats: set[int]
) -> None:
    """The round's net against its exact expectation: settled-at-once hands are certain, standing hands share the
    banker's distribution over ``remaining``."""
    rules = helper.rules
    certain = 0
    standing: list[Result] = []
    for r in results:
        category = Category(r.category)
        if category == Category.BUST:
            certain += -r.bet
        elif category == Category.PAIR7 and r.seat not in split_seats:
            certain += rules.pair7_pays * r.bet
        else:
            standing.append(r)
    observed = sum(r.net for r in results)
    if not standing:
        tally.ret.add(observed, certain, 0.0)
        return
    key = (remaining, certain, tuple((r.category, r.total_hp, r.bet) for r in standing))
    moments = helper.rounds.get(key)
    if moments is None:
        moments = helper.rounds[key] = _round_moments(helper.pack, remaining, certain, standing)
    mean, var, tie_mean, tie_var = moments
    tally.ret.add(observed, mean, var)
    tally.ties.add(sum(r.tie for r in standing), tie_mean, tie_var)


def _round_moments(
    pack: Pack, remaining: Counts, certain: int, standing: list[Result]
) -> tuple[float, float, float, float]:
    """Mean and variance of the round's net and of its number of ties, over the banker's final hands."""
    vector = pack.banker_vector(remaining)
    scale = math.factorial(sum(remaining))
    nets = [certain] * len(vector)
    ties = [0] * len(vector)
    for r in standing:
        punter = Score(Category(r.category), r.total_hp, None)
        for c, (payoff, banker) in enumerate(zip(pack.payoffs(punter), pack.banker_classes, strict=True)):
            nets[c] += payoff * r.bet
            ties[c] += int(punter.rank == banker.rank)
    return (*_moments(vector, scale, nets), *_moments(vector, scale, ties))


def _moments(vector: tuple[int, ...], scale: int, values: list[int]) -> tuple[float, float]:
    first = Fraction(sum(w * v for w, v in zip(vector, values, strict=True)), scale)
    second = Fraction(sum(w * v * v for w, v in zip(vector, values, strict=True)), scale)
    return float(first), float(second - first * first)


# --- from tallies to figures ---------------------------------------------------------------------------------------


def _figure(name: str, tally: Tally, z: float, threshold: float, unit: str = "count") -> Figure:
    p = normal_two_sided(tally.observed, tally.expected, tally.variance)
    half = z * math.sqrt(max(tally.variance, 0.0))
    return Figure(
        name=name,
        observed=tally.observed,
        expected=tally.expected,
        low=tally.expected - half,
        high=tally.expected + half,
        p=p,
        flagged=p < threshold,
        trials=tally.trials,
        unit=unit,
    )


def figure_count(tallies: Iterable[TableTally]) -> int:
    """How many figures the audit of these tallies reports (the k of the Bonferroni rule)."""
    k = 0
    for t in tallies:
        k += len(t.outcomes) + len(t.first)
        if t.config.house_bank:
            k += 2  # return, ties
    return k


def judge(tally: TableTally, threshold: float, worth: tuple[Fraction | None, Fraction | None]) -> TableAudit:
    """One table's figures under the audit's threshold (``ALPHA / k``)."""
    z = z_for(threshold)
    figures: list[Figure] = []
    actual = expected = low = high = None
    if tally.turnover:
        actual = tally.paid / tally.turnover
    if tally.config.house_bank and tally.hands:
        ret = _figure("return (net won by the punters)", tally.ret, z, threshold)
        figures.append(ret)
        figures.append(_figure("ties", tally.ties, z, threshold))
        if tally.turnover:
            expected = 1 + ret.expected / tally.turnover
            low, high = 1 + ret.low / tally.turnover, 1 + ret.high / tally.turnover
    for name in sorted(tally.outcomes):
        figures.append(_figure(name, tally.outcomes[name], z, threshold))
    n = tally.hands
    for card, count in zip(CANONICAL_DECK, tally.first, strict=True):
        p = binomial_two_sided(count, n, 1 / 40)
        half = z * math.sqrt(n * (1 / 40) * (39 / 40))
        figures.append(Figure(f"first card {card}", count, n / 40, n / 40 - half, n / 40 + half, p, p < threshold, n))
    return TableAudit(
        table_id=tally.table_id,
        game=tally.config.preset,
        bank=str(tally.config.bank),
        hands=tally.hands,
        turnover=tally.turnover,
        paid=tally.paid,
        actual_rtp=actual,
        expected_rtp=expected,
        rtp_low=low,
        rtp_high=high,
        flat=worth[0],
        best_play=worth[1],
        figures=tuple(figures),
    )


def tally(records: Iterable[HandRecord], configs: Mapping[int, TableConfig]) -> dict[int, TableTally]:
    """Every table's sums over ``records`` (each hand's deck recomputed with the published shuffle)."""
    tallies: dict[int, TableTally] = {}
    helpers: dict[int, _Hands] = {}
    for record in records:
        found = tallies.get(record.table_id)
        if found is None:
            config = configs[record.table_id]
            found = tallies[record.table_id] = TableTally(record.table_id, config)
            helpers[record.table_id] = _Hands(config)
        deck = shuffle.shuffle_deck(bytes.fromhex(record.server_seed), record.client_seed, record.number)
        tally_hand(found, helpers[record.table_id], record, deck)
    return tallies


def verdicts(
    tallies: Mapping[int, TableTally],
    worth: Callable[[TableConfig], tuple[Fraction | None, Fraction | None]],
    alpha: float = ALPHA,
) -> tuple[list[TableAudit], float]:
    """Every table's audit and the threshold used (``alpha`` over all the figures); ``worth`` gives a table card's
    (flat, best_play)."""
    threshold = bonferroni(figure_count(tallies.values()), alpha)
    return [judge(t, threshold, worth(t.config)) for _, t in sorted(tallies.items())], threshold


def audit(
    records: Iterable[HandRecord],
    configs: Mapping[int, TableConfig],
    worth: Callable[[TableConfig], tuple[Fraction | None, Fraction | None]],
    alpha: float = ALPHA,
) -> tuple[list[TableAudit], float]:
    """Every table's audit of ``records`` and the threshold used."""
    return verdicts(tally(records, configs), worth, alpha)
