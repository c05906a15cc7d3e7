"""The ``replay`` check of a hand's verification (``tables.verify``): re-running the recorded commands through
``decide`` from the hand's starting state reproduces the recorded events exactly.

The seeds a command ran with are never recorded: they are put back from their reveals (a settled or abandoned
hand reveals its server seed), matched to the commitments the command could use.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from msgspec.structs import replace

from rules import (
    Context,
    DomainError,
    Event,
    TableState,
    decide,
    event_to_json,
    evolve,
    recorded_command,
    seed_commitment,
)
from tables import loader
from tables.hand_events import command_start
from tables.store import StoredEvent


def _revealed_seeds(events: Sequence[StoredEvent]) -> dict[str, str]:
    """Commitment -> seed of every seed revealed in ``events`` (the seeds the recorded commands ran with)."""
    revealed: dict[str, str] = {}
    for stored in events:
        if stored.type in ("HandSettled", "HandAbandoned"):
            seed = stored.data.get("server_seed")
            if isinstance(seed, str) and len(seed) == 64:
                try:
                    revealed[seed_commitment(bytes.fromhex(seed))] = seed
                except ValueError:
                    continue
    return revealed


def _with_revealed(context: Context, state: TableState, revealed: dict[str, str]) -> Context:
    """A recorded context with the seeds revealed since that it may use: those of the table's pledges when the
    command ran and of the seeds it offered (the core matches each to its commitment)."""
    offered = (*context.next_seeds, *((context.next_seed,) if context.next_seed is not None else ()))
    wanted = (*(pledge.commitment for pledge in state.pledges), *(seed.commitment for seed in offered))
    return replace(context, seeds=tuple(revealed[c] for c in wanted if c in revealed))


def _recorded_json(recorded: Sequence[StoredEvent]) -> list[dict[str, Any]]:
    """The recorded events as the core encodes them: decoded and encoded again, so fields added since (with their
    defaults) compare equal; as stored when they no longer decode."""
    try:
        return [event_to_json(loader.decode(s)) for s in recorded]
    except DomainError:
        return [{"type": s.type, **s.data} for s in recorded]


def _compare(
    first_version: int,
    command_type: Any,
    recorded: Sequence[StoredEvent],
    produced: Sequence[Event],
    *,
    last_command: bool,
) -> str | None:
    """What differs between the events one command recorded and those its replay produced, or None.

    The last command of the slice may have ended the hand and dealt the next one too, whose seed is revealed
    when that hand ends: only this hand's part (up to the next ``HandOpened``) is compared here, the next hand's
    part with the next hand."""
    produced_json = [event_to_json(e) for e in produced]
    recorded_json = _recorded_json(recorded)
    if (
        len(produced_json) < len(recorded_json)
        and last_command
        and recorded_json[len(produced_json)].get("type") == "HandOpened"
        and recorded_json[: len(produced_json)] == produced_json
    ):
        recorded = recorded[: len(produced_json)]
        recorded_json = recorded_json[: len(produced_json)]
    if len(produced_json) != len(recorded_json):
        return (
            f"command at event {first_version} ({command_type}): produced {len(produced_json)} "
            f"events on replay, {len(recorded_json)} were recorded"
        )
    for stored, mine, theirs in zip(recorded, produced_json, recorded_json, strict=True):
        if mine != theirs:
            fields = sorted(k for k in set(mine) | set(theirs) if mine.get(k) != theirs.get(k))
            return (
                f"event {stored.version} ({stored.type}) differs from the replay in {', '.join(fields)}: "
                f"recorded {[theirs.get(k) for k in fields]}, replayed {[mine.get(k) for k in fields]}"
            )
    return None


def check_replay(start: TableState, events: Sequence[StoredEvent]) -> str:
    """The ``replay`` check: "ok" if every recorded command of ``events``, replayed from ``start``, produces
    exactly the events it recorded; else the first command or event that differs, and how."""
    state = start
    batches: dict[int, list[StoredEvent]] = defaultdict(list)
    revealed = _revealed_seeds(events)
    for stored in events:
        batches[command_start(stored)].append(stored)
    for first_version, recorded in sorted(batches.items()):
        head = recorded[0]
        command_json = head.metadata.get("command")
        if command_json is None:
            return f"event {head.version}: no recorded command"
        try:
            command, context = recorded_command(command_json, head.metadata.get("context"))
            produced = decide(command, state, _with_revealed(context, state, revealed), replaying=True)
        except DomainError as exc:
            return f"command at event {first_version} ({command_json.get('type')}): refused on replay: {exc.message}"
        except Exception as exc:  # a malformed recorded command
            return f"command at event {first_version}: cannot be replayed ({exc.__class__.__name__}: {exc})"
        differs = _compare(
            first_version, command_json.get("type"), recorded, produced, last_command=first_version == max(batches)
        )
        if differs is not None:
            return differs
        for event in produced:
            state = evolve(state, event)
    return "ok"
