"""The refusals at registration: a parameter no request can fill is refused when the app
starts, with FastAPI's reason where FastAPI refuses it, and with what to do instead."""

from __future__ import annotations

import importlib.util
from typing import TYPE_CHECKING, Any

import msgspec.inspect as mi

from hasten._params.markers import REQUEST_SOURCES
from hasten._params.shapes import (
    is_fastapi_scalar,
    is_file_type,
    is_model,
    is_scalar_sequence,
    members_but_none,
)

if TYPE_CHECKING:
    from hasten._params.descriptions import Parameter

__all__ = ["check_one_body_kind", "check_readable"]


def check_one_body_kind(where: str, described: list[Parameter]) -> None:
    sources = {item.source for item in described}
    if "body" in sources and sources & {"form", "file"}:
        raise TypeError(
            f"{where} reads both a JSON body and a form: a request has one body. Take the "
            "JSON members as Form() fields, or the form's values as Body() members."
        )


def _dependency_hint(name: str, annotation: Any) -> str:
    """For a plain class (a session, a client, a service): how to declare it a dependency,
    which it most likely is (``db: AsyncSession`` without ``Depends``)."""
    if not isinstance(annotation, type) or annotation.__module__ in ("builtins", "typing"):
        return ""
    kind = annotation.__qualname__
    return (
        f" If it is a dependency (a session, a client...), declare it with Depends(): "
        f"`{name}: Annotated[{kind}, Depends(get_{name})]`, where get_{name}() returns or "
        f"yields the {kind}."
    )


def check_readable(where: str, parameter: Parameter) -> None:
    if parameter.source not in REQUEST_SOURCES:
        return
    if parameter.source == "file" and is_file_type(parameter.annotation):
        return  # an UploadFile or bytes (or a list of them), read as the part's file
    # A File() of another type is read from the part's text, as a Form() is, as FastAPI
    # reads it (a file sent for it is a 422).
    _check_pydantic_v2(where, parameter)
    if not parameter.models:
        _check_fastapi_reads(where, parameter)
    # What msgspec does not read (an EmailStr, an IP address, a tuple from the query),
    # pydantic does, as FastAPI reads it: a TypeAdapter built when the app starts.
    if parameter.needs_pydantic or _msgspec_reads(where, parameter):
        return
    refused = _pydantic_refuses(parameter.annotation)
    if refused is None:
        return
    kind = getattr(parameter.annotation, "__qualname__", repr(parameter.annotation))
    hint = _dependency_hint(parameter.name, parameter.annotation)
    raise TypeError(
        f"{where}: parameter {parameter.name!r} of type {kind} cannot be read from the "
        f"{parameter.source}.{hint}{refused} Without pydantic, hasten reads path, query, "
        "header and cookie values as str, int, float, bool, UUID, Decimal, dates and times, "
        "enums or Literal (query and header values also as lists of them, or as a model's "
        "fields: Annotated[Model, Query()]), and a JSON body as a msgspec Struct, dataclass, "
        "attrs class, TypedDict, dict or list; with pydantic installed, any type pydantic "
        "validates. Use one of these types, or take the Request and read the value yourself."
    )


def _msgspec_reads(where: str, parameter: Parameter) -> bool:
    """Whether msgspec reads the value from where it comes; raises TypeError for
    constraints that fit no value of the type."""
    try:
        mi.type_info(parameter.validated_type)
    except (TypeError, ValueError) as exc:
        if _msgspec_unknown(exc):
            return False
        raise TypeError(
            f"{where}: the type or constraints of parameter {parameter.name!r} cannot be "
            f"read: {exc}"
        ) from None
    if parameter.annotation is Any or parameter.models:
        return True
    shape = parameter.shape
    if parameter.source in {"body", "form", "file"}:
        return shape != "unsupported"
    if parameter.source in ("query", "header"):
        return shape in ("scalar", "sequence")
    return shape == "scalar"  # path and cookie values are single strings


def _pydantic_refuses(annotation: Any) -> str | None:
    """Why pydantic cannot validate ``annotation`` (" pydantic: ...", or "" without
    pydantic); None when it can."""
    if importlib.util.find_spec("pydantic") is None:
        return ""
    from pydantic import PydanticSchemaGenerationError, TypeAdapter

    try:
        TypeAdapter(annotation)
    except PydanticSchemaGenerationError as exc:
        return f" pydantic: {str(exc).split('. ')[0]}."
    return None


def _msgspec_unknown(exc: Exception) -> bool:
    """Whether msgspec refused a type it does not know (rather than constraints that fit
    no value, which pydantic would refuse too)."""
    return str(exc).startswith("Type ") and "is not supported" in str(exc)


def _check_fastapi_reads(where: str, parameter: Parameter) -> None:
    """FastAPI's refusals, with its words: a path value must be a scalar, a query value a
    scalar or a sequence of them (header and cookie values are not checked, as in
    FastAPI: a value that never fits is a 422)."""
    from hasten._http.errors import InvalidParameter

    annotation = parameter.annotation
    if parameter.source == "path" and not is_fastapi_scalar(annotation):
        message = "Path params must be of one of the supported types"
    elif parameter.source == "query" and not (
        is_fastapi_scalar(annotation)
        or is_scalar_sequence(annotation)
        or any(is_model(member) for member in members_but_none(annotation))
    ):
        message = f"Query parameter {parameter.name!r} must be one of the supported types"
    else:
        return
    kind = getattr(annotation, "__qualname__", repr(annotation))
    raise InvalidParameter(
        f"{message}: {where}: parameter {parameter.name!r} of type {kind} cannot be read from "
        f"the {parameter.source}, which holds {_HOLDS[parameter.source]}. Read it from the "
        "JSON body, or as a model's fields (Annotated[Model, Query()])."
    )


_HOLDS = {"path": "one text value", "query": "text values, one or many for a name"}


def _check_pydantic_v2(where: str, parameter: Parameter) -> None:
    """A pydantic v1 model (``pydantic.v1``) cannot be validated: say what to do."""
    from hasten._http.errors import PydanticV1NotSupportedError
    from hasten._params.models import pydantic_v1_model

    model = pydantic_v1_model(parameter.annotation)
    if model is not None:
        raise PydanticV1NotSupportedError(
            f"{where}: parameter {parameter.name!r} is a pydantic v1 model "
            f"({model.__qualname__}); hasten validates pydantic v2 models only, as "
            "FastAPI does: declare it with `from pydantic import BaseModel`, not "
            "`from pydantic.v1 import BaseModel`"
        )
