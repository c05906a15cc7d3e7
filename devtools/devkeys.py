"""Development keys for the fairness machinery, generated under ``.local/keys/`` (git-ignored) on first need.

``make run`` and ``make test`` call :func:`ensure_dev_keys` and pass the files to the processes they start
(``SEED_SEALING_KEY_FILE``, ``CHECKPOINT_SIGNING_KEY_FILE``). Production sets its own keys (docs/security.md);
these files are never used when DEBUG is off unless named explicitly.

A key file holds one key a line, ``<key id>:<base64 of 32 random bytes>``; the first line is the current key,
later lines are older keys kept to open (seeds) or verify (checkpoints) what they sealed or signed.
"""

from __future__ import annotations

import base64
import os
import secrets
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_KEYS = ROOT / ".local" / "keys"
SEALING_FILE = "seed-sealing.keys"
SIGNING_FILE = "checkpoint-signing.keys"


def new_key_line(prefix: str) -> str:
    """A fresh key line: ``<prefix>-<8 hex>:<base64 of 32 random bytes>``."""
    return f"{prefix}-{secrets.token_hex(4)}:{base64.b64encode(secrets.token_bytes(32)).decode()}"


def _ensure(path: Path, prefix: str) -> None:
    if path.exists():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(new_key_line(prefix) + "\n")
    try:
        os.link(tmp, path)  # atomic: two processes starting at once keep the same key
    except FileExistsError:
        pass
    finally:
        tmp.unlink()


def ensure_dev_keys(directory: Path = DEV_KEYS) -> dict[str, str]:
    """Create the development key files if missing; the environment variables that name them."""
    sealing, signing = directory / SEALING_FILE, directory / SIGNING_FILE
    _ensure(sealing, "dev-seal")
    _ensure(signing, "dev-sign")
    return {"SEED_SEALING_KEY_FILE": str(sealing), "CHECKPOINT_SIGNING_KEY_FILE": str(signing)}


def public_key_lines(signing: str) -> str:
    """``<key id>:<base64 of the public key>`` lines of the signing keys in ``signing`` (a key file's text or
    the inline setting): what the processes that verify but do not sign are given (CHECKPOINT_PUBLIC_KEYS)."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

    lines = []
    for raw in signing.replace(",", "\n").splitlines():
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        key_id, _, encoded = entry.partition(":")
        private = Ed25519PrivateKey.from_private_bytes(base64.b64decode(encoded))
        public = private.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
        lines.append(f"{key_id}:{base64.b64encode(public).decode()}")
    return ",".join(lines)
