"""Path templates: ``/items/{item_id}``, ``/typed/{n:int}``, ``/files/{rest:path}``."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import quote

__all__ = [
    "CONVERTERS",
    "NO_MATCH",
    "BadPathValue",
    "Converter",
    "Param",
    "PathTemplate",
    "add_converter",
    "encode_path",
    "under_root",
]

NO_MATCH: Final = object()
# What may stand unescaped in a path (RFC 3986 pchar and "/"): the rest is percent-encoded.
_PATH_SAFE = "/:@!$&'()*+,;=-._~"


def encode_path(path: str) -> str:
    """A percent-decoded path encoded again, for a URL: an encoded "?" stays in the path."""
    return quote(path, safe=_PATH_SAFE)


def under_root(path: str, root: str) -> str:
    """The path the app routes on: ``path`` without the ``root`` path the app is served under,
    when it starts with it (ASGI servers and mounting apps put the prefix in both)."""
    if root and path.startswith(root) and path[len(root) : len(root) + 1] in ("/", ""):
        return path[len(root) :] or "/"
    return path


class BadPathValue(ValueError, AssertionError):
    """A value a path parameter cannot take (``url_path_for``): a ValueError, and the
    AssertionError Starlette's convertors raise."""


_EXPRESSION = "{$"  # an OpenAPI runtime expression's start: {$url}, {$request.body.id}
_FLOAT = re.compile(r"[0-9]+(\.[0-9]+)?")
# Its dashes may be left out (as Starlette's convertor, which FastAPI's routes use).
_UUID = re.compile(
    r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}"
)


def _to_int(segment: str) -> Any:
    if not (segment.isascii() and segment.isdigit()):
        return NO_MATCH
    try:
        return int(segment)
    except ValueError:  # more digits than int() converts (4,300): no int this route takes
        return NO_MATCH


def _to_float(segment: str) -> Any:
    return float(segment) if _FLOAT.fullmatch(segment) else NO_MATCH


def _to_uuid(segment: str) -> Any:
    return uuid.UUID(segment) if _UUID.fullmatch(segment) else NO_MATCH


@dataclass(frozen=True, slots=True)
class Converter:
    """Turns one path segment into a value, or NO_MATCH (and the router tries the next route).

    ``str`` (any non-empty segment) and ``path`` (the rest of the path) have no function: the
    matcher takes them itself. ``to_string`` writes a value back into a path (``url_path_for``).
    """

    name: str
    python_type: type[Any]
    convert: Callable[[str], Any] | None
    priority: int  # lower is tried first: the most specific converter wins an overlap
    to_string: Callable[[Any], str] = str


CONVERTERS: Final[dict[str, Converter]] = {
    "int": Converter("int", int, _to_int, 0),
    "float": Converter("float", float, _to_float, 1),
    "uuid": Converter("uuid", uuid.UUID, _to_uuid, 2),
    "str": Converter("str", str, None, 4),
    "path": Converter("path", str, None, 5),  # the rest of the path, slashes included
}


def add_converter(
    name: str, pattern: str, convert: Callable[[str], Any], to_string: Callable[[Any], str]
) -> None:
    """Routes added from now on may say ``{param:name}``: a segment that ``pattern`` matches
    whole becomes ``convert(segment)`` (Starlette's ``register_url_convertor``). It is tried
    after the built-in typed converters, before ``str``."""
    regex = re.compile(pattern)

    def convert_matching(segment: str) -> Any:
        return convert(segment) if regex.fullmatch(segment) else NO_MATCH

    CONVERTERS[name] = Converter(name, object, convert_matching, 3, to_string)


_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")


@dataclass(frozen=True, slots=True)
class Param:
    """A ``{name}`` or ``{name:converter}`` segment (``{name}`` converts as ``str``), or a
    parameter with text around it in its segment (``{name}.json``, ``v({n:int})``)."""

    name: str
    converter: Converter
    prefix: str = ""
    suffix: str = ""

    @property
    def affixed(self) -> bool:
        return bool(self.prefix or self.suffix)

    def convert(self, segment: str) -> Any:
        """The segment's value for this parameter, or NO_MATCH."""
        prefix, suffix = self.prefix, self.suffix
        end = len(segment) - len(suffix)
        if end <= len(prefix) or not segment.startswith(prefix) or not segment.endswith(suffix):
            return NO_MATCH
        inner = segment[len(prefix) : end]
        convert = self.converter.convert
        return inner if convert is None else convert(inner)

    def format(self, value: Any) -> str:
        text = self.converter.to_string(value)
        if self.converter.name != "path" and ("/" in text or not text):
            raise BadPathValue(f"Path parameter {self.name!r} cannot be {text!r}")
        return self.prefix + text + self.suffix


Segment = str | Param


