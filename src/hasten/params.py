"""Where a handler's arguments come from: path, query, JSON body or the request itself.

Each parameter is classified once, at registration, into an extractor; per request only the
extractors run. Failures are collected so that one 422 names every bad value.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import re
import types
import typing
from collections.abc import Callable
from typing import Any, Final, Union, get_args, get_origin, is_typeddict

import msgspec

from .errors import HTTPError, validation_error
from .paths import Param
from .requests import Request

__all__ = ["BodyParam", "Extractor", "classify", "is_structured"]

MISSING: Final = inspect.Parameter.empty
Errors = list[dict[str, Any]]
Extractor = Callable[[Request, Errors], Any]

_convert = msgspec.convert
_PATH_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_MISSING_FIELD = re.compile(r"Object missing required field `(.+)`")


def is_structured(annotation: Any) -> bool:
    """True for types that come from a JSON body: Structs, dataclasses, TypedDicts, dicts,
    and lists or unions of them."""
    if isinstance(annotation, type):
        return (
            issubclass(annotation, msgspec.Struct | dict)
            or dataclasses.is_dataclass(annotation)
            or is_typeddict(annotation)
        )
    origin = get_origin(annotation)
    if origin is dict:
        return True
    if origin in (list, tuple, set, frozenset, Union, types.UnionType):
        return any(is_structured(arg) for arg in get_args(annotation))
    return False


def _strip_annotated(annotation: Any) -> Any:
    if get_origin(annotation) is typing.Annotated:
        return get_args(annotation)[0]
    return annotation


def _is_sequence(annotation: Any) -> bool:
    origin = get_origin(annotation)
    if origin in (list, tuple, set, frozenset):
        return True
    if origin in (Union, types.UnionType):
        return any(_is_sequence(arg) for arg in get_args(annotation) if arg is not type(None))
    return False


def _accepts_none(annotation: Any) -> bool:
    return get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation)


def _message(exc: msgspec.ValidationError) -> tuple[str, tuple[str | int, ...], str]:
    """Split msgspec's 'Expected `int`, got `str` - at `$.tags[0]`' into message and location."""
    text = str(exc)
    message, _, where = text.partition(" - at `")
    location: list[str | int] = []
    for key, index in _PATH_PART.findall(where.rstrip("`")):
        location.append(key if key else int(index))
    missing = _MISSING_FIELD.fullmatch(message)
    if missing:
        location.append(missing.group(1))
        return "Field required", tuple(location), "missing"
    return message, tuple(location), "invalid"


_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}


def _text_to_int(text: str) -> Any:
    digits = text[1:] if text[:1] == "-" else text
    if digits.isascii() and digits.isdigit():
        return int(text)
    return _convert(text, int, strict=False)


def _text_to_float(text: str) -> Any:
    return float(text) if _DECIMAL.fullmatch(text) else _convert(text, float, strict=False)


def _text_to_bool(text: str) -> Any:
    value = _BOOLEANS.get(text)
    return value if value is not None else _convert(text, bool, strict=False)


# perf: plain ints, floats and booleans skip msgspec.convert (0.5 us a value); anything
# unusual still goes through it, so values and error messages stay msgspec's.
_FAST_CONVERTERS: dict[Any, Callable[[str], Any]] = {
    int: _text_to_int,
    float: _text_to_float,
    bool: _text_to_bool,
}


def _text_converter(annotation: Any) -> Callable[[str], Any]:
    """Turns a path or query string into ``annotation``; raises msgspec.ValidationError."""
    fast = _FAST_CONVERTERS.get(annotation)
    if fast is not None:
        return fast
    return functools.partial(_convert, type=annotation, strict=False)


def _path_extractor(name: str, annotation: Any, param: Param) -> Extractor:
    passthrough = annotation in (MISSING, Any, param.converter.python_type)
    convert = _text_converter(annotation)

    def from_path(request: Request, errors: Errors) -> Any:
        value = request.path_params[name]
        if passthrough:
            return value
        try:
            return convert(value)
        except msgspec.ValidationError as exc:
            message, _, kind = _message(exc)
            errors.append(validation_error(("path", name), message, kind))
            return None

    return from_path


