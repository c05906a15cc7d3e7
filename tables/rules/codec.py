"""Plain-JSON forms of events and commands with stable type names: ``{"type": "CardDealt", ...}``.

``event_from_json(event_to_json(e)) == e`` and the same for commands. Decoding checks every field's type
and raises :class:`~tables.rules.errors.InvalidRequest` naming the field on malformed input.

The table state has a plain-JSON form too (``state_to_json`` / ``state_from_json``): snapshots and the cached
starting states of hands are stored as data decoded field by field: no stored row can run code (issue #12).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

from . import commands as _commands
from .commands import Command
from .config import TableConfig
from .errors import InvalidRequest, invalid
from .events import EVENT_TYPES, Event
from .ruleset import Rules, rules_from_dict
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
)
_EVENTS_BY_NAME: dict[str, type[Event]] = {cls.__name__: cls for cls in EVENT_TYPES}
_COMMANDS_BY_NAME: dict[str, type[Command]] = {cls.__name__: cls for cls in COMMAND_TYPES}

Decoder = Callable[[Any, str], Any]


def to_jsonable(value: Any) -> Any:
    """Dataclasses as dicts, tuples as lists, mappings as dicts; scalars unchanged."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (tuple, list)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    return value


def _scalar(kind: type) -> Decoder:
    def decode(value: Any, field: str) -> Any:
        if kind is int and (not isinstance(value, int) or isinstance(value, bool)):
            raise invalid(field, f"{field} must be an integer")
        if kind is not int and not isinstance(value, kind):
            raise invalid(field, f"{field} must be of type {kind.__name__}")
        return value

    return decode


def _word(kind: type[enum.StrEnum]) -> Decoder:
    """A word of the rules (a ``StrEnum``): its stored string, which must be one of the enum's values."""
    words = ", ".join(member.value for member in kind)

    def decode(value: Any, field: str) -> Any:
        try:
            return kind(value)
        except ValueError:
            raise invalid(field, f"{field} must be one of {words}") from None

    return decode


def _any(value: Any, field: str) -> Any:
    return value


_DECODERS: dict[Any, Decoder] = {}


def _decoder_for(hint: Any) -> Decoder:
    cached = _DECODERS.get(hint)
    if cached is not None:
        return cached
    decoder = _build_decoder(hint)
    _DECODERS[hint] = decoder
    return decoder


def _build_decoder(hint: Any) -> Decoder:
    if hint is Any:
        return _any
    if hint in (int, str, bool):
        return _scalar(hint)
    if isinstance(hint, type) and issubclass(hint, enum.StrEnum):
        return _word(hint)
    if hint is Rules:

        def decode_rules(value: Any, field: str) -> Rules:
            if not isinstance(value, Mapping):
                raise invalid(field, f"{field} must be an object of toggles")
            return rules_from_dict(value)

        return decode_rules
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return lambda value, field: _decode_dataclass(hint, value, field)
    if isinstance(hint, type) and issubclass(hint, tuple) and hasattr(hint, "_fields"):  # a NamedTuple
        return lambda value, field: _decode_dataclass(hint, value, field)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin is frozenset:
        member = _decoder_for(args[0])

        def decode_frozenset(value: Any, field: str) -> frozenset[Any]:
            if not isinstance(value, (list, tuple)):
                raise invalid(field, f"{field} must be a list")
            return frozenset(member(v, f"{field}[{i}]") for i, v in enumerate(value))

        return decode_frozenset
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):  # a fixed-length tuple
        members = [_decoder_for(a) for a in args]

        def decode_fixed_tuple(value: Any, field: str) -> tuple[Any, ...]:
            if not isinstance(value, (list, tuple)) or len(value) != len(members):
                raise invalid(field, f"{field} must be a list of {len(members)} items")
            return tuple(d(v, f"{field}[{i}]") for i, (d, v) in enumerate(zip(members, value, strict=True)))

        return decode_fixed_tuple
    if origin in (typing.Union, types.UnionType):
        inner = [a for a in args if a is not type(None)]
        inner_decoder = _decoder_for(inner[0])

        def decode_optional(value: Any, field: str) -> Any:
            return None if value is None else inner_decoder(value, field)

        return decode_optional
    if origin is tuple:
        item = _decoder_for(args[0])

        def decode_tuple(value: Any, field: str) -> tuple[Any, ...]:
            if not isinstance(value, (list, tuple)):
                raise invalid(field, f"{field} must be a list")
            return tuple(item(v, f"{field}[{i}]") for i, v in enumerate(value))

        return decode_tuple
    if origin in (Mapping, dict, typing.Mapping):
        value_decoder = _decoder_for(args[1])

        def decode_mapping(value: Any, field: str) -> dict[str, Any]:
            if not isinstance(value, Mapping):
                raise invalid(field, f"{field} must be an object")
            out: dict[str, Any] = {}
            for k, v in value.items():
                if not isinstance(k, str):
                    raise invalid(field, f"{field} keys must be strings")
                out[k] = value_decoder(v, f"{field}.{k}")
            return out

        return decode_mapping
    raise TypeError(f"no JSON decoder for {hint!r}")  # pragma: no cover - a programming error


