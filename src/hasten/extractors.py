"""Extractors: per-request readers compiled once from parameter descriptions.

Each reads one value from the path, query, headers or cookies, or every body parameter from
the JSON body, converting and checking it as its description says. Failures are collected, so
that one 422 names every bad value.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

import msgspec

from .decoding import decode_json
from .errors import HTTPError, validation_error
from .models import pydantic_adapter, pydantic_errors, uses_pydantic
from .params import MISSING, Parameter
from .requests import Request

__all__ = ["BodyReader", "Errors", "Extractor", "extractor"]

Errors = list[dict[str, Any]]
Extractor = Callable[[Request, Errors], Any]

_convert = msgspec.convert
_PATH_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]")
_MISSING_FIELD = re.compile(r"Object missing required field `(.+)`")
_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?")
_BOOLEANS = {"true": True, "false": False, "1": True, "0": False}
_JSON = "application/json"


def _message(exc: msgspec.ValidationError) -> tuple[str, tuple[str | int, ...], str]:
    """Split msgspec's 'Expected `int`, got `str` - at `$.tags[0]`' into message and location."""
    message, _, where = str(exc).partition(" - at `")
    location: list[str | int] = []
    for key, index in _PATH_PART.findall(where.rstrip("`")):
        location.append(key if key else int(index))
    missing = _MISSING_FIELD.fullmatch(message)
    if missing:
        location.append(missing.group(1))
        return "Field required", tuple(location), "missing"
    return message, tuple(location), "invalid"


def _text_to_int(text: str) -> Any:
    digits = text[1:] if text[:1] == "-" else text
    if digits.isascii() and digits.isdigit():
        try:
            return int(text)
        except ValueError:  # past Python's 4,300 digits: msgspec says "out of range"
            pass
    return _convert(text, int, strict=False)


def _text_to_float(text: str) -> Any:
    return float(text) if _DECIMAL.fullmatch(text) else _convert(text, float, strict=False)


def _text_to_bool(text: str) -> Any:
    value = _BOOLEANS.get(text)
    return value if value is not None else _convert(text, bool, strict=False)


def _as_is(text: Any) -> Any:
    return text


# perf: plain ints, floats and booleans skip msgspec.convert (0.5 us a value); anything
# unusual still goes through it, so values and error messages stay msgspec's.
_FAST_CONVERTERS: dict[Any, Callable[[str], Any]] = {
    str: _as_is,
    int: _text_to_int,
    float: _text_to_float,
    bool: _text_to_bool,
}


def _converter(parameter: Parameter) -> Callable[[Any], Any]:
    """Turns the raw value into the parameter's type; raises msgspec.ValidationError."""
    if not parameter.constraints:
        fast = _FAST_CONVERTERS.get(parameter.annotation)
        if fast is not None:
            return fast
    return functools.partial(_convert, type=parameter.validated_type, strict=False)


def extractor(parameter: Parameter, path_type: type | None = None) -> Extractor:
    """The reader of one path, query, header or cookie parameter, or of the Request itself.

    ``path_type`` is what the route's converter already made of a path value.
    """
    if parameter.source == "request":
        return _the_request
    if parameter.source == "path":
        return _path_extractor(parameter, path_type)
    return _text_extractor(parameter)


def _the_request(request: Request, errors: Errors) -> Any:
    return request


def _path_extractor(parameter: Parameter, path_type: type | None) -> Extractor:
    name = parameter.name
    as_is = not parameter.constraints and parameter.annotation in (str, path_type)
    convert = _converter(parameter)

    def from_path(request: Request, errors: Errors) -> Any:
        value = request.path_params[name]
        if as_is:
            return value
        try:
            return convert(value)
        except msgspec.ValidationError as exc:
            message, _, kind = _message(exc)
            errors.append(validation_error(("path", name), message, kind))
            return None

    return from_path


def _text_extractor(parameter: Parameter) -> Extractor:
    source, alias, default = parameter.source, parameter.alias, parameter.default
    many = parameter.shape == "sequence"
    convert = _converter(parameter)
    read = _READERS[source]

    def from_text(request: Request, errors: Errors) -> Any:
        raw = read(request, alias, many)
        if raw is None or (many and not raw):
            if default is MISSING:
                errors.append(validation_error((source, alias), "Field required", "missing"))
            return default
        try:
            return convert(raw)
        except msgspec.ValidationError as exc:
            message, location, kind = _message(exc)
            errors.append(validation_error((source, alias, *location), message, kind))
            return None

    return from_text


