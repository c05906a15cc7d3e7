"""The OpenAPI components of the published records, generated from the records themselves.

``record_serializer(TableView)`` is what a view names in ``@extend_schema(responses=...)`` (or as a generic
view's ``serializer_class``): a serializer whose schema is :func:`record_schema` of the record, registered with
drf-spectacular under the record's name together with every record it embeds, and whose output is the record
converted from the object it is given; ``body_serializer(name, union)`` stands the same way for a request body
that is one of several tagged records (an action body: ``rules.actions.ActionRequest``). msgspec writes the JSON
Schema (field help texts come from each field's ``Meta(description=...)``, a component's from its docstring);
:func:`openapi_30` turns its ``null`` alternatives into the ``nullable`` of the OpenAPI 3.0 the schema is
published in.
"""

from __future__ import annotations

from datetime import datetime
from functools import cache
from typing import Any, ClassVar

import msgspec
import msgspec.inspect as mi
from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.plumbing import ResolvedComponent
from msgspec import Struct
from rest_framework import serializers

REF_TEMPLATE = "#/components/schemas/{name}"
_NULL = {"type": "null"}


def published(record: Struct) -> Any:
    """The JSON data of ``record`` as the API renders it (datetimes left to the renderer, so every time in an
    answer is written the one way DRF writes times)."""
    return msgspec.to_builtins(record, builtin_types=(datetime,))


def openapi_30(schema: Any) -> Any:
    """``schema`` (msgspec's JSON Schema) in OpenAPI 3.0 terms: ``anyOf [X, null]`` becomes X with ``nullable``
    and a ``$ref`` with sibling keys (a description) is wrapped in ``allOf``."""
    if isinstance(schema, list):
        return [openapi_30(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: openapi_30(value) for key, value in schema.items()}
    choices = out.get("anyOf")
    if choices is not None and _NULL in choices:
        rest = [choice for choice in choices if choice != _NULL]
        del out["anyOf"]
        out = {**out, **rest[0]} if len(rest) == 1 else {**out, "anyOf": rest}
        out["nullable"] = True
    if "$ref" in out and len(out) > 1:
        out["allOf"] = [{"$ref": out.pop("$ref")}]
    return out


@cache
def record_schema(record: type[Struct]) -> dict[str, dict[str, Any]]:
    """The OpenAPI 3.0 components of ``record`` and of every record and enum it embeds, by name."""
    _, components = msgspec.json.schema_components([record], ref_template=REF_TEMPLATE)
    return {name: openapi_30(component) for name, component in components.items()}


def _named_types(record: type[Struct]) -> dict[str, type]:
    """Every record and enum ``record`` embeds (itself included), by the name its component has."""
    found: dict[str, type] = {}

    def walk(info: mi.Type) -> None:
        if isinstance(info, mi.StructType):
            if info.cls.__name__ not in found:
                found[info.cls.__name__] = info.cls
                for field in info.fields:
                    walk(field.type)
        elif isinstance(info, mi.EnumType):
            found[info.cls.__name__] = info.cls
        elif isinstance(info, mi.Metadata):
            walk(info.type)
        elif isinstance(info, mi.UnionType):
            for member in info.types:
                walk(member)
        elif isinstance(info, mi.DictType):
            walk(info.key_type)
            walk(info.value_type)
        elif isinstance(info, (mi.ListType, mi.VarTupleType, mi.SetType, mi.FrozenSetType)):
            walk(info.item_type)

    walk(mi.type_info(record))
    return found


class RecordSerializer(serializers.BaseSerializer):
    """A published record as DRF sees it: read-only, its schema the record's own (:class:`RecordExtension`)."""

    record: ClassVar[type[Struct]]

    def to_representation(self, instance: Any) -> Any:
        if not isinstance(instance, self.record):
            instance = msgspec.convert(instance, self.record, from_attributes=True)
        return published(instance)


@cache
def record_serializer(record: type[Struct]) -> type[RecordSerializer]:
    """The serializer standing for ``record`` in the schema (one class per record)."""
    return type(f"{record.__name__}Record", (RecordSerializer,), {"record": record, "__module__": __name__})


class RecordExtension(OpenApiSerializerExtension):
    """Describes a :class:`RecordSerializer` by its record's generated components."""

    target_class = RecordSerializer
    match_subclasses = True

    def get_name(self, auto_schema: Any = None, direction: Any = None) -> str:
        return str(self.target.record.__name__)

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        name = self.get_name()
        components = record_schema(self.target.record)
        types = _named_types(self.target.record)
        for other, schema in components.items():
            if other != name:
                # the identity drf-spectacular gives a record named in a response: its serializer
                kind = types[other]
                identity = record_serializer(kind) if issubclass(kind, Struct) else kind
                component = ResolvedComponent(name=other, type=ResolvedComponent.SCHEMA, object=identity, schema=schema)
                auto_schema.registry.register_on_missing(component)
        return components[name]


class BodySerializer(serializers.BaseSerializer):
    """A request body that is one of several tagged records, as DRF's schema sees it (:class:`BodyExtension`); the
    view validates the body itself, with the same records."""

    union: ClassVar[Any]
    name: ClassVar[str]


@cache
def body_serializer(name: str, union: Any) -> type[BodySerializer]:
    """The serializer standing for the request body ``union`` (tagged records) in the schema, named ``name``."""
    return type(f"{name}Body", (BodySerializer,), {"union": union, "name": name, "__module__": __name__})


class BodyExtension(OpenApiSerializerExtension):
    """Describes a :class:`BodySerializer`: one of its records (``anyOf`` with a discriminator), each a component."""

    target_class = BodySerializer
    match_subclasses = True

    def get_name(self, auto_schema: Any = None, direction: Any = None) -> str:
        return str(self.target.name)

    def map_serializer(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        (top,), components = msgspec.json.schema_components([self.target.union], ref_template=REF_TEMPLATE)
        for name, schema in components.items():
            kind = _named_types_of_union(self.target.union)[name]
            identity = record_serializer(kind) if issubclass(kind, Struct) else kind
            component = ResolvedComponent(
                name=name, type=ResolvedComponent.SCHEMA, object=identity, schema=openapi_30(schema)
            )
            auto_schema.registry.register_on_missing(component)
        return dict(openapi_30(top))


def _named_types_of_union(union: Any) -> dict[str, type]:
    found: dict[str, type] = {}
    for member in union.__args__:
        found.update(_named_types(member))
    return found