@dataclass(frozen=True, slots=True)
class PathTemplate:
    """A parsed route path: static segments and parameters, one per ``/``-separated segment."""

    path: str
    segments: tuple[Segment, ...]

    @classmethod
    def parse(cls, path: str) -> PathTemplate:
        """``""`` is the empty template: a route at its router's prefix. A segment that is
        an OpenAPI runtime expression (``{$request.body.id}``) is text: a callback's path
        (``{$callback_url}/invoices/{$request.body.id}``) documents a request the API sends,
        as FastAPI's callback routers declare it; no request the app serves matches it."""
        if not path:
            return cls("", ())
        callback = path.startswith(_EXPRESSION)
        if not (path.startswith("/") or callback):
            raise ValueError(f"Route path {path!r} must start with '/' (or be '' under a prefix)")
        segments: list[Segment] = []
        names: set[str] = set()
        twice: list[str] = []
        raw_segments = path.split("/")[0 if callback else 1 :]
        for raw in raw_segments:
            if ("{" not in raw and "}" not in raw) or raw.startswith(_EXPRESSION):
                segments.append(raw)
                continue
            param = _parse_param(path, raw)
            if param.name in names and param.name not in twice:
                twice.append(param.name)
            if param.converter.name == "path" and any(
                isinstance(done, Param) and done.converter.name == "path" for done in segments
            ):
                # One, so that a request's path matches a route in time linear in its length.
                raise ValueError(f"Route path {path!r} has more than one ':path' parameter")
            names.add(param.name)
            segments.append(param)
        if twice:
            plural = "s" if len(twice) > 1 else ""
            raise ValueError(
                f"Duplicated param name{plural} {', '.join(twice)} at path {path}: a route "
                "path names each parameter once"
            )
        return cls(path, tuple(segments))

    @property
    def is_static(self) -> bool:
        return all(isinstance(segment, str) for segment in self.segments)

    @property
    def path_format(self) -> str:
        """The path with each parameter as ``{name}``, its converter left out (Starlette's
        ``route.path_format``: what telemetry names a route by)."""
        return _PARAM.sub(r"{\1}", self.path)

    @property
    def params(self) -> tuple[Param, ...]:
        return tuple(segment for segment in self.segments if isinstance(segment, Param))

    @property
    def names(self) -> frozenset[str]:
        """The names of its parameters."""
        return frozenset(param.name for param in self.params)

    def match(self, path: str) -> dict[str, Any] | None:
        """The parameters' values where ``path`` is this template's, converted; else None.
        (The app's matcher matches requests; this is for code that asks of one route.)"""
        parts = path.split("/")[1:] if path.startswith("/") else None
        if parts is None:
            return None
        values: dict[str, Any] = {}
        segments = self.segments
        for index, segment in enumerate(segments):
            if isinstance(segment, Param) and segment.converter.name == "path":
                # What the segments after it leave: the one ':path' parameter takes the rest.
                end = len(parts) - (len(segments) - index - 1)
                if end <= index:  # it takes one segment at least, if an empty one
                    return None
                values[segment.name] = "/".join(parts[index:end])
                parts = [*parts[:index], "", *parts[end:]]
                continue
            if index >= len(parts):
                return None
            part = parts[index]
            if isinstance(segment, str):
                if part != segment:
                    return None
                continue
            value = segment.convert(part)
            if value is NO_MATCH or value == "":
                return None
            values[segment.name] = value
        return values if len(parts) == len(segments) else None

    def format(self, values: Mapping[str, Any], *, keep_missing: bool = False) -> str:
        """The path with each parameter given its value in ``values`` (as Starlette's
        ``url_path_for``: a ``str`` one may hold no ``/``); with ``keep_missing``, one not
        given stays ``{name}``, as Starlette's mount leaves its own."""
        if set(values) != self.names and not (keep_missing and set(values) <= self.names):
            raise KeyError(
                f"{self.path!r} takes the parameters {sorted(self.names)}, not {sorted(values)}"
            )
        parts = [""]
        for segment in self.segments:
            if isinstance(segment, str):
                parts.append(segment)
            elif segment.name in values:
                parts.append(segment.format(values[segment.name]))
            else:
                parts.append(f"{segment.prefix}{{{segment.name}}}{segment.suffix}")
        return "/".join(parts)

    def with_prefix(self, prefix: str) -> PathTemplate:
        """This template under ``prefix`` (a router's, say; it may hold parameters)."""
        if not prefix:
            return self
        if "{" in prefix:
            return PathTemplate.parse(prefix + self.path)
        return PathTemplate(prefix + self.path, (*prefix.split("/")[1:], *self.segments))


def _parse_param(path: str, raw: str) -> Param:
    found = list(_PARAM.finditer(raw))
    prefix = raw[: found[0].start()] if found else ""
    suffix = raw[found[0].end() :] if found else ""
    if len(found) != 1 or "{" in prefix + suffix or "}" in prefix + suffix:
        raise ValueError(
            f"Route path {path!r}: segment {raw!r} must hold one parameter such as "
            "'{name}', '{name:int}' or '{name}.json'"
        )
    name, converter_name = found[0].group(1), found[0].group(2) or "str"
    converter = CONVERTERS.get(converter_name)
    if converter is None:
        known = ", ".join(sorted(CONVERTERS, key=lambda known: CONVERTERS[known].priority))
        raise ValueError(
            f"Route path {path!r}: unknown converter {converter_name!r} (known: {known})"
        )
    if converter.name == "path" and (prefix or suffix):
        raise ValueError(f"Route path {path!r}: a ':path' parameter takes its segments whole")
    return Param(name, converter, prefix, suffix)
