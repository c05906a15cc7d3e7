"""Signed checkpoints (API.md "Signed checkpoints", docs/fairness.md): what a checkpoint signs and covers, the
signature with the current Ed25519 signing key, the public keys a player checks it with, and that check.

When a hand ends, ``f"{table_id}:{version}:{hash}"`` of the table's last event of its end is signed (by the
signer, ``tables.signer``, or inline); each checkpoint names its key by ``key_id``, the first 16 hex of sha256 of
the 32 raw public-key bytes (API.md), so anyone holding the public key can tell which checkpoints it signed. Older
keys stay in the key list so their checkpoints keep verifying after a rotation; a checkpoint signed before key ids
were derived names its key by the configured name instead, and still verifies. The keys come from the settings
(``tables.key_rings``).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
from dataclasses import dataclass

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from tables.key_rings import checkpoint_public_keys, signing_keys

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
    public = checkpoint_public_keys()
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
