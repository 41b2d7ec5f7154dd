"""The formats msgspec leaves out: ``date-time`` for a datetime, ``time`` for a time.

msgspec writes ``format: date-time`` only for a datetime that must carry a timezone (RFC 3339
requires one), and accepts a naive one otherwise; FastAPI writes the format for every datetime
and time, and tools (Swagger UI's inputs, client generators' types) read it. So each schema
msgspec generates is walked beside msgspec's view of its type, and the format is added where a
datetime or time is. A union holds at most one type of each JSON kind (msgspec allows no two
string types in one union), so its members are found in the ``anyOf`` by their kind.
"""

from __future__ import annotations

from typing import Any

import msgspec.inspect as mi

__all__ = ["add_field_formats", "add_formats"]

_STRINGS = (
    mi.StrType,
    mi.DateTimeType,
    mi.TimeType,
    mi.DateType,
    mi.TimeDeltaType,
    mi.UUIDType,
    mi.DecimalType,
    mi.BytesType,
    mi.ByteArrayType,
    mi.MemoryViewType,
)


def add_formats(info: mi.Type, schema: Any) -> None:
    """Add, in place, the format of every datetime and time of ``info`` to its ``schema``
    (a named class is a ``$ref`` here: its component is walked with ``add_field_formats``)."""
    if not isinstance(schema, dict) or "$ref" in schema:
        return
    if isinstance(info, mi.DateTimeType | mi.TimeType):
        if schema.get("type") == "string" and "format" not in schema:
            schema["format"] = "date-time" if isinstance(info, mi.DateTimeType) else "time"
        return
    for inner, inner_schema in _within(info, schema):
        add_formats(inner, inner_schema)


def _within(info: mi.Type, schema: dict[str, Any]) -> list[tuple[mi.Type, Any]]:
    """The types inside ``info``, each with its part of ``schema``."""
    if isinstance(info, mi.Metadata):
        return [(info.type, schema)]
    if isinstance(info, mi.CollectionType):
        return [(info.item_type, schema.get("items"))]
    if isinstance(info, mi.TupleType):
        return list(zip(info.item_types, schema.get("prefixItems", ()), strict=False))
    if isinstance(info, mi.DictType):
        return [(info.value_type, schema.get("additionalProperties"))]
    if isinstance(info, mi.UnionType):
        members = schema.get("anyOf", [schema])
        return [
            (member, candidate)
            for member in info.types
            if (kind := _kind(member)) is not None
            for candidate in members
            if isinstance(candidate, dict) and candidate.get("type") == kind
        ]
    return []


def add_field_formats(info: mi.Type, component: dict[str, Any]) -> None:
    """Add the formats of a named class's fields to its component, in place."""
    properties = component.get("properties", {})
    for field in getattr(info, "fields", ()):
        add_formats(field.type, properties.get(field.encode_name))


def _kind(info: mi.Type) -> str | None:
    while isinstance(info, mi.Metadata):
        info = info.type
    if isinstance(info, _STRINGS):
        return "string"
    if isinstance(info, mi.CollectionType | mi.TupleType):
        return "array"
    if isinstance(info, mi.DictType):
        return "object"
    return None
