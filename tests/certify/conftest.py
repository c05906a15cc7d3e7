"""Planted faults in the shuffle, put into the real module for one test (every caller, the product's pipeline
included, then draws through them): what the battery and the audit must catch."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from gamemath import shuffle

#: The card a biased shuffle never puts first.
NEVER_FIRST = "1O"


def never_first(cards: Sequence[str], stream: Iterator[int]) -> list[str]:
    """The honest shuffle, then ``NEVER_FIRST`` moved out of the first place (swapped with the second card)."""
    deck = _honest_shuffle_cards(cards, stream)
    if deck[0] == NEVER_FIRST:
        deck[0], deck[1] = deck[1], deck[0]
    return deck


def byte_modulo(stream: Iterator[int], n: int) -> int:
    """A modulo-biased scaling: one byte of the draw reduced modulo ``n`` (256 % 40 = 16: sixteen of the forty
    places come up 7 times in 256 instead of 6.4)."""
    return (next(stream) & 0xFF) % n


_honest_shuffle_cards = shuffle.shuffle_cards


@pytest.fixture
def plant_never_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shuffle, "shuffle_cards", never_first)


@pytest.fixture
def plant_byte_modulo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shuffle, "uniform_below", byte_modulo)
