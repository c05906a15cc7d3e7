"""Which public keys to believe: the user's (``--public-key``), else those pinned on first use; key ids and
fingerprints."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from verifier.report import Report


def key_id_of(raw: bytes) -> str:
    """API.md: the first 16 hex of sha256 of the 32 raw bytes."""
    return hashlib.sha256(raw).hexdigest()[:16]


def is_key_id(name: str) -> bool:
    """Whether ``name`` has the form of a derived key id (16 lowercase hex), not of a name a casino configured."""
    return len(name) == 16 and all(c in "0123456789abcdef" for c in name)


def fingerprint(raw: bytes) -> str:
    """sha256 of the raw key, in hex groups of four: what to compare with a fingerprint published elsewhere."""
    digest = hashlib.sha256(raw).hexdigest()
    return " ".join(digest[i : i + 4] for i in range(0, len(digest), 4))


def parse_public_key(text: str) -> tuple[str | None, bytes]:
    """``[key_id:]base64`` (or 64 hex characters) of an Ed25519 public key."""
    key_id, _, encoded = text.rpartition(":") if ":" in text else ("", "", text)
    encoded = encoded.strip()
    try:
        raw = bytes.fromhex(encoded) if len(encoded) == 64 else base64.b64decode(encoded, validate=True)
    except ValueError:
        raise ValueError(f"--public-key {text!r} is neither base64 nor hex") from None
    if len(raw) != 32:
        raise ValueError(f"--public-key {text!r} is not 32 bytes")
    return key_id or None, raw


def default_pin_file() -> Path:
    """Where keys are pinned on first use: ``$XDG_CONFIG_HOME`` (else ~/.config)/sevenhalf/pinned-keys.json."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "sevenhalf" / "pinned-keys.json"


def trusted_keys(
    report: Report, offered: list[dict[str, Any]] | None, given: list[str], pin_file: Path | None, casino: str
) -> dict[str, bytes]:
    """The keys the checkpoints are checked with: the user's (``--public-key``), else those pinned for ``casino``
    at the first live use (``offered``: the keys of ``GET /fairness/public-key``, fingerprints printed). Offline
    (``offered`` None) nothing is pinned: a key that comes in the export is never believed (API.md v1.3). A key
    offered now that was not pinned is not believed: a casino that changes its key must be asked for it by another
    way."""
    offered_raw = {str(k["key_id"]): base64.b64decode(k["public_key"]) for k in offered or []}
    if given:
        keys: dict[str, bytes] = {}
        for text in given:
            key_id, raw = parse_public_key(text)
            names = list(dict.fromkeys([key_id_of(raw), *([key_id] if key_id else [])]))
            for name in names:
                keys[name] = raw
            print(f"--   key          yours: {', '.join(names)}, fingerprint {fingerprint(raw)}")
        return keys
    if pin_file is None:
        report.line(False, "key", "no --public-key and no pin file: nothing to check the signatures with")
        return {}
    pins: dict[str, dict[str, str]] = {}
    if pin_file.exists():
        pins = json.loads(pin_file.read_text())
    pinned = pins.get(casino)
    if pinned is None and offered is None:
        report.line(
            False,
            "key",
            f"no --public-key and no key pinned for {casino!r}: a key inside the export is never believed (pass the "
            "casino's key, or pin it from GET /fairness/public-key with a live check first)",
        )
        return {}
    if pinned is None:
        pins[casino] = {key_id: base64.b64encode(raw).decode() for key_id, raw in offered_raw.items()}
        pin_file.parent.mkdir(parents=True, exist_ok=True)
        pin_file.write_text(json.dumps(pins, indent=2, sort_keys=True))
        for key_id, raw in offered_raw.items():
            report.note(
                "key",
                f"pinned on first use for {casino!r}: {key_id}, fingerprint {fingerprint(raw)} "
                f"(compare it with one the casino publishes elsewhere; kept in {pin_file})",
            )
        return {**offered_raw, **{key_id_of(raw): raw for raw in offered_raw.values()}}
    keys = {key_id: base64.b64decode(encoded) for key_id, encoded in pinned.items()}
    keys |= {key_id_of(raw): raw for raw in list(keys.values())}
    for key_id, raw in offered_raw.items():
        if keys.get(key_id) != raw:
            report.note(
                "key",
                f"{key_id} (fingerprint {fingerprint(raw)}) is offered but not pinned for {casino!r}: not believed",
            )
    print(f"--   key          pinned for {casino!r}: {', '.join(sorted(keys))} (from {pin_file})")
    return keys
