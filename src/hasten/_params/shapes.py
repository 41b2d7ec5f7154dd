"""What a parameter's type says of how its value travels: one text (a scalar), every value
of its name (a sequence), JSON (a record or mapping), a file, or the connection itself; and
which of these FastAPI reads from a path or query value.
"""

from __future__ import annotations

import collections
import dataclasses
import types
import typing
from collections.abc import Mapping, Sequence
from typing import Any, Final, Literal, get_args, get_origin

import msgspec.inspect as mi

from hasten._http.connection import Connection
from hasten._http.uploads import UploadFile

__all__ = [
    "UNIONS",
    "Shape",
    "accepts_none",
    "is_fastapi_scalar",
    "is_file_type",
    "is_json",
    "is_model",
    "is_record",
    "is_request",
    "is_scalar_sequence",
    "is_sequence",
    "is_upload",
    "members",
    "members_but_none",
    "query_by_default",
    "shape_of",
]

Shape = Literal["scalar", "sequence", "structured", "unsupported"]

UNIONS: Final = (typing.Union, types.UnionType)

# The sequences FastAPI reads every value of a repeated name for.
_SEQUENCES_READ: Final = (list, tuple, set, frozenset, collections.deque, Sequence)


def is_json(extra: Any) -> bool:
    """Whether an ``Annotated`` extra is pydantic's ``Json`` (``Json[list[int]]``): the value
    is one JSON text."""
    kind = type(extra)
    return kind.__name__ == "Json" and kind.__module__.startswith("pydantic")


def is_sequence(annotation: Any) -> bool:
    """Whether a value of this type is every value of its name (a list, tuple, set, ...,
    alone or in a union), as FastAPI reads it."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return is_sequence(get_args(annotation)[0])
    if origin in UNIONS:
        return any(is_sequence(arg) for arg in get_args(annotation))
    return _is_sequence_class(annotation) or _is_sequence_class(origin)


def _is_sequence_class(annotation: Any) -> bool:
    if not isinstance(annotation, type) or issubclass(annotation, str | bytes):
        return False
    return issubclass(annotation, _SEQUENCES_READ)


def is_fastapi_scalar(annotation: Any) -> bool:
    """FastAPI's scalar: no model, mapping, file, sequence or dataclass, anywhere in a
    union (what a path value may be, and a query value without Query())."""
    if annotation is Ellipsis:
        return True
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return is_fastapi_scalar(get_args(annotation)[0])
    if origin in UNIONS:
        return all(is_fastapi_scalar(arg) for arg in get_args(annotation))
    if _is_complex_class(annotation) or _is_complex_class(origin):
        return False
    return not (
        hasattr(origin, "__pydantic_core_schema__")
        or hasattr(origin, "__get_pydantic_core_schema__")
    )


def _is_complex_class(annotation: Any) -> bool:
    if dataclasses.is_dataclass(annotation) or is_model(annotation):
        return True
    if not isinstance(annotation, type):
        return False
    return issubclass(annotation, Mapping | UploadFile) or _is_sequence_class(annotation)


def is_scalar_sequence(annotation: Any) -> bool:
    """FastAPI's sequence of scalars (a union holding one, and scalars beside it)."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return is_scalar_sequence(get_args(annotation)[0])
    if origin in UNIONS:
        found = False
        for arg in get_args(annotation):
            if is_scalar_sequence(arg):
                found = True
            elif not is_fastapi_scalar(arg):
                return False
        return found
    return is_sequence(annotation) and all(is_fastapi_scalar(arg) for arg in get_args(annotation))


_SCALARS = (
    mi.AnyType,
    mi.StrType,
    mi.IntType,
    mi.FloatType,
    mi.BoolType,
    mi.UUIDType,
    mi.DecimalType,
    mi.DateTimeType,
    mi.DateType,
    mi.TimeType,
    mi.TimeDeltaType,
    mi.EnumType,
    mi.LiteralType,
)
_SEQUENCES = (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)
_STRUCTURED = (
    mi.StructType,
    mi.DataclassType,
    mi.TypedDictType,
    mi.NamedTupleType,
    mi.DictType,
    mi.TupleType,
)


def shape_of(annotation: Any) -> Shape:
    """How a value of ``annotation`` travels: one string (scalar), repeated strings
    (sequence), JSON (structured), or not at all (unsupported)."""
    try:
        info = mi.type_info(annotation)
    except (TypeError, ValueError):
        return "unsupported"
    return _shape(info)


def _shape(info: mi.Type) -> Shape:
    if isinstance(info, _SCALARS):
        return "scalar"
    if isinstance(info, _SEQUENCES):
        item = _shape(info.item_type)
        return "sequence" if item == "scalar" else item
    if isinstance(info, _STRUCTURED):
        return "structured"
    if isinstance(info, mi.UnionType):
        shapes = {_shape(member) for member in info.types if not isinstance(member, mi.NoneType)}
        if len(shapes) == 1:
            return shapes.pop()
        if "unsupported" not in shapes and "structured" in shapes:
            return "structured"
    return "unsupported"


def query_by_default(annotation: Any) -> bool:
    """Whether a parameter of this type is read from the query by default: FastAPI's scalar
    (an EmailStr, an IP address, a path, ...). A sequence, a model, a record msgspec reads
    (Struct, TypedDict, attrs class) or a mapping is a body, as in FastAPI: a list is read
    from the query with ``Query()``."""
    if any(is_record(member) for member in members(annotation)):
        return False
    return is_fastapi_scalar(annotation)


def is_record(annotation: Any) -> bool:
    """A class with named fields: a pydantic model, Struct, dataclass, attrs class,
    TypedDict or NamedTuple."""
    if is_model(annotation):
        return True
    try:
        info = mi.type_info(annotation)
    except (TypeError, ValueError):
        return False
    return isinstance(info, mi.StructType | mi.DataclassType | mi.TypedDictType | mi.NamedTupleType)


def members(annotation: Any) -> tuple[Any, ...]:
    """The types a parameter may hold: ``X | None`` and ``list[X]`` give X."""
    if get_origin(annotation) in UNIONS:
        return tuple(
            member
            for arg in get_args(annotation)
            if arg is not type(None)
            for member in members(arg)
        )
    if get_origin(annotation) in (list, tuple, set, frozenset):
        return tuple(member for arg in get_args(annotation) for member in members(arg))
    return (annotation,)


def members_but_none(annotation: Any) -> tuple[Any, ...]:
    """The members of a union but None (``(X,)`` for X alone)."""
    if get_origin(annotation) not in UNIONS:
        return (annotation,)
    return tuple(arg for arg in get_args(annotation) if arg is not type(None))


def is_upload(annotation: Any) -> bool:
    return all(
        isinstance(member, type) and issubclass(member, UploadFile)
        for member in members(annotation)
    )


def is_file_type(annotation: Any) -> bool:
    return all(
        member is bytes or (isinstance(member, type) and issubclass(member, UploadFile))
        for member in members(annotation)
    )


def is_model(annotation: Any) -> bool:
    """A pydantic model (checked without importing pydantic: a model's class has it loaded)."""
    from hasten._params.models import is_pydantic_model

    return is_pydantic_model(annotation)


def is_request(annotation: Any) -> bool:
    if get_origin(annotation) in UNIONS:
        return any(is_request(arg) for arg in get_args(annotation) if arg is not type(None))
    # A Request, or a WebSocket on a WebSocket route: the connection itself.
    return isinstance(annotation, type) and issubclass(annotation, Connection)


def accepts_none(annotation: Any) -> bool:
    return get_origin(annotation) in UNIONS and type(None) in get_args(annotation)
