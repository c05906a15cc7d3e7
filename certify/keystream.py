"""The shuffle's real output, for the battery: the 32-bit values each deck draws and the deck they make.

Every value comes from :func:`gamemath.shuffle.u32_stream` and every deck from
:func:`gamemath.shuffle.shuffle_cards` (looked up at call time: a test that plants a biased scaling in
``gamemath.shuffle`` is measured here as the product would run it). The seeds are drawn as the product draws them:
32 bytes of OS entropy for the server seed (``tables.fairness.draw_next_seed``), 16 for the client seed
(``tables.services``), the hand's number as the nonce. ``master`` makes a run reproducible instead: seed ``k`` is
``sha256(master || k)``.
"""

from __future__ import annotations

import hashlib
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass

from gamemath import shuffle
from gamemath.cards import CANONICAL_DECK


@dataclass(frozen=True, slots=True)
class Hand:
    """One shuffled deck and the 32-bit values its shuffle drew, in order (the rejected ones included)."""

    deck: tuple[str, ...]
    draws: tuple[int, ...]


class _Counted:
    def __init__(self, stream: Iterator[int]) -> None:
        self.stream = stream
        self.seen: list[int] = []

    def __iter__(self) -> Iterator[int]:
        return self

    def __next__(self) -> int:
        value = next(self.stream)
        self.seen.append(value)
        return value


def hand_of(server_seed: bytes, client_seed: str, nonce: int) -> Hand:
    """The deck of ``shuffle_deck(server_seed, client_seed, nonce)`` and the values its shuffle drew."""
    counted = _Counted(shuffle.u32_stream(server_seed, f"{client_seed}:{nonce}"))
    deck = shuffle.shuffle_cards(CANONICAL_DECK, counted)
    return Hand(deck=tuple(deck), draws=tuple(counted.seen))


def seeds(master: bytes | None = None) -> Iterator[tuple[bytes, str, int]]:
    """``(server_seed, client_seed, nonce)`` of hands 1, 2, 3, ...: OS entropy as the product draws it, or derived
    from ``master``."""
    nonce = 0
    client_seed = os.urandom(16).hex() if master is None else hashlib.sha256(master + b"client").hexdigest()[:32]
    while True:
        nonce += 1
        derived = hashlib.sha256(master + nonce.to_bytes(8, "big")).digest() if master is not None else b""
        server_seed = derived or os.urandom(32)
        yield server_seed, client_seed, nonce


def hands(count: int, master: bytes | None = None) -> Iterator[Hand]:
    """``count`` hands' decks and draws."""
    for _, (server_seed, client_seed, nonce) in zip(range(count), seeds(master), strict=False):
        yield hand_of(server_seed, client_seed, nonce)


def keystream_bytes(hand: Hand) -> bytes:
    """A hand's draws as 4-byte little-endian words (dieharder's ``stdin_input_raw`` reads host-order uint32)."""
    return struct.pack(f"<{len(hand.draws)}I", *hand.draws)
