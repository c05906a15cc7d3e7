"""The secrets of provable fairness at rest, sealed outside the database's reach (docs/security.md,
docs/fairness.md), and which rules deal.

- **Sealed seeds.** The server seeds of the hands a command may commit are drawn for every command
  (``next_seeds``) and, if the command commits one, stored in its ``SeedCommitted`` event sealed with AES-256-GCM
  under the current sealing key, the table and hand number as associated data. Only the command pipeline opens
  them (``unseal_all``), to hand the plain seeds to the rules core inside the command's context; the recorded
  command never holds them. A pledge not sealed by this server (``plain:``) is never opened.
- **Sealed face-down cards.** A face-down ``CardDealt`` is stored with ``card`` null and ``sealed_card``, the card
  sealed the same way (a fresh nonce each time, bound to the table, hand and deck index, the code padded to one
  length): nobody who reads the database, the admin or a chain hash can tell the card (docs/fairness.md).
  Loading a table opens it again.
  The cached states (snapshots, hands' starting states), which hold the face-down cards of a hand in play, are
  sealed the same way, bound to their row (``tables.snapshots.state_to_db``).
- **Which rules deal.** Each hand records the release and digest of the rules core that dealt it.

The sealing keys come from the settings (``tables.key_rings``); the signed checkpoints, the other half of
provable fairness, are ``tables.checkpoint_signing``.
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import logging
import secrets
from collections.abc import Iterable

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from gamemath.cards import CANONICAL_DECK
from gamemath.release import GAME_ID, RULES_VERSION, rules_sha256
from rules import NextSeed, Pledge, TableState
from tables.key_rings import sealing_keys

log = logging.getLogger(__name__)

SEALED_VERSION = "v1"


# -- sealed seeds ------------------------------------------------------------------------------------------


def _associated_data(table_id: int, number: int) -> bytes:
    return f"casino-seed:{table_id}:{number}".encode()


@functools.lru_cache(maxsize=16)
def _aead(key: bytes) -> AESGCM:
    return AESGCM(key)


def seal(table_id: int, number: int, seed_hex: str) -> str:
    """``v1:<key id>:<base64 nonce>:<base64 ciphertext>`` of the seed of hand ``number`` at ``table_id``."""
    ring = sealing_keys()
    nonce = secrets.token_bytes(12)
    sealed = _aead(ring.keys[ring.current]).encrypt(nonce, bytes.fromhex(seed_hex), _associated_data(table_id, number))
    return ":".join((SEALED_VERSION, ring.current, base64.b64encode(nonce).decode(), base64.b64encode(sealed).decode()))


def unseal(table_id: int, pledge: Pledge | None) -> str | None:
    """The plain seed (hex) of a sealed pledge, or None if there is none or it cannot be opened (unknown or
    lost key, tampered ciphertext, another table's or hand's seed): the core then abandons the hand."""
    if pledge is None or not pledge.sealed.startswith(SEALED_VERSION + ":"):
        return None
    try:
        _, key_id, nonce, sealed = pledge.sealed.split(":")
        key = sealing_keys().keys.get(key_id)
        if key is None:
            log.error(
                "table %s hand %s: the seed is sealed with key %r, which is not configured",
                table_id,
                pledge.number,
                key_id,
            )
            return None
        plain = _aead(key).decrypt(
            base64.b64decode(nonce), base64.b64decode(sealed), _associated_data(table_id, pledge.number)
        )
    except (ValueError, binascii.Error, InvalidTag):
        log.error("table %s hand %s: the sealed seed cannot be opened", table_id, pledge.number)
        return None
    return plain.hex()


def unseal_all(table_id: int, pledges: Iterable[Pledge]) -> tuple[str, ...]:
    """The plain seeds of every committed, unrevealed pledge that opens (a command needs at most the seed of the
    hand in play and of the next one; the core matches each to its commitment)."""
    return tuple(seed for seed in (unseal(table_id, pledge) for pledge in pledges) if seed is not None)


def _seal_bytes(plain: bytes, associated: bytes) -> str:
    """``v1:<key id>:<base64 nonce>:<base64 ciphertext>`` of ``plain`` under the current sealing key, a fresh
    random nonce each time (the same plain text never looks the same twice)."""
    ring = sealing_keys()
    nonce = secrets.token_bytes(12)
    sealed = _aead(ring.keys[ring.current]).encrypt(nonce, plain, associated)
    return ":".join((SEALED_VERSION, ring.current, base64.b64encode(nonce).decode(), base64.b64encode(sealed).decode()))


def _open_bytes(sealed_text: str, associated: bytes) -> bytes:
    """The plain bytes of :func:`_seal_bytes`; raises ValueError (not sealed here: unknown key, another row's
    associated data, tampered)."""
    try:
        version, key_id, nonce, sealed = sealed_text.split(":")
        key = sealing_keys().keys.get(key_id)
        if version != SEALED_VERSION or key is None:
            raise ValueError(f"unknown sealing key {key_id!r}")
        return _aead(key).decrypt(base64.b64decode(nonce), base64.b64decode(sealed), associated)
    except (binascii.Error, InvalidTag) as exc:
        raise ValueError("does not open") from exc


def _card_associated_data(table_id: int, number: int, deck_index: int) -> bytes:
    return f"casino-card:{table_id}:{number}:{deck_index}".encode()


#: Every sealed card's plain text is this long: the code padded with spaces (``" 1O"``, ``"10B"``), so every
#: ``sealed_card`` has the same length. Cards sealed before (issue #42) hold the bare code and still open; their
#: length told a picture (3 characters) from a pip (2) to anyone reading the events, without the key.
CARD_PLAIN_LENGTH = max(len(code) for code in CANONICAL_DECK)


def seal_card(table_id: int, number: int, deck_index: int, card: str) -> str:
    """The ``sealed_card`` of a face-down card's stored ``CardDealt``: neither it, its length nor any hash over it
    tells which of the 40 cards it is. Bound to the table, the hand and the deck position (associated data)."""
    plain = card.rjust(CARD_PLAIN_LENGTH).encode()
    return _seal_bytes(plain, _card_associated_data(table_id, number, deck_index))


class CardUnavailable(Exception):
    """A stored face-down card cannot be opened (unknown key, tampered or moved ciphertext)."""


def unseal_card(table_id: int, number: int, deck_index: int, sealed_card: str) -> str:
    """The card code of a sealed face-down card; raises CardUnavailable (logged) if it cannot be opened."""
    try:
        plain = _open_bytes(sealed_card, _card_associated_data(table_id, number, deck_index))
        return plain.decode().lstrip(" ")  # padded since issue #42; the bare code before
    except ValueError as exc:
        log.error(
            "table %s hand %s: the face-down card at deck index %s cannot be opened", table_id, number, deck_index
        )
        raise CardUnavailable(f"table {table_id} hand {number}: sealed card {deck_index} cannot be opened") from exc


class NotSealedHere(Exception):
    """A sealed blob that this server's keys do not open for the row it claims to be."""


