"""JSON Schemas of the types only pydantic describes, as FastAPI writes them.

A pydantic model (or a type holding one) is described by pydantic itself, with FastAPI's
choices: one generator for the whole document, so that models shared by several routes are one
component each, and a model whose input and output differ (a field with a default is required
in the output) becomes two components, ``Item-Input`` and ``Item-Output``, as in FastAPI.
pydantic is imported only when a document has such a type, so it is loaded already.
"""

from __future__ import annotations

import dataclasses
import sys
import typing
from collections.abc import Hashable, Iterable, Mapping
from typing import Any, Literal, TypeVar

import msgspec

from hasten.openapi.meta import said_by

__all__ = [
    "Mode",
    "has_computed_fields",
    "is_pydantic_dataclass",
    "pydantic_schemas",
    "split_meta",
]

Mode = Literal["validation", "serialization"]
Key = TypeVar("Key", bound=Hashable)


def split_meta(annotation: Any) -> tuple[Any, dict[str, Any]]:
    """``annotation`` without the ``msgspec.Meta`` hasten attaches to a parameter's type
    (pydantic does not read it), and what that metadata says in a schema."""
    if typing.get_origin(annotation) in (typing.Union, type(int | None)):
        members = typing.get_args(annotation)
        if type(None) in members and len(members) == 2:
            (inner,) = (member for member in members if member is not type(None))
            bare, said = split_meta(inner)
            return typing.Optional[bare], said  # noqa: UP045
    if typing.get_origin(annotation) is not typing.Annotated:
        return annotation, {}
    bare, *metadata = typing.get_args(annotation)
    others = [item for item in metadata if not isinstance(item, msgspec.Meta)]
    extra: dict[str, Any] = {}
    for meta in metadata:
        if isinstance(meta, msgspec.Meta):
            extra.update(said_by(meta))
    return (typing.Annotated[(bare, *others)] if others else bare), extra


def is_pydantic_dataclass(annotation: Any) -> bool:
    """Whether ``annotation`` is a pydantic dataclass (described by pydantic, as FastAPI)."""
    return (
        isinstance(annotation, type)
        and dataclasses.is_dataclass(annotation)
        and hasattr(annotation, "__pydantic_fields__")
    )


def has_computed_fields(annotation: Any, seen: frozenset[int] = frozenset()) -> bool:
    """Whether ``annotation`` holds a pydantic model or dataclass with a ``computed_field``:
    FastAPI documents it as read and as sent apart even without separate input and output
    schemas, since only the output has the computed fields."""
    if id(annotation) in seen or "pydantic" not in sys.modules:
        return False
    seen = seen | {id(annotation)}
    fields: Mapping[str, Any] = {}
    if isinstance(annotation, type):
        decorators = getattr(annotation, "__pydantic_decorators__", None)
        if decorators is not None and decorators.computed_fields:
            return True
        fields = getattr(annotation, "__pydantic_fields__", None) or {}
    inner = [field.annotation for field in fields.values()]
    return any(has_computed_fields(arg, seen) for arg in (*inner, *typing.get_args(annotation)))


def pydantic_schemas(
    wanted: Iterable[tuple[Key, Any, Mode]], ref_template: str
) -> tuple[dict[Key, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The schema of each ``(key, annotation, mode)`` and the definitions they refer to, by
    pydantic's name; an annotation pydantic cannot describe is left out."""
    from pydantic import TypeAdapter
    from pydantic.errors import PydanticUserError

    inputs = []
    for key, annotation, mode in wanted:
        try:
            inputs.append((key, mode, TypeAdapter(annotation).core_schema))
        except (PydanticUserError, TypeError, ValueError, NameError):
            continue  # documented as any JSON value
    try:
        found, definitions = _generator(ref_template).generate_definitions(inputs)
        return {key: found[key, mode] for key, mode, _ in inputs}, _named(definitions)
    except (PydanticUserError, TypeError, ValueError):
        pass
    # One type cannot be written as JSON Schema (a callable field, say): the others can.
    schemas: dict[Key, dict[str, Any]] = {}
    every: dict[str, dict[str, Any]] = {}
    for key, mode, core in inputs:
        try:
            found, definitions = _generator(ref_template).generate_definitions([(key, mode, core)])
        except (PydanticUserError, TypeError, ValueError):
            continue
        schemas[key] = found[key, mode]
        every.update(_named(definitions))
    return schemas, every


def _generator(ref_template: str) -> Any:
    """pydantic's JSON Schema generator, with bytes written as FastAPI writes them: a string
    of ``application/octet-stream``, base64 where the model's config says JSON carries it so."""
    from pydantic.json_schema import GenerateJsonSchema

    class Generator(GenerateJsonSchema):
        def bytes_schema(self, schema: Any) -> dict[str, Any]:
            found = super().bytes_schema(schema)
            found.pop("format", None)  # pydantic's "binary"
            found["contentMediaType"] = "application/octet-stream"
            config = self._config
            as_json = (
                config.ser_json_bytes if self.mode == "serialization" else config.val_json_bytes
            )
            if as_json == "base64":
                found["contentEncoding"] = "base64"
            return found

    return Generator(ref_template=ref_template)


def _named(definitions: Mapping[Any, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {str(name): schema for name, schema in definitions.items()}
