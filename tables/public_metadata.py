"""What of an event's metadata may be shown (the API's hand history, the admin, feeds, exports): the recorded
command without its context.

The context recorded beside a command holds the command's entropy, the wallet balances of every seated player and
the sealed seeds: leaving it out of everything shown is a security rule (docs/security.md), kept in this one
place; verification alone reads it (``tables.verify``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def public_command(metadata: Mapping[str, Any]) -> dict[str, Any] | None:
    """The command recorded in an event's ``metadata`` as it may be shown anywhere (the API's hand history, the
    admin, feeds, exports): without its context (see :func:`public_metadata`). None if the event records no
    command."""
    command = public_metadata(metadata).get("command")
    return command if isinstance(command, dict) else None


def public_metadata(metadata: Mapping[str, Any]) -> dict[str, Any]:
    """An event's metadata as it may be shown: without the recorded command's context, the one place it is
    left out. The context (recorded beside the command; inside it, as ``ctx``, in events recorded before) holds
    the command's entropy, the wallet balances of every seated player and the sealed seeds, so hiding it is a
    security rule (docs/security.md), not formatting; verification alone reads it (``tables.verify``)."""
    shown = {key: value for key, value in metadata.items() if key != "context"}
    command = shown.get("command")
    if isinstance(command, Mapping):
        shown["command"] = {key: value for key, value in command.items() if key != "ctx"}
    elif "command" in shown:
        shown["command"] = None
    return shown
