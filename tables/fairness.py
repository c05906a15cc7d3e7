"""The keys of provable fairness, held outside the database (docs/security.md, docs/fairness.md).

- **Sealed seeds.** The server seeds of the hands a command may commit are drawn for every command
  (``next_seeds``) and, if the command commits one, stored in its ``SeedCommitted`` event sealed with AES-256-GCM
  under the current sealing key, the table and hand number as associated data. Only the command pipeline opens
  them (``unseal_all``), to hand the plain seeds to the rules core inside the command's context; the recorded
  command never holds them. A pledge not sealed by this server (``plain:``) is never opened.
- **Sealed face-down cards.** A face-down ``CardDealt`` is stored with ``card`` null and ``sealed_card``, the card
  sealed the same way (a fresh nonce each time, bound to the table, hand and deck index): nobody who reads the
  database, the admin or a chain hash can tell the card (docs/fairness.md). Loading a table opens it again.
  The cached states (snapshots, hands' starting states), which hold the face-down cards of a hand in play, are
  sealed the same way, bound to their row (``tables.snapshots.state_to_db``).
- **Signed checkpoints.** When a hand ends, ``f"{table_id}:{version}:{hash}"`` of the table's last event is
  signed with the current Ed25519 signing key; each checkpoint names its key by ``key_id``, the first 16 hex of
  sha256 of the 32 raw public-key bytes (API.md), so anyone holding the public key can tell which checkpoints it
  signed. Older keys stay in the key list so their checkpoints keep verifying after a rotation; a checkpoint
  signed before key ids were derived names its key by the configured name instead, and still verifies.

Keys come from the settings ``SEED_SEALING_KEYS`` / ``SEED_SEALING_KEY_FILE`` and ``CHECKPOINT_SIGNING_KEYS`` /
``CHECKPOINT_SIGNING_KEY_FILE``: ``<name>:<base64 of 32 bytes>`` entries, the first being the current key (a
sealing key's name travels with what it sealed; a signing key's name is only a label, its id is derived).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import logging
import re
import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature, InvalidTag
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from gamemath.release import GAME_ID, RULES_VERSION, rules_sha256
from rules import NextSeed, Pledge, TableState

log = logging.getLogger(__name__)

SEALED_VERSION = "v1"
_KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,40}")


@dataclass(frozen=True, slots=True)
class KeyRing:
    """Named 32-byte keys; ``current`` seals or signs, every key opens or verifies."""

    current: str
    keys: dict[str, bytes]


def _parse(text: str, setting: str) -> KeyRing:
    keys: dict[str, bytes] = {}
    order: list[str] = []
    for raw in re.split(r"[,\n]", text):
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        key_id, _, encoded = entry.partition(":")
        if not _KEY_ID.fullmatch(key_id):
            raise ImproperlyConfigured(f"{setting}: bad key id {key_id!r} (letters, digits, '_', '.', '-')")
        try:
            key = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise ImproperlyConfigured(f"{setting}: key {key_id} is not base64") from None
        if len(key) != 32:
            raise ImproperlyConfigured(f"{setting}: key {key_id} must be 32 bytes")
        keys[key_id] = key
        order.append(key_id)
    if not order:
        raise ImproperlyConfigured(f"{setting}: no key")
    return KeyRing(order[0], keys)


@functools.lru_cache(maxsize=8)
def _ring(inline: str, path: str, setting: str) -> KeyRing:
    if inline:
        return _parse(inline, setting)
    if path:
        try:
            return _parse(Path(path).read_text(), setting)
        except OSError as exc:
            raise ImproperlyConfigured(f"{setting}_FILE: cannot read {path}: {exc}") from None
    raise ImproperlyConfigured(f"set {setting} or {setting}_FILE (docs/security.md)")


def sealing_keys() -> KeyRing:
    """The seed-sealing key ring of the settings."""
    return _ring(settings.SEED_SEALING_KEYS, settings.SEED_SEALING_KEY_FILE, "SEED_SEALING_KEYS")


def signing_keys() -> KeyRing:
    """The checkpoint-signing key ring of the settings."""
    return _ring(settings.CHECKPOINT_SIGNING_KEYS, settings.CHECKPOINT_SIGNING_KEY_FILE, "CHECKPOINT_SIGNING_KEYS")


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


def seal_card(table_id: int, number: int, deck_index: int, card: str) -> str:
    """The ``sealed_card`` of a face-down card's stored ``CardDealt``: neither it nor any hash over it tells which
    of the 40 cards it is. Bound to the table, the hand and the deck position (associated data)."""
    return _seal_bytes(card.encode(), _card_associated_data(table_id, number, deck_index))


class CardUnavailable(Exception):
    """A stored face-down card cannot be opened (unknown key, tampered or moved ciphertext)."""


def unseal_card(table_id: int, number: int, deck_index: int, sealed_card: str) -> str:
    """The card code of a sealed face-down card; raises CardUnavailable (logged) if it cannot be opened."""
    try:
        return _open_bytes(sealed_card, _card_associated_data(table_id, number, deck_index)).decode()
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


# -- signed checkpoints --------------------------------------------------------------------------------------

#: what may follow a hand's closing event in the command that ended it and still belongs to its end, so its
#: checkpoint covers it (inline and by the signer alike): the players who leave with it, the bank passing on (after
#: a leaving banker, or an abandonment), the next hand's seed commitment; never anything of the next hand
END_OF_HAND = frozenset({"SeatLeft", "BankPassed", "SeedCommitted"})


def checkpoint_message(table_id: int, version: int, chain_hash: str) -> bytes:
    """What a checkpoint signs (API.md)."""
    return f"{table_id}:{version}:{chain_hash}".encode()


@functools.lru_cache(maxsize=16)
def _private(key: bytes) -> Ed25519PrivateKey:
    return Ed25519PrivateKey.from_private_bytes(key)


def _public_ring() -> KeyRing | None:
    """The checkpoint public keys of the settings (``CHECKPOINT_PUBLIC_KEYS`` / ``_FILE``), or None: then they
    are derived from the signing keys. Processes that do not sign (web, workers: the signer signs) hold only
    these."""
    inline, path = settings.CHECKPOINT_PUBLIC_KEYS, settings.CHECKPOINT_PUBLIC_KEY_FILE
    return _ring(inline, path, "CHECKPOINT_PUBLIC_KEYS") if inline or path else None


def key_id_of(public: bytes) -> str:
    """A checkpoint key's id (API.md): the first 16 hex of sha256 of its 32 raw public-key bytes."""
    return hashlib.sha256(public).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class PublicKey:
    """A checkpoint key as published: its derived ``key_id``, its raw public key, and the ``name`` it has in the
    settings (which checkpoints signed before key ids were derived name it by)."""

    key_id: str
    raw: bytes
    name: str

    @property
    def aliases(self) -> tuple[str, str]:
        """Every ``key_id`` a checkpoint signed by this key may carry: its id, and its name (older checkpoints)."""
        return (self.key_id, self.name)


