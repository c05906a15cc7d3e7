"""The keys of provable fairness as the settings give them, held outside the database (docs/security.md).

``SEED_SEALING_KEYS`` / ``SEED_SEALING_KEY_FILE`` (sealing: ``tables.fairness``), ``CHECKPOINT_SIGNING_KEYS`` /
``CHECKPOINT_SIGNING_KEY_FILE`` and ``CHECKPOINT_PUBLIC_KEYS`` / ``CHECKPOINT_PUBLIC_KEY_FILE`` (signed
checkpoints: ``tables.checkpoint_signing``): ``<name>:<base64 of 32 bytes>`` entries, separated by commas or new
lines, the first being the current key (a sealing key's name travels with what it sealed; a signing key's name is
only a label, its id is derived). Each ring is read once per process and settings.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

_KEY_ID = re.compile(r"[A-Za-z0-9_.-]{1,40}")


@dataclass(frozen=True, slots=True)
class KeyRing:
    """Named 32-byte keys; ``current`` seals or signs, every key opens or verifies."""

    current: str
    keys: dict[str, bytes]


def _parse(text: str, setting: str) -> KeyRing:
    """The ring of a setting's text; raises ImproperlyConfigured for a bad id, a key that is not 32 bytes of
    base64, or no key at all."""
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
    """The ring of a setting: its inline value, else the file its ``_FILE`` names (read once)."""
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


def checkpoint_public_keys() -> KeyRing | None:
    """The checkpoint public keys of the settings (``CHECKPOINT_PUBLIC_KEYS`` / ``_FILE``), or None: then they
    are derived from the signing keys. Processes that do not sign (web, workers: the signer signs) hold only
    these."""
    inline, path = settings.CHECKPOINT_PUBLIC_KEYS, settings.CHECKPOINT_PUBLIC_KEY_FILE
    return _ring(inline, path, "CHECKPOINT_PUBLIC_KEYS") if inline or path else None