_FIELD_DECODERS: dict[type, list[tuple[str, Decoder, bool]]] = {}


def _fields_of(cls: type) -> list[tuple[str, Decoder, bool]]:
    cached = _FIELD_DECODERS.get(cls)
    if cached is None:
        hints = typing.get_type_hints(cls, localns={"TableConfig": TableConfig, "Rules": Rules})
        cached = []
        if dataclasses.is_dataclass(cls):
            for f in dataclasses.fields(cls):
                required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                cached.append((f.name, _decoder_for(hints[f.name]), required))
        else:  # a NamedTuple
            defaults = getattr(cls, "_field_defaults", {})
            for name in getattr(cls, "_fields", ()):
                cached.append((name, _decoder_for(hints[name]), name not in defaults))
        _FIELD_DECODERS[cls] = cached
    return cached


def _decode_dataclass(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, Mapping):
        raise invalid(where or "body", f"{where or 'body'} must be an object")
    spec = _fields_of(cls)
    known = {name for name, _, _ in spec}
    for key in data:
        if key != "type" and key not in known:
            raise invalid(f"{where}.{key}" if where else key, f"unknown field {key}")
    kwargs: dict[str, Any] = {}
    for name, decoder, required in spec:
        path = f"{where}.{name}" if where else name
        if name not in data:
            if required:
                raise invalid(path, f"{path} is required")
            continue
        kwargs[name] = decoder(data[name], path)
    try:
        return cls(**kwargs)
    except TypeError as exc:  # pragma: no cover - guarded above
        raise InvalidRequest(str(exc), {"field": where or "body"}) from exc


def event_to_json(event: Event) -> dict[str, Any]:
    """An event as plain JSON with its stable ``type`` name."""
    data: dict[str, Any] = {"type": type(event).__name__}
    data.update(to_jsonable(event))
    return data


def event_from_json(data: Mapping[str, Any]) -> Event:
    """The event of :func:`event_to_json`'s output; malformed input raises ``InvalidRequest``."""
    cls = _EVENTS_BY_NAME.get(str(data.get("type"))) if isinstance(data, Mapping) else None
    if cls is None:
        raise invalid("type", f"unknown event type {data.get('type') if isinstance(data, Mapping) else None!r}")
    event: Event = _decode_dataclass(cls, data, "")
    return event


def command_to_json(command: Command) -> dict[str, Any]:
    """A command (with its context) as plain JSON with its stable ``type`` name."""
    data: dict[str, Any] = {"type": type(command).__name__}
    data.update(to_jsonable(command))
    return data


def command_from_json(data: Mapping[str, Any]) -> Command:
    """The command of :func:`command_to_json`'s output; malformed input raises ``InvalidRequest``."""
    cls = _COMMANDS_BY_NAME.get(str(data.get("type"))) if isinstance(data, Mapping) else None
    if cls is None:
        raise invalid("type", f"unknown command type {data.get('type') if isinstance(data, Mapping) else None!r}")
    command: Command = _decode_dataclass(cls, data, "")
    return command


def _plain(value: Any) -> Any:
    """Named tuples and dataclasses as dicts, tuples as lists, frozensets as sorted lists; scalars unchanged."""
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {name: _plain(getattr(value, name)) for name in value._fields}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
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
    state: TableState = _decode_dataclass(TableState, data, "")
    return state
