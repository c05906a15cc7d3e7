"""Exact house edges by enumeration, written from RULES.md alone (no code of the rules core), for tests.

Rule sets without wild card, reale, pair of sevens or splits (classic and its payout/tie overrides), one
punter against a house banker: every sequence of card values is enumerated with its exact probability.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

#: Cards of the 40-card pack by value in half-points: 12 pictures (1 hp), four each of 1-7 (2-14 hp).
PACK: dict[int, int] = {1: 12, 2: 4, 4: 4, 6: 4, 8: 4, 10: 4, 12: 4, 14: 4}


@dataclass(frozen=True)
class Toggles:
    punter_stands_at: int = 11
    banker_stands_at: int = 10
    tie_push: bool = False
    player_win_pays: int = 1
    player_75_pays: int = 1
    banker_75_collect_vs_other: int = 1
    banker_75_collect_vs_75: int = 1


def punter_net(t: Toggles, punter: int, banker: int | None) -> int:
    """A unit stake's net for the punter: ``banker`` None when the punter busted (the banker does not play)."""
    if punter > 15:
        return -1
    assert banker is not None
    if banker > 15:
        return t.player_75_pays if punter == 15 else t.player_win_pays
    if punter > banker:
        return t.player_75_pays if punter == 15 else t.player_win_pays
    if punter == banker and t.tie_push:
        return 0
    if banker == 15:
        return -(t.banker_75_collect_vs_75 if punter == 15 else t.banker_75_collect_vs_other)
    return -1


def _draw(counts: dict[int, int]) -> Iterator[tuple[int, Fraction, dict[int, int]]]:
    left = sum(counts.values())
    for value, n in counts.items():
        if n:
            rest = dict(counts)
            rest[value] = n - 1
            yield value, Fraction(n, left), rest


def leaves(t: Toggles) -> Iterator[tuple[tuple[int, ...], Fraction, int, int | None]]:
    """Every distinct hand: (values in dealing order, probability, punter total, banker total or None)."""

    def banker_hits(seq, p, counts, punter, banker):  # type: ignore[no-untyped-def]
        if banker >= t.banker_stands_at or banker >= 15:
            yield seq, p, punter, banker
            return
        for v, q, rest in _draw(counts):
            yield from (
                banker_hits((*seq, v), p * q, rest, punter, banker + v)
                if banker + v <= 15
                else iter([((*seq, v), p * q, punter, banker + v)])
            )

    def punter_hits(seq, p, counts, punter, banker_card):  # type: ignore[no-untyped-def]
        if punter > 15:
            yield seq, p, punter, None
            return
        if punter >= t.punter_stands_at or punter == 15:
            yield from banker_hits(seq, p, counts, punter, banker_card)
            return
        for v, q, rest in _draw(counts):
            yield from punter_hits((*seq, v), p * q, rest, punter + v, banker_card)

    for first, p1, c1 in _draw(PACK):
        for bank, p2, c2 in _draw(c1):
            yield from punter_hits((first, bank), p1 * p2, c2, first, bank)


def exact_edge(t: Toggles) -> Fraction:
    """The bank's exact expected net per unit staked (the same tree as :func:`leaves`, memoised on the cards
    left, so the default rules take a second)."""
    values = tuple(PACK)

    @cache
    def banker(counts: tuple[int, ...], punter: int, total: int) -> Fraction:
        if total > 15 or total >= t.banker_stands_at or total == 15:
            return Fraction(-punter_net(t, punter, total))
        return _expect(counts, lambda v, rest: banker(rest, punter, total + v))

    @cache
    def punter(counts: tuple[int, ...], total: int, bank_card: int) -> Fraction:
        if total > 15:
            return Fraction(1)
        if total >= t.punter_stands_at or total == 15:
            return banker(counts, total, bank_card)
        return _expect(counts, lambda v, rest: punter(rest, total + v, bank_card))

    def _expect(counts: tuple[int, ...], then: Callable[[int, tuple[int, ...]], Fraction]) -> Fraction:
        left = sum(counts)
        out = Fraction(0)
        for i, n in enumerate(counts):
            if n:
                rest = (*counts[:i], n - 1, *counts[i + 1 :])
                out += Fraction(n, left) * then(values[i], rest)
        return out

    full = tuple(PACK.values())
    return _expect(full, lambda first, c1: _expect(c1, lambda bank, c2: punter(c2, first, bank)))
