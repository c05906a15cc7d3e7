"""The provably fair shuffle of API.md: commitment, HMAC-SHA256 stream, rejection sampling, Fisher-Yates."""

from __future__ import annotations

import hashlib
import hmac
import struct

import pytest

from rules import CANONICAL_DECK, seed_commitment, shuffle_deck, verify_deck

# The published test vector (also in docs/rules-engine.md).
VECTOR_SEED = bytes.fromhex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f")
VECTOR_CLIENT_SEED = "alice:bob"
VECTOR_NONCE = 1
VECTOR_COMMITMENT = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
# fmt: off
VECTOR_DECK = [
    "10B", "1O", "4C", "4O", "10C", "12B", "3O", "7E", "1C", "5B",
    "4E", "11O", "5E", "6E", "5O", "6C", "1B", "6O", "3C", "2B",
    "11E", "2O", "2C", "7B", "6B", "12O", "2E", "5C", "3B", "10E",
    "7C", "4B", "3E", "7O", "12E", "1E", "11B", "12C", "11C", "10O",
]
# fmt: on


def reference_shuffle(server_seed: bytes, client_seed: str, nonce: int) -> list[str]:
    """API.md's pseudo-code, transcribed line by line (independent of the engine's implementation)."""
    deck = [f"{rank}{suit}" for suit in "OCEB" for rank in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
    pending: list[int] = []
    block = 0

    def next_u32() -> int:
        nonlocal block
        if not pending:
            digest = hmac.new(server_seed, f"{client_seed}:{nonce}:{block}".encode(), hashlib.sha256).digest()
            pending.extend(struct.unpack(">8I", digest))
            block += 1
        return pending.pop(0)

    for i in range(len(deck) - 1, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        x = next_u32()
        while x >= limit:
            x = next_u32()
        j = x % n
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_canonical_order_is_suits_o_c_e_b_then_ranks() -> None:
    assert CANONICAL_DECK[:10] == ("1O", "2O", "3O", "4O", "5O", "6O", "7O", "10O", "11O", "12O")
    assert CANONICAL_DECK[-1] == "12B"
    assert len(set(CANONICAL_DECK)) == 40


def test_published_vector_commitment() -> None:
    assert seed_commitment(VECTOR_SEED) == VECTOR_COMMITMENT
    assert seed_commitment(VECTOR_SEED) == hashlib.sha256(VECTOR_SEED).hexdigest()


def test_published_vector_deck() -> None:
    assert shuffle_deck(VECTOR_SEED, VECTOR_CLIENT_SEED, VECTOR_NONCE) == VECTOR_DECK


@pytest.mark.parametrize("nonce", [1, 2, 7, 1000])
@pytest.mark.parametrize("client_seed", ["", "alice", "u1:u2:u3", "ñandú"])
def test_engine_shuffle_matches_the_published_pseudo_code(client_seed: str, nonce: int) -> None:
    seed = hashlib.sha256(f"{client_seed}/{nonce}".encode()).digest()
    assert shuffle_deck(seed, client_seed, nonce) == reference_shuffle(seed, client_seed, nonce)


def test_a_shuffle_is_a_permutation_of_the_pack_and_depends_on_every_input() -> None:
    deck = shuffle_deck(VECTOR_SEED, VECTOR_CLIENT_SEED, VECTOR_NONCE)
    assert sorted(deck) == sorted(CANONICAL_DECK)
    assert shuffle_deck(VECTOR_SEED, VECTOR_CLIENT_SEED, 2) != deck
    assert shuffle_deck(VECTOR_SEED, "alice:carol", VECTOR_NONCE) != deck
    assert shuffle_deck(bytes(32), VECTOR_CLIENT_SEED, VECTOR_NONCE) != deck


def test_verify_deck_accepts_the_dealt_prefix_and_rejects_a_wrong_seed_or_card() -> None:
    dealt = VECTOR_DECK[:9]
    assert verify_deck(VECTOR_SEED, VECTOR_COMMITMENT, VECTOR_CLIENT_SEED, VECTOR_NONCE, dealt)
    assert not verify_deck(bytes(32), VECTOR_COMMITMENT, VECTOR_CLIENT_SEED, VECTOR_NONCE, dealt)
    assert not verify_deck(VECTOR_SEED, VECTOR_COMMITMENT, VECTOR_CLIENT_SEED, VECTOR_NONCE, ["1O", *dealt[1:]])


# --- rejection sampling, tested directly (a real seed rejects a value with odds below 1e-8 per draw) -------------


def test_uniform_below_drops_values_at_or_above_the_largest_multiple_of_n() -> None:
    from gamemath.shuffle import uniform_below

    n = 3
    limit = 2**32 - (2**32 % n)  # 4294967295: the only rejected value for n = 3 is 2**32 - 1
    stream = iter([limit, 2**32 - 1, limit - 1, 5])
    assert uniform_below(stream, n) == (limit - 1) % n
    assert next(stream) == 5  # exactly the rejected values and the accepted one were consumed


def test_uniform_below_keeps_values_just_under_the_limit_and_maps_them_by_modulo() -> None:
    from gamemath.shuffle import uniform_below

    for n in (1, 2, 7, 40):
        limit = 2**32 - (2**32 % n)
        assert uniform_below(iter([limit - 1]), n) == (limit - 1) % n
        assert uniform_below(iter([0]), n) == 0


def test_a_shuffle_with_rejected_values_matches_the_published_loop() -> None:
    """Fisher-Yates over a stream that contains rejected values gives the pseudo-code's deck, which skips them."""
    from gamemath.shuffle import shuffle_cards

    values = []
    for i in range(39, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        if n in (40, 33, 7, 3):  # every n that is not a power of two has rejected values: put one before the draw
            values.append(limit + (2**32 - 1 - limit) // 2)
        values.append(i * 2654435761 % limit)
    # the published loop, by hand: skip a value >= limit, else j = x % n
    expected = list(CANONICAL_DECK)
    pending = list(values)
    for i in range(39, 0, -1):
        n = i + 1
        limit = 2**32 - (2**32 % n)
        x = pending.pop(0)
        while x >= limit:
            x = pending.pop(0)
        j = x % n
        expected[i], expected[j] = expected[j], expected[i]
    assert not pending
    assert len(values) == 39 + 4  # four values were rejected on the way
    assert shuffle_cards(CANONICAL_DECK, iter(values)) == expected


def test_the_stream_is_hmac_sha256_of_prefix_colon_block() -> None:
    from itertools import islice

    from gamemath.shuffle import u32_stream

    first_two_blocks = list(islice(u32_stream(VECTOR_SEED, "alice:bob:1"), 16))
    expected = []
    for block in range(2):
        digest = hmac.new(VECTOR_SEED, f"alice:bob:1:{block}".encode(), hashlib.sha256).digest()
        expected.extend(struct.unpack(">8I", digest))
    assert first_two_blocks == expected
