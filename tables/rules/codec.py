"""Plain-JSON forms of events and commands with stable type names: ``{"type": "CardDealt", ...}``.

``event_from_json(event_to_json(e)) == e`` and the same for commands. Decoding (``decoding``) checks every
field's type and raises :class:`~tables.rules.errors.InvalidRequest` naming the field on malformed input.
A stored event of an older shape is upcast first (``UPCASTERS``): a new field never breaks old rows.

The table state has a plain-JSON form too (``state_to_json`` / ``state_from_json``): snapshots and the cached
starting states of hands are stored as data decoded field by field: no stored row can run code (issue #12).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from . import commands as _commands
from .commands import Command, Context
from .decoding import Decoder, record_decoder
from .errors import invalid
from .events import EVENT_TYPES, Event
from .state import TableState

COMMAND_TYPES: tuple[type[Command], ...] = (
    _commands.CreateTable,
    _commands.SitDown,
    _commands.LeaveSeat,
    _commands.SitOut,
    _commands.SitIn,
    _commands.SetClientSeed,
    _commands.PlaceBet,
    _commands.Hit,
    _commands.HitFaceDown,
    _commands.Stand,
    _commands.Raise,
    _commands.Split,
    _commands.Assign,
    _commands.SetStake,
    _commands.RetireBank,
    _commands.Timeout,
    _commands.ReleaseIdleSeat,
)
#: The decoder of each type name (built once, from the classes' type hints).
_EVENT_DECODERS: dict[str, Decoder] = {cls.__name__: record_decoder(cls) for cls in EVENT_TYPES}
_COMMAND_DECODERS: dict[str, Decoder] = {cls.__name__: record_decoder(cls) for cls in COMMAND_TYPES}
_STATE_DECODER: Decoder = record_decoder(TableState)
_CONTEXT_DECODER: Decoder = record_decoder(Context)


def to_jsonable(value: Any) -> Any:
    """Records (Structs, dataclasses) as dicts (their constructor's fields: a field derived in ``__post_init__``
    is not stored), tuples as lists, mappings as dicts; scalars unchanged."""
    if isinstance(value, msgspec.Struct):
        return {name: to_jsonable(getattr(value, name)) for name in value.__struct_fields__}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
    if isinstance(value, (tuple, list)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


#: Upcasting: how a stored event of an older shape becomes today's, by type name, so that a new field never breaks
#: old rows. Each step takes the stored object and returns it with what a later version added. A field added
#: with a default needs a step only to say so here (the decoder would use the default anyway); a field whose
#: value must be worked out from the old row, or a renamed one, needs one. Steps never remove what they do not
#: know: an unknown field still fails, as does an unknown type.
Upcaster = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def added(field: str, value: Any) -> Upcaster:
    """An upcasting step: ``field`` was added later; rows written before it take ``value``."""

    def upcast(data: Mapping[str, Any]) -> Mapping[str, Any]:
        return data if field in data else {**data, field: value}

    return upcast


UPCASTERS: dict[str, tuple[Upcaster, ...]] = {
    # the bust, 7.5 and pair-of-sevens events carry the cards they show since 52d9464 (older rows show none)
    "HandBusted": (added("cards", []),),
    "HandMadeSevenHalf": (added("cards", []),),
    "HandMadePairOfSevens": (added("cards", []),),
    # HandAbandoned returns reserves since seeds are committed ahead (acffe6a): no stake was ever held before
    "HandAbandoned": (added("payouts", {}),),
}


def upcast_event(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A stored event object in today's shape (``UPCASTERS`` of its type, in order)."""
    for step in UPCASTERS.get(str(data.get("type")), ()):
        data = step(data)
    return data


def event_to_json(event: Event) -> dict[str, Any]:
    """An event as plain JSON with its stable ``type`` name."""
    data: dict[str, Any] = {"type": type(event).__name__}
    data.update(to_jsonable(event))
    return data


def event_from_json(data: Mapping[str, Any]) -> Event:
    """The event of :func:`event_to_json`'s output; malformed input raises ``InvalidRequest``."""
    decode = _EVENT_DECODERS.get(str(data.get("type"))) if isinstance(data, Mapping) else None
    if decode is None:
        raise invalid("type", f"unknown event type {data.get('type') if isinstance(data, Mapping) else None!r}")
    event: Event = decode(upcast_event(data), "")
    return event


def command_to_json(command: Command) -> dict[str, Any]:
    """A command as plain JSON with its stable ``type`` name (its context is recorded beside it:
    :func:`context_to_json`)."""
    data: dict[str, Any] = {"type": type(command).__name__}
    data.update(to_jsonable(command))
    return data


def command_from_json(data: Mapping[str, Any]) -> Command:
    """The command of :func:`command_to_json`'s output; malformed input raises ``InvalidRequest``."""
    decode = _COMMAND_DECODERS.get(str(data.get("type"))) if isinstance(data, Mapping) else None
    if decode is None:
        raise invalid("type", f"unknown command type {data.get('type') if isinstance(data, Mapping) else None!r}")
    command: Command = decode(data, "")
    return command


def context_to_json(context: Context) -> dict[str, Any]:
    """A command's context as it is recorded (in its first event's metadata): every plain seed left out (the
    sealed forms and commitments stay, so the command re-runs once its seeds are revealed). The one place a
    context loses its secrets."""
    data: dict[str, Any] = to_jsonable(context)
    data["seed"], data["seeds"] = None, []
    for offered in (data["next_seed"], *data["next_seeds"]):
        if offered is not None:
            offered["seed"] = None
    return data


def context_from_json(data: Mapping[str, Any]) -> Context:
    """The context of :func:`context_to_json`'s output; malformed input raises ``InvalidRequest``."""
    context: Context = _CONTEXT_DECODER(data, "ctx")
    return context


def recorded_command(
    command_json: Mapping[str, Any], context_json: Mapping[str, Any] | None
) -> tuple[Command, Context]:
    """A recorded command and its recorded context, as the pipeline writes them (``command`` and ``context`` in
    the first event's metadata). A command recorded before the context went beside it holds it as ``ctx``."""
    if context_json is None and isinstance(command_json, Mapping) and "ctx" in command_json:
        context_json = command_json["ctx"]
        command_json = {key: value for key, value in command_json.items() if key != "ctx"}
    if not isinstance(context_json, Mapping):
        raise invalid("ctx", "the recorded command has no context")
    return command_from_json(command_json), context_from_json(context_json)


def _plain(value: Any) -> Any:
    """Records (Structs, dataclasses) as dicts, tuples as lists, frozensets as sorted lists; scalars unchanged."""
    if isinstance(value, msgspec.Struct):
        return {name: _plain(getattr(value, name)) for name in value.__struct_fields__}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
    if isinstance(value, (frozenset, set)):
        return sorted((_plain(v) for v in value), key=repr)
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def state_to_json(state: TableState) -> dict[str, Any]:
    """A table state as plain JSON (every field, nested states as objects)."""
    data: dict[str, Any] = _plain(state)
    return data


def state_from_json(data: Any) -> TableState:
    """The state of :func:`state_to_json`'s output, decoded and type-checked field by field (no code runs);
    anything else raises ``InvalidRequest``."""
    state: TableState = _STATE_DECODER(data, "")
    return state
