"""Plain-JSON forms of events, commands, contexts and states, through msgspec's own conversion.

Events and commands are tagged records: their JSON carries the stable type name (``{"type": "CardDealt", ...}``),
and ``event_from_json(event_to_json(e)) == e`` (the same for commands and states). Decoding checks every field's
type (``msgspec.convert``; no stored row can run code, issue #12) and raises
:class:`~gamemath.errors.InvalidRequest` naming the field on malformed input. A stored event of an older
shape is upcast first (``UPCASTERS``): a new field never breaks old rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, Union

import msgspec
import msgspec.json

from gamemath.errors import InvalidRequest, invalid
from rules import commands as _commands
from rules.commands import Command, Context
from rules.events import EVENT_TYPES, Event
from rules.state import TableState

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
#: Any event, any command: msgspec picks the record by its ``type`` tag.
_ANY_EVENT: Any = Union[EVENT_TYPES]  # noqa: UP007 - a union built from a tuple of types
_ANY_COMMAND: Any = Union[COMMAND_TYPES]  # noqa: UP007

_AT = re.compile(r" - at `\$(?P<path>[^`]*)`$")
_NAMED = re.compile(r"field `(?P<name>[^`]+)`")


def _refused(error: msgspec.ValidationError, where: str) -> InvalidRequest:
    """msgspec's refusal as the core's error, naming the field (``ctx.now_ms``, ``amount``, ``seats[0].seat``)."""
    message = str(error)
    at = _AT.search(message)
    path = at["path"] if at else ""
    named = _NAMED.search(message[: at.start()] if at else message)  # a missing or an unknown field
    if named:
        path += "." + named["name"]
    field = (where + path.replace("[...]", "")).lstrip(".") or "body"
    return InvalidRequest(f"{field}: {message}", {"field": field})


def _plain(record: Any, order: Any = None) -> Any:
    """A record as plain JSON data: objects, lists (tuples and sets too) and scalars, through msgspec's encoder."""
    return msgspec.json.decode(msgspec.json.encode(record, order=order))


def _convert(data: Any, kind: Any, where: str = "") -> Any:
    try:
        return msgspec.convert(data, kind)
    except msgspec.ValidationError as error:
        raise _refused(error, where) from None


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
    data: dict[str, Any] = _plain(event)
    return data


def event_from_json(data: Mapping[str, Any]) -> Event:
    """The event of :func:`event_to_json`'s output (upcast first); malformed input raises ``InvalidRequest``."""
    if not isinstance(data, Mapping):
        raise invalid("body", "an event is an object")
    event: Event = _convert(upcast_event(data), _ANY_EVENT)
    return event


def command_to_json(command: Command) -> dict[str, Any]:
    """A command as plain JSON with its stable ``type`` name (its context is recorded beside it:
    :func:`context_to_json`)."""
    data: dict[str, Any] = _plain(command)
    return data


def command_from_json(data: Mapping[str, Any]) -> Command:
    """The command of :func:`command_to_json`'s output; malformed input raises ``InvalidRequest``."""
    command: Command = _convert(data, _ANY_COMMAND)
    return command


def context_to_json(context: Context) -> dict[str, Any]:
    """A command's context as it is recorded (in its first event's metadata): every plain seed left out (the
    sealed forms and commitments stay, so the command re-runs once its seeds are revealed). The one place a
    context loses its secrets."""
    data: dict[str, Any] = _plain(context)
    data["seed"], data["seeds"] = None, []
    for offered in (data["next_seed"], *data["next_seeds"]):
        if offered is not None:
            offered["seed"] = None
    return data


def context_from_json(data: Mapping[str, Any]) -> Context:
    """The context of :func:`context_to_json`'s output; malformed input raises ``InvalidRequest``."""
    context: Context = _convert(data, Context, "ctx")
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


def state_to_json(state: TableState) -> dict[str, Any]:
    """A table state as plain JSON (every field, nested states as objects, sets as sorted lists)."""
    data: dict[str, Any] = _plain(state, order="deterministic")
    return data


def state_from_json(data: Any) -> TableState:
    """The state of :func:`state_to_json`'s output, decoded and type-checked field by field (no code runs);
    anything else raises ``InvalidRequest``."""
    state: TableState = _convert(data, TableState)
    return state
