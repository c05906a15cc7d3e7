"""A player's own record of the client seeds he set (``--my-seeds``, API.md v1.3): what the reference client keeps
and lets him download, ``{"format": "sevenhalf-my-seeds/1", "player": <his player id>, "seeds": [{"table",
"client_seed", "version"}]}``, each seed with the table version of the server's answer (``PUT /me/client-seed``
answers it for every table he sits at; sitting down, the seat's event)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from verifier.shape import Malformed, _check, parse_json

RECORD_FORMAT = "sevenhalf-my-seeds/1"
RECORD = {"format": str, "player": (str, int), "seeds": [{"table": int, "client_seed": str, "version": int}]}


def read_record(path: Path) -> dict[str, Any]:
    """The record in the file at ``path``; :class:`Malformed` when it is not one."""
    record = parse_json(path.read_bytes())
    _check(record, RECORD, "--my-seeds")
    if record["format"] != RECORD_FORMAT:
        raise Malformed(f"--my-seeds: not a record of client seeds ({str(record['format'])[:60]!r})")
    return dict(record)