def _from_query(request: Request, alias: str, many: bool) -> Any:
    query = request.query
    return query.get_all(alias) if many else query.get(alias)


def _from_header(request: Request, alias: str, many: bool) -> Any:
    headers = request.headers
    return headers.get_all(alias) if many else headers.get(alias)


def _from_cookie(request: Request, alias: str, many: bool) -> Any:
    return request.cookies.get(alias)


_READERS: dict[str, Callable[[Request, str, bool], Any]] = {
    "query": _from_query,
    "header": _from_header,
    "cookie": _from_cookie,
}


class BodyReader:
    """Every body parameter of a handler, read from one JSON body by a decoder built once:
    the whole body for one parameter, or a member each (``embed``). A pydantic model is
    validated by its own ``TypeAdapter``, built here, once."""

    __slots__ = ("_adapters", "_decoder", "_embedded", "_names", "_pydantic", "default")

    def __init__(self, parameters: list[Parameter]) -> None:
        self._embedded = any(parameter.embed for parameter in parameters)
        self._names = [parameter.name for parameter in parameters]
        # Pydantic-typed parameters: decoded as JSON by msgspec, then validated by pydantic.
        self._adapters = {
            parameter.name: pydantic_adapter(parameter.annotation)
            for parameter in parameters
            if uses_pydantic(parameter.annotation)
        }
        self._pydantic = None
        if self._embedded:
            fields = [
                (parameter.name, self._member_type(parameter))
                if parameter.required
                else (parameter.name, self._member_type(parameter), parameter.default)
                for parameter in parameters
            ]
            rename = {parameter.name: parameter.alias for parameter in parameters}
            body_type: Any = msgspec.defstruct("Body", fields, kw_only=True, rename=rename)
            self.default: Any = MISSING
        else:
            (parameter,) = parameters
            body_type = parameter.validated_type
            self.default = parameter.default
            self._pydantic = self._adapters.get(parameter.name)
            if self._pydantic is not None:
                body_type = Any
        self._decoder = msgspec.json.Decoder(body_type)

    def _member_type(self, parameter: Parameter) -> Any:
        return Any if parameter.name in self._adapters else parameter.validated_type

    async def read(self, request: Request, errors: Errors) -> dict[str, Any]:
        """The body parameters by handler name; a body missing or invalid goes to ``errors``."""
        # perf: the usual Content-Type is taken as it is, without parsing it.
        if request._header("content-type") != _JSON:
            media_type = request.content_type
            if media_type and media_type != _JSON and not media_type.endswith("+json"):
                raise HTTPError(
                    415,
                    f"Expected a JSON body (Content-Type: application/json), got {media_type!r}",
                )
        body = await request.body()
        if not body:
            if self.default is MISSING:
                errors.append(validation_error(("body",), "Field required", "missing"))
                return dict.fromkeys(self._names)
            return dict.fromkeys(self._names, self.default)
        try:
            value = decode_json(self._decoder.decode, body, request.context.max_json_depth)
        except msgspec.ValidationError as exc:
            message, location, kind = _message(exc)
            errors.append(validation_error(("body", *location), message, kind))
            return dict.fromkeys(self._names)
        if self._embedded:
            members = {name: getattr(value, name) for name in self._names}
            for name, adapter in self._adapters.items():
                members[name] = _validated(adapter, members[name], ("body", name), errors)
            return members
        if self._pydantic is not None:
            value = _validated(self._pydantic, value, ("body",), errors)
        return {self._names[0]: value}


def _validated(adapter: Any, value: Any, where: tuple[str, ...], errors: Errors) -> Any:
    """``value`` validated by a pydantic TypeAdapter; its errors go to ``errors``."""
    try:
        return adapter.validate_python(value)
    except ValueError as exc:  # pydantic's ValidationError is a ValueError
        if not hasattr(exc, "errors"):
            raise
        errors.extend(pydantic_errors(exc, where))
        return None
