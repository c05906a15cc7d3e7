"""The provably fair shuffle of API.md, as published.

``deck = shuffle_deck(server_seed, client_seed, nonce)`` is fully determined by its inputs:

1. HMAC-SHA256 keyed by the server seed, over the messages ``f"{client_seed}:{nonce}:{k}"`` for k = 0, 1, 2, ...,
   gives a stream of big-endian unsigned 32-bit integers (eight per block).
2. A Fisher-Yates shuffle of the canonical pack swaps ``deck[i]`` with ``deck[j]`` for i from 39 down to 1, where
   ``j`` is uniform in [0, i] by rejection sampling: a value at or above the largest multiple of ``i + 1`` below
   2**32 is dropped and the next one drawn (no modulo bias).

Cards are dealt from ``deck[0]`` upward. The same stream (with another prefix) draws the first banker.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence

from gamemath.cards import CANONICAL_DECK

_EIGHT_U32 = struct.Struct(">8I")
_TWO_32 = 2**32


def seed_commitment(server_seed: bytes) -> str:
    """The published commitment: lowercase hex of sha256(server_seed)."""
    return hashlib.sha256(server_seed).hexdigest()


def u32_stream(key: bytes, prefix: str) -> Iterator[int]:
    """Big-endian uint32 values of HMAC-SHA256(key, f"{prefix}:{k}") for k = 0, 1, 2, ...

    The HMAC is keyed once per stream and copied for each block: the same bytes as a one-shot ``hmac.digest`` per
    block, without setting the key up again for every block (about 6% of a deck's instructions)."""
    keyed = hmac.new(key, digestmod="sha256")
    block = 0
    while True:
        mac = keyed.copy()
        mac.update(f"{prefix}:{block}".encode())
        yield from _EIGHT_U32.unpack(mac.digest())
        block += 1


def uniform_below(stream: Iterator[int], n: int) -> int:
    """A uniform integer in [0, n) from the stream, by rejection sampling (no modulo bias)."""
    limit = _TWO_32 - (_TWO_32 % n)
    x = next(stream)
    while x >= limit:
        x = next(stream)
    return x % n


def shuffle_cards(cards: Sequence[str], stream: Iterator[int]) -> list[str]:
    """Fisher-Yates shuffle of ``cards``, each swap drawn from ``stream`` with :func:`uniform_below`."""
    deck = list(cards)
    for i in range(len(deck) - 1, 0, -1):
        j = uniform_below(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def shuffle_deck(server_seed: bytes, client_seed: str, nonce: int) -> list[str]:
    """The 40 cards of a hand in dealing order, from (server_seed, client_seed, nonce) as published."""
    return shuffle_cards(CANONICAL_DECK, u32_stream(server_seed, f"{client_seed}:{nonce}"))


def verify_deck(server_seed: bytes, commitment: str, client_seed: str, nonce: int, dealt: Sequence[str]) -> bool:
    """True if the seed matches the commitment and ``dealt`` is a prefix of the deck it determines."""
    if seed_commitment(server_seed) != commitment:
        return False
    deck = shuffle_deck(server_seed, client_seed, nonce)
    return list(dealt) == deck[: len(dealt)]
