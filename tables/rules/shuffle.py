"""The provably fair shuffle of API.md.

``deck = shuffle_deck(server_seed, client_seed, nonce)`` is fully determined by its inputs:
an HMAC-SHA256 keyed by the server seed yields a stream of big-endian uint32 (8 per block, block k from
the message ``f"{client_seed}:{nonce}:{k}"``); a Fisher-Yates shuffle of the canonical pack draws from it
with rejection sampling (no modulo bias). Cards are dealt from ``deck[0]`` upward.
"""

from __future__ import annotations

import hashlib
import hmac
import struct
from collections.abc import Iterator, Sequence
from operator import lt as _lt
from operator import mod as _mod

from .cards import CANONICAL_DECK

_EIGHT_U32 = struct.Struct(">8I")
_TWO_32 = 2**32
#: Rejection limits for n = 0..64 (index n): the largest multiple of n not above 2**32.
_LIMITS: tuple[int, ...] = (0, *(_TWO_32 - (_TWO_32 % n) for n in range(1, 65)))


def seed_commitment(server_seed: bytes) -> str:
    """The published commitment: lowercase hex of sha256(server_seed)."""
    return hashlib.sha256(server_seed).hexdigest()


def u32_stream(key: bytes, prefix: str) -> Iterator[int]:
    """Big-endian uint32 values of HMAC-SHA256(key, f"{prefix}:{k}") for k = 0, 1, 2, ..."""
    k = 0
    while True:
        yield from _EIGHT_U32.unpack(hmac.digest(key, f"{prefix}:{k}".encode(), "sha256"))
        k += 1


def uniform_below(stream: Iterator[int], n: int) -> int:
    """A uniform integer in [0, n) from the stream, by rejection sampling (no modulo bias)."""
    limit = _TWO_32 - (_TWO_32 % n)
    x = next(stream)
    while x >= limit:
        x = next(stream)
    return x % n


def _plan(count: int) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """For a pack of ``count`` cards: HMAC blocks of the first try, the n of each draw, their rejection limits."""
    ns = tuple(range(count, 1, -1))
    limits = tuple(_LIMITS[n] if n < len(_LIMITS) else _TWO_32 - (_TWO_32 % n) for n in ns)
    return -(-len(ns) // 8), ns, limits


_SHA256 = hashlib.sha256
_IPAD = int.from_bytes(b"\x36" * 64)
_OPAD = int.from_bytes(b"\x5c" * 64)


def _hmac_u32s(key: bytes, prefix: str, blocks: int) -> list[int]:
    """The u32 of HMAC-SHA256(key, f"{prefix}{k}") for k < ``blocks`` (RFC 2104 with the padded key's two
    SHA-256 states computed once: the same digests as ``hmac.digest``, in about half the time)."""
    if len(key) > 64:
        key = _SHA256(key).digest()
    padded = int.from_bytes(key.ljust(64, b"\0"))
    inner = _SHA256((padded ^ _IPAD).to_bytes(64))
    outer = _SHA256((padded ^ _OPAD).to_bytes(64))
    values: list[int] = []
    for block in range(blocks):
        i = inner.copy()
        i.update(f"{prefix}{block}".encode())
        o = outer.copy()
        o.update(i.digest())
        values.extend(_EIGHT_U32.unpack(o.digest()))
    return values


_PLANS: dict[int, tuple[int, tuple[int, ...], tuple[int, ...]]] = {}


def shuffle_cards(cards: Sequence[str], server_seed: bytes, client_seed: str, nonce: int) -> list[str]:
    """Fisher-Yates shuffle of ``cards`` driven by the hand's u32 stream (API.md)."""
    deck = list(cards)
    prefix = f"{client_seed}:{nonce}:"
    count = len(deck)
    plan = _PLANS.get(count)
    if plan is None:
        plan = _PLANS[count] = _plan(count)
    blocks, ns, limits = plan
    # Fast path: one u32 per draw, none rejected (all but certain: a rejection has odds below 1e-8 per u32).
    values = _hmac_u32s(server_seed, prefix, blocks)
    if all(map(_lt, values, limits)):
        for i, j in zip(range(count - 1, 0, -1), map(_mod, values, ns), strict=False):
            deck[i], deck[j] = deck[j], deck[i]
        return deck
    return _shuffle_with_rejections(deck, server_seed, prefix)


def _shuffle_with_rejections(deck: list[str], server_seed: bytes, prefix: str) -> list[str]:
    """The general Fisher-Yates loop, drawing again whenever a u32 is rejected."""
    values: list[int] = []
    block = 0
    position = 0
    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = _LIMITS[n] if n < len(_LIMITS) else _TWO_32 - (_TWO_32 % n)
        while True:
            if position == len(values):
                values.extend(_EIGHT_U32.unpack(hmac.digest(server_seed, f"{prefix}{block}".encode(), "sha256")))
                block += 1
            x = values[position]
            position += 1
            if x < limit:
                break
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def shuffle_deck(server_seed: bytes, client_seed: str, nonce: int) -> list[str]:
    """The 40 cards of a hand in dealing order, from (server_seed, client_seed, nonce) as published."""
    return shuffle_cards(CANONICAL_DECK, server_seed, client_seed, nonce)


def verify_deck(server_seed: bytes, commitment: str, client_seed: str, nonce: int, dealt: Sequence[str]) -> bool:
    """True if the seed matches the commitment and ``dealt`` is a prefix of the deck it determines."""
    if seed_commitment(server_seed) != commitment:
        return False
    deck = shuffle_deck(server_seed, client_seed, nonce)
    return list(dealt) == deck[: len(dealt)]