def _query_extractor(name: str, annotation: Any, default: Any) -> Extractor:
    if annotation in (MISSING, Any):
        annotation = str
    many = _is_sequence(annotation)
    optional = _accepts_none(annotation)
    if default is MISSING and optional:
        default = None
    as_is = annotation is str
    convert = _text_converter(annotation)

    def from_query(request: Request, errors: Errors) -> Any:
        query = request.query
        raw: Any = query.get_all(name) if many else query.get(name)
        if raw is None or (many and not raw):
            if default is MISSING:
                errors.append(validation_error(("query", name), "Field required", "missing"))
            return default
        if as_is:
            return raw
        try:
            return convert(raw)
        except msgspec.ValidationError as exc:
            message, location, kind = _message(exc)
            errors.append(validation_error(("query", name, *location), message, kind))
            return None

    return from_query


class BodyParam:
    """A JSON body decoded straight into the parameter's type by a decoder built once."""

    __slots__ = ("decoder", "default", "name")

    def __init__(self, name: str, annotation: Any, default: Any) -> None:
        self.name = name
        self.default = default
        self.decoder = msgspec.json.Decoder(annotation)

    async def read(self, request: Request, errors: Errors) -> Any:
        media_type = request.content_type
        if media_type and media_type != "application/json" and not media_type.endswith("+json"):
            raise HTTPError(
                415, f"Expected a JSON body (Content-Type: application/json), got {media_type!r}"
            )
        body = await request.body()
        if not body:
            if self.default is MISSING:
                errors.append(validation_error(("body",), "Field required", "missing"))
            return None if self.default is MISSING else self.default
        try:
            return self.decoder.decode(body)
        except msgspec.ValidationError as exc:
            message, location, kind = _message(exc)
            errors.append(validation_error(("body", *location), message, kind))
        except msgspec.DecodeError as exc:
            raise HTTPError(400, f"Malformed JSON body: {exc}") from None
        return None


def unwrap(handler: Callable[..., Any]) -> Callable[..., Any]:
    """The function that carries a handler's annotations: through partials, to ``__call__``."""
    while isinstance(handler, functools.partial):
        handler = handler.func
    if inspect.isfunction(handler) or inspect.ismethod(handler):
        return handler
    call: Callable[..., Any] = type(handler).__call__
    return call


def describe(handler: Callable[..., Any]) -> str:
    """``module.qualname`` of a handler, for messages and ``hasten routes``."""
    target = unwrap(handler)
    name = target.__qualname__.removesuffix(".__call__")
    return f"{target.__module__}.{name}"


def _is_request(annotation: Any) -> bool:
    if get_origin(annotation) in (Union, types.UnionType):
        return any(_is_request(arg) for arg in get_args(annotation) if arg is not type(None))
    return isinstance(annotation, type) and issubclass(annotation, Request)


def classify(
    handler: Callable[..., Any], path_params: dict[str, Param]
) -> tuple[list[tuple[str, Extractor]], BodyParam | None, str | None]:
    """Sort a handler's parameters into extractors, at most one body, and the Request slot.

    Raises TypeError, naming the handler and parameter, for what cannot be served.
    """
    where = describe(handler)
    try:
        hints = typing.get_type_hints(unwrap(handler), include_extras=True)
    except Exception as exc:
        raise TypeError(f"Cannot resolve the type annotations of {where}: {exc}") from exc
    extractors: list[tuple[str, Extractor]] = []
    body: BodyParam | None = None
    request_name: str | None = None
    for name, parameter in inspect.signature(handler).parameters.items():
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            raise TypeError(f"{where}: *args and **kwargs cannot be filled from a request")
        annotation = _strip_annotated(hints.get(name, MISSING))
        if _is_request(annotation):
            request_name = name
        elif name in path_params:
            extractors.append((name, _path_extractor(name, annotation, path_params[name])))
        elif is_structured(annotation):
            if body is not None:
                raise TypeError(
                    f"{where}: parameters {body.name!r} and {name!r} both want the JSON body; "
                    "a handler takes at most one"
                )
            body = BodyParam(name, annotation, parameter.default)
        else:
            extractors.append((name, _query_extractor(name, annotation, parameter.default)))
    missing = set(path_params) - {name for name, _ in extractors}
    if missing and request_name is None:
        raise TypeError(f"{where} takes no parameter for path parameter(s) {sorted(missing)}")
    return extractors, body, request_name
