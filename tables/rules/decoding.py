"""Type-directed decoding of plain JSON into the core's records (events, commands, states), field by field.

``record_decoder(cls)`` reads the type hints of a record (a ``msgspec.Struct`` or a dataclass) once and returns
a function that checks every field's type and builds the record; malformed input raises
:class:`~tables.rules.errors.InvalidRequest` naming the field (``"ctx.now_ms"``, ``"amount"``). No stored row
can run code: only these records, scalars, the rules' words (``StrEnum``s), tuples, frozensets and mappings
are built.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

import msgspec

from .config import TableConfig
from .errors import InvalidRequest, invalid
from .ruleset import Rules, rules_from_dict

#: ``decoder(value, field)``: the decoded value, or ``InvalidRequest`` naming ``field``.
Decoder = Callable[[Any, str], Any]


def record_decoder(cls: type) -> Decoder:
    """The decoder of a record ``cls`` (a Struct or a dataclass: an object with exactly its fields)."""
    hints = typing.get_type_hints(cls, localns={"TableConfig": TableConfig, "Rules": Rules})
    fields: list[tuple[str, Decoder, bool]] = []
    if issubclass(cls, msgspec.Struct):
        for info in msgspec.structs.fields(cls):
            fields.append((info.name, decoder_for(hints[info.name]), info.required))
    elif dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            if not f.init:  # derived in __post_init__, never stored
                continue
            required = f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
            fields.append((f.name, decoder_for(hints[f.name]), required))
    else:  # pragma: no cover - a programming error
        raise TypeError(f"{cls!r} is not a record")
    known = frozenset(name for name, _, _ in fields)

    def decode_record(data: Any, where: str) -> Any:
        if not isinstance(data, Mapping):
            raise invalid(where or "body", f"{where or 'body'} must be an object")
        for key in data:
            if key != "type" and key not in known:
                raise invalid(f"{where}.{key}" if where else key, f"unknown field {key}")
        values: dict[str, Any] = {}
        for name, decoder, required in fields:
            path = f"{where}.{name}" if where else name
            if name in data:
                values[name] = decoder(data[name], path)
            elif required:
                raise invalid(path, f"{path} is required")
        try:
            return cls(**values)
        except TypeError as exc:  # pragma: no cover - guarded above
            raise InvalidRequest(str(exc), {"field": where or "body"}) from exc

    return decode_record


def decoder_for(hint: Any) -> Decoder:
    """The decoder of a value of type ``hint``."""
    if hint is Any:
        return _any
    if hint in (int, str, bool):
        return _scalar(hint)
    if isinstance(hint, type) and issubclass(hint, enum.StrEnum):
        return _word(hint)
    if hint is Rules:
        return _rules
    if isinstance(hint, type) and (issubclass(hint, msgspec.Struct) or dataclasses.is_dataclass(hint)):
        return record_decoder(hint)
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        inner = decoder_for(next(a for a in args if a is not type(None)))
        return lambda value, field: None if value is None else inner(value, field)
    if origin is frozenset:
        return _sequence(decoder_for(args[0]), frozenset)
    if origin is tuple and len(args) == 2 and args[1] is Ellipsis:
        return _sequence(decoder_for(args[0]), tuple)
    if origin is tuple:
        return _fixed_tuple([decoder_for(a) for a in args])
    if origin in (Mapping, dict, typing.Mapping):
        return _mapping(decoder_for(args[1]))
    raise TypeError(f"no JSON decoder for {hint!r}")  # pragma: no cover - a programming error


def _any(value: Any, field: str) -> Any:
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


def _rules(value: Any, field: str) -> Rules:
    if not isinstance(value, Mapping):
        raise invalid(field, f"{field} must be an object of toggles")
    return rules_from_dict(value)


def _sequence(item: Decoder, kind: Callable[[Any], Any]) -> Decoder:
    def decode(value: Any, field: str) -> Any:
        if not isinstance(value, (list, tuple)):
            raise invalid(field, f"{field} must be a list")
        return kind(item(v, f"{field}[{i}]") for i, v in enumerate(value))

    return decode


def _fixed_tuple(members: list[Decoder]) -> Decoder:
    def decode(value: Any, field: str) -> tuple[Any, ...]:
        if not isinstance(value, (list, tuple)) or len(value) != len(members):
            raise invalid(field, f"{field} must be a list of {len(members)} items")
        return tuple(d(v, f"{field}[{i}]") for i, (d, v) in enumerate(zip(members, value, strict=True)))

    return decode


def _mapping(item: Decoder) -> Decoder:
    def decode(value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, Mapping):
            raise invalid(field, f"{field} must be an object")
        out: dict[str, Any] = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise invalid(field, f"{field} keys must be strings")
            out[k] = item(v, f"{field}.{k}")
        return out

    return decode
