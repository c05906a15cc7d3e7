"""The pack as the exact engine sees it: cards by type, hands as counts of each type, the banker's fixed play
enumerated once per rule set, and what a standing hand is worth against it from a given remaining pack.

Card types: the non-wild pictures, the natural 1..7 (each without the wild card if it has that rank), and the
wild card when there is one. A hand is a tuple of counts by type (plus, where the rules make it matter, the type
of the last card received: see :attr:`Pack.keeps_last`). Every hand is evaluated by
:func:`gamemath.scoring.evaluate` on representative card codes, and every settlement by
:func:`gamemath.scoring.settle_hand`: no rule is written here twice.

Exact integer arithmetic: a probability over a pack of ``N`` cards is kept as an integer scaled by ``N!`` (the
number of orderings of the remaining pack in which it happens), so options at one decision compare as integers
and nothing is rounded. The banker's face-down card is not removed from the pack: nobody at a house-banked table
sees it before his turn, so by exchangeability it may be drawn after the punter's cards.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import cache

from gamemath.cards import CANONICAL_DECK, VALUE_HP, is_picture
from gamemath.enums import Category, SplitMode
from gamemath.ruleset import Rules
from gamemath.scoring import Score, evaluate, house_banker_draws, settle_hand

Counts = tuple[int, ...]
#: A hand: counts by type, and the type of its last card (-1 where the rules never ask which card came last).
Hand = tuple[Counts, int]

_MAX_CARDS = 40
FACT: tuple[int, ...] = tuple(math.factorial(n) for n in range(_MAX_CARDS + 1))


def _type_of(code: str, matta: str) -> int:
    """0: a non-wild picture; 1..7: a natural card of that rank; 8: the wild card."""
    if code == matta:
        return 8
    if is_picture(code):
        return 0
    return int(code[:-1])


class Pack:
    """One rule set's card types and the caches that only depend on the rule set."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        matta = rules.matta if rules.has_matta else ""
        codes: list[list[str]] = [[] for _ in range(9)]
        for code in CANONICAL_DECK:
            codes[_type_of(code, matta)].append(code)
        if not matta:
            codes.pop()
        self.codes: tuple[tuple[str, ...], ...] = tuple(tuple(c) for c in codes)
        self.types = len(self.codes)
        self.full: Counts = tuple(len(c) for c in self.codes)
        self.empty: Counts = (0,) * self.types
        self.pictures: frozenset[int] = frozenset(t for t, c in enumerate(self.codes) if c and is_picture(c[0]))
        self.hp: tuple[int, ...] = tuple(VALUE_HP[c[0]] for c in self.codes)
        #: True when which picture came last can matter: a wild picture that a split could move to a new hand.
        self.keeps_last = rules.split_mode != SplitMode.NONE and bool(matta) and is_picture(matta)
        self._scores: dict[tuple[Counts, bool], Score] = {}
        self._banker_vectors: dict[Counts, tuple[int, ...]] = {}
        self._unit: dict[tuple[Counts, Score], int] = {}
        self._build_banker()

    # -- hands -------------------------------------------------------------------------------------------

    def cards_of(self, counts: Counts) -> list[str]:
        """Representative card codes of a hand (distinct codes of each type)."""
        out: list[str] = []
        for t, n in enumerate(counts):
            out.extend(self.codes[t][:n])
        return out

    def score(self, counts: Counts, split: bool) -> Score:
        """The hand's evaluation by the rules' own ``evaluate`` (order never matters to it)."""
        key = (counts, split)
        s = self._scores.get(key)
        if s is None:
            e = evaluate(self.cards_of(counts), self.rules, split=split)
            s = Score(e.category, e.total_hp, None)  # the wild card's value never settles anything
            self._scores[key] = s
        return s

    def add(self, counts: Counts, t: int) -> Counts:
        return (*counts[:t], counts[t] + 1, *counts[t + 1 :])

    def remove(self, counts: Counts, t: int) -> Counts:
        return (*counts[:t], counts[t] - 1, *counts[t + 1 :])

    def hand(self, counts: Counts, last: int) -> Hand:
        return (counts, last if self.keeps_last else -1)

    def all_pictures(self, counts: Counts) -> bool:
        return all(n == 0 or t in self.pictures for t, n in enumerate(counts))

    def window_open(self, pack: Counts) -> bool:
        """Hungarian split window: every card the punter received is a picture (read off the remaining pack)."""
        return all(pack[t] == self.full[t] for t in range(self.types) if t not in self.pictures)

    # -- the banker ----------------------------------------------------------------------------------------

    def _build_banker(self) -> None:
        """Every multiset of cards the banker can end his turn with, with the number of orders (words of card
        types) in which he draws it under the fixed rule, and its evaluation."""
        rules = self.rules
        words: dict[Counts, int] = {tuple([0] * self.types): 1}
        frontier = [tuple([0] * self.types)]
        final: dict[Counts, int] = {}
        while frontier:
            nxt: dict[Counts, int] = {}
            for held in frontier:
                w = words[held]
                for t in range(self.types):
                    if held[t] == self.full[t]:
                        continue
                    after = self.add(held, t)
                    s = evaluate(self.cards_of(after), rules)
                    if s.category == Category.POINTS and house_banker_draws(s, rules):
                        nxt[after] = nxt.get(after, 0) + w
                    else:
                        final[after] = final.get(after, 0) + w
            words.update(nxt)
            frontier = list(nxt)
        classes: dict[Score, int] = {}
        terminals: list[tuple[int, tuple[tuple[int, int], ...], int, int]] = []
        for held, w in final.items():
            s = evaluate(self.cards_of(held), rules)
            key = Score(s.category, s.total_hp, None)
            k = classes.setdefault(key, len(classes))
            items = tuple((t, n) for t, n in enumerate(held) if n)
            terminals.append((w, items, sum(held), k))
        terminals.sort(key=lambda x: x[2])
        self.banker_classes: tuple[Score, ...] = tuple(classes)
        self._terminals = terminals

    def banker_vector(self, pack: Counts) -> tuple[int, ...]:
        """For the remaining ``pack`` (the banker's face-down card still in it): the number of orderings of the
        pack in which the banker ends with each class (probability = that / N!)."""
        v = self._banker_vectors.get(pack)
        if v is not None:
            return v
        n_left = sum(pack)
        falling: list[list[int]] = []
        for c in pack:
            row = [1]
            for j in range(c):
                row.append(row[-1] * (c - j))
            falling.append(row)
        out = [0] * len(self.banker_classes)
        for w, items, size, k in self._terminals:
            if size > n_left:
                break
            x = w * FACT[n_left - size]
            for t, b in items:
                row = falling[t]
                if b >= len(row):
                    x = 0
                    break
                x *= row[b]
            if x:
                out[k] += x
        v = tuple(out)
        self._banker_vectors[pack] = v
        return v

    def payoffs(self, punter: Score) -> tuple[int, ...]:
        """The net of a one-chip stake on a standing hand against each banker class (``settle_hand``)."""
        return _payoffs(self.rules, punter, self.banker_classes)

    def unit(self, pack: Counts, punter: Score) -> int:
        """A one-chip standing hand's expected net from ``pack``, scaled by N!: what it wins against the banker."""
        key = (pack, punter)
        u = self._unit.get(key)
        if u is None:
            vec = self.banker_vector(pack)
            u = 0
            for p, x in zip(self.payoffs(punter), vec, strict=True):
                if p and x:
                    u += p * x
            self._unit[key] = u
        return u


@cache
def _payoffs(rules: Rules, punter: Score, banker: Sequence[Score]) -> tuple[int, ...]:
    return tuple(settle_hand(punter, 1, b, rules).net for b in banker)