def published_keys() -> list[PublicKey]:
    """Every checkpoint key, the current one first."""
    public = _public_ring()
    ring = public or signing_keys()
    ordered = [ring.current, *(k for k in ring.keys if k != ring.current)]
    raws = {name: ring.keys[name] if public is not None else public_of(ring.keys[name]) for name in ordered}
    return [PublicKey(key_id_of(raws[name]), raws[name], name) for name in ordered]


def public_key_bytes(key_id: str) -> bytes | None:
    """The raw 32-byte public key a checkpoint's ``key_id`` names: by its id, or by its configured name (a
    checkpoint signed before key ids were derived); None if no configured key has it."""
    keys = published_keys()
    found = next((k for k in keys if k.key_id == key_id), None) or next((k for k in keys if k.name == key_id), None)
    return found.raw if found is not None else None


def public_of(private: bytes) -> bytes:
    """The raw public key of a raw Ed25519 private key."""
    return _private(private).public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)


def public_keys() -> list[tuple[str, bytes]]:
    """Every signing key's (key id, raw public key), the current one first."""
    return [(key.key_id, key.raw) for key in published_keys()]


def sign_checkpoint(table_id: int, version: int, chain_hash: str) -> tuple[str, str]:
    """(key id, base64 signature) of the checkpoint, with the current signing key."""
    ring = signing_keys()
    private = ring.keys[ring.current]
    signature = _private(private).sign(checkpoint_message(table_id, version, chain_hash))
    return key_id_of(public_of(private)), base64.b64encode(signature).decode()


def checkpoint_signature_ok(table_id: int, version: int, chain_hash: str, key_id: str, signature: str) -> bool:
    """True if ``signature`` (base64) is a valid signature of the checkpoint by configured key ``key_id``."""
    raw = public_key_bytes(key_id)
    if raw is None:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(raw).verify(
            base64.b64decode(signature), checkpoint_message(table_id, version, chain_hash)
        )
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True