def seal_blob(binding: str, plain: bytes) -> str:
    """The sealed form of a cached state (snapshots), bound to ``binding`` (which row it is for)."""
    return _seal_bytes(plain, f"casino-state:{binding}".encode())


def open_blob(binding: str, sealed_text: str) -> bytes:
    """The plain bytes of :func:`seal_blob`; raises NotSealedHere (unknown key, another row's, tampered)."""
    try:
        return _open_bytes(sealed_text, f"casino-state:{binding}".encode())
    except ValueError as exc:
        raise NotSealedHere(str(exc)) from exc


def draw_next_seed(table_id: int, number: int) -> NextSeed:
    """A fresh server seed for hand ``number``: its commitment, its sealed form and its plain text."""
    seed = secrets.token_bytes(32)
    return NextSeed(
        commitment=hashlib.sha256(seed).hexdigest(),
        sealed=seal(table_id, number, seed.hex()),
        seed=seed.hex(),
        number=number,
    )


def draw_next_seeds(table_id: int, state: TableState) -> tuple[NextSeed, ...]:
    """A fresh seed for each hand a command on ``state`` may commit and that has none yet (contract v1.2: table
    creation commits hands 1 and 2, a hand's opening the hand after next): usually one, the hand three ahead of
    the last one opened."""
    first = state.hands_opened + 1
    committed = {pledge.number for pledge in state.pledges}
    return tuple(draw_next_seed(table_id, n) for n in range(first, first + 3) if n not in committed)


# -- which rules deal -------------------------------------------------------------------------------------------


@functools.cache
def rules_release() -> tuple[str, str]:
    """(released version, sha256) of the rules core this process deals with (``gamemath.release``): what each
    hand it opens records. Computed once per process."""
    return RULES_VERSION, rules_sha256()


def game_of(rules_version: str, rules_digest: str) -> dict[str, str | None]:
    """A hand's ``game`` (API.md "Hand history") from what it recorded when it opened: null version and digest
    for a hand opened before hands recorded them (its row holds empty strings: unknown, never guessed)."""
    return {"id": GAME_ID, "version": rules_version or None, "rules_sha256": rules_digest or None}
