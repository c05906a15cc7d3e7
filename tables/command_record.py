"""What a command's events record of it (their ``metadata``), and how a repeat of an idempotent command is known.

Every event of a command records who asked (``actor``, ``actor_username``), the request (``request_id``), the
version of the command's first event (``command_version``: the events of one command share it), the form of its
chain hash (``hash_form``) and, when given, the ``reason`` and the ``idempotency_key``. The first event also
records the command, its context (without its plain seeds: ``context_to_json``) and the command's
``fingerprint``. Verification replays commands from these (``tables.verify``), the rebuild of the read models
groups events by ``command_version`` (``tables.projection_rebuild``), and what of them may be shown is
``tables.public_metadata``.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from gamemath.chainhash import HASH_FORM
from rules import Context, context_to_json
from tables.errors import IdempotencyConflict
from tables.event_queries import events_of_idempotent_command
from tables.store import StoredEvent


def fingerprint(command_json: dict[str, Any]) -> str:
    """What tells two commands apart for idempotency: a digest of the command without its context."""
    body = {k: v for k, v in command_json.items() if k != "ctx"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def repeated_events(
    table_id: int, *, actor: str | None, key: str, command_json: dict[str, Any]
) -> list[StoredEvent] | None:
    """The events of the command that this one (of ``actor``, None: the system, with idempotency ``key``) repeats,
    or None; raises IdempotencyConflict if the key was used for a different command."""
    previous = events_of_idempotent_command(table_id, actor=actor, key=key)
    if previous is not None and previous[0].metadata.get("fingerprint") != fingerprint(command_json):
        raise IdempotencyConflict("this idempotency key was used for a different command", {"idempotency_key": key})
    return previous


def event_metadata(
    *,
    actor: str | None,
    actor_username: str | None,
    command_version: int,
    request_id: str | None,
    reason: str | None,
    idempotency_key: str | None,
) -> dict[str, Any]:
    """The metadata every event of a command records."""
    common: dict[str, Any] = {
        "actor": actor,
        "actor_username": actor_username,
        "command_version": command_version,
        "request_id": request_id,
        "hash_form": HASH_FORM,  # the chain hash covers what the event shows (gamemath.chainhash)
    }
    if reason:
        common["reason"] = reason
    if idempotency_key is not None:
        common["idempotency_key"] = idempotency_key
    return common


def first_event_metadata(common: dict[str, Any], command_json: dict[str, Any], context: Context) -> dict[str, Any]:
    """The metadata of a command's first event: ``common`` (:func:`event_metadata`) with the command, its context
    and its fingerprint. The context is recorded once, beside the command, without its plain seeds."""
    return {
        **common,
        "command": command_json,
        "context": context_to_json(context),
        "fingerprint": fingerprint(command_json),
    }
