"""Signed checkpoints (API.md "Signed checkpoints", docs/fairness.md): what a checkpoint signs and covers, the
signature with the current Ed25519 signing key, the public keys a player checks it with, and that check.

When a hand ends, ``f"{table_id}:{version}:{hash}:{forms}:{facts}"`` of the table's last event of its end is
signed (by the signer, ``tables.signer``, or inline; ``gamemath.chainhash.checkpoint_message``): since API v1.3
with the hash form of every event up to it (:func:`forms_through`) and the digest of the table's facts at that
version (:func:`table_facts`: its table card and its seats, with each client seed and when it was set), so a
verifier takes neither from the file that brings them. Each checkpoint names its key by ``key_id``, the first
16 hex of sha256 of the 32 raw public-key bytes (API.md), so anyone holding the public key can tell which
checkpoints it signed. Older keys stay in the key list so their checkpoints keep verifying after a rotation; a
checkpoint signed before key ids were derived names its key by the configured name instead, and still verifies.
The keys come from the settings (``tables.key_rings``).
"""

from __future__ import annotations

import base64
import binascii
import functools
import hashlib
from dataclasses import dataclass
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from django.db import connection

from gamemath.chainhash import add_forms, checkpoint_message, facts_sha256, forms_text, parse_forms
from rules import TableState
from tables.key_rings import checkpoint_public_keys, signing_keys

#: what may follow a hand's closing event in the command that ended it and still belongs to its end, so its
#: checkpoint covers it (inline and by the signer alike): the players who leave with it, the bank passing on (after
#: a leaving banker, or an abandonment), the next hand's seed commitment; never anything of the next hand
END_OF_HAND = frozenset({"SeatLeft", "BankPassed", "SeedCommitted"})


@dataclass(frozen=True, slots=True)
class Signed:
    """A checkpoint as signed and stored: what it covers (``version``, ``hash``, v1.3: ``hash_forms`` and the
    ``facts`` whose digest it signs), by which key and the signature."""

    table_id: int
    version: int
    hash: str
    hash_forms: str
    facts: dict[str, Any]
    key_id: str
    signature: str

    @property
    def facts_sha256(self) -> str:
        return facts_sha256(self.facts)


def table_facts(state: TableState) -> dict[str, Any]:
    """What a checkpoint signs of the table at its version (API.md v1.3): the table card and who sits where, with
    his client seed and the version at which it was set. A verifier derives every result from these and the
    signed events after them."""
    config = state.config
    return {
        "rules": config.rules.to_dict() if config is not None else None,
        "bank": str(config.bank) if config is not None else None,
        "min_bet": config.min_bet if config is not None else None,
        "max_bet": config.max_bet if config is not None else None,
        "fixed_stake": config.fixed_stake if config is not None else None,
        "seats": [
            {
                "seat": s.seat,
                "player": s.player_id,
                "client_seed": s.client_seed,
                "client_seed_set_at": s.client_seed_set_at,
            }
            for s in sorted(state.seats, key=lambda s: s.seat)
        ],
    }


# The latest earlier checkpoint that signs hash forms (``p``, none: NULLs) and the form runs of the events after it
# up to the new checkpoint (``r``): one statement, at least one row.
_FORMS_THROUGH = """
WITH prev AS (
    SELECT version, hash_forms FROM tables_checkpoint WHERE table_id = %(table)s AND version < %(version)s
    AND hash_forms IS NOT NULL ORDER BY version DESC LIMIT 1)
SELECT p.version, p.hash_forms, r.version, r.form FROM (SELECT 1) AS one
LEFT JOIN prev AS p ON true
LEFT JOIN LATERAL (
    SELECT version, form FROM (
        SELECT version, form, lag(form) OVER (ORDER BY version) AS before FROM (
            SELECT version,
                   CASE WHEN metadata->>'hash_form' IN ('2', '3') THEN (metadata->>'hash_form')::int ELSE 1 END AS form
            FROM tables_event WHERE stream_id = %(table)s AND version > COALESCE(p.version, 0)
            AND version <= %(version)s) AS events) AS runs
    WHERE before IS DISTINCT FROM form) AS r ON true
ORDER BY r.version
"""


def forms_through(table_id: int, version: int) -> str:
    """The hash form of every event of the table up to ``version``, as a checkpoint signs it
    (``gamemath.chainhash.forms_text``): the latest earlier checkpoint's, and the events after it (the first time
    a table is signed under v1.3, its whole stream, in one index scan). One statement (it runs after every hand)."""
    with connection.cursor() as cursor:
        cursor.execute(_FORMS_THROUGH, {"table": table_id, "version": version})
        rows = cursor.fetchall()
    since, forms = rows[0][0], rows[0][1]
    runs = parse_forms(forms) if since is not None else []
    return forms_text(add_forms(runs, ((int(v), int(f)) for _, _, v, f in rows if v is not None)))


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


def sign_checkpoint(table_id: int, version: int, chain_hash: str, state: TableState) -> Signed:
    """The checkpoint of ``version`` (``chain_hash``), the table being ``state`` there, signed with the current
    signing key: with the events' hash forms up to it and the digest of the table's facts (API.md v1.3)."""
    forms, facts = forms_through(table_id, version), table_facts(state)
    key_id, signature = sign_message(checkpoint_message(table_id, version, chain_hash, forms, facts_sha256(facts)))
    return Signed(table_id, version, chain_hash, forms, facts, key_id, signature)


def sign_message(message: bytes) -> tuple[str, str]:
    """(key id, base64 signature) of ``message`` with the current signing key."""
    ring = signing_keys()
    private = ring.keys[ring.current]
    return key_id_of(public_of(private)), base64.b64encode(_private(private).sign(message)).decode()


def checkpoint_signature_ok(
    table_id: int,
    version: int,
    chain_hash: str,
    key_id: str,
    signature: str,
    forms: str | None = None,
    facts: str | None = None,
) -> bool:
    """True if ``signature`` (base64) is a valid signature of the checkpoint by configured key ``key_id`` (with
    ``forms`` and the ``facts`` digest it signs since v1.3; None for one signed before)."""
    raw = public_key_bytes(key_id)
    if raw is None:
        return False
    try:
        Ed25519PublicKey.from_public_bytes(raw).verify(
            base64.b64decode(signature), checkpoint_message(table_id, version, chain_hash, forms or "", facts or "")
        )
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True
