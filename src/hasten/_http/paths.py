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
    "Converter",
    "Param",
    "PathTemplate",
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


_EXPRESSION = "{$"  # an OpenAPI runtime expression's start: {$url}, {$request.body.id}
_FLOAT = re.compile(r"[0-9]+(\.[0-9]+)?")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")


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
    matcher takes them itself.
    """

    name: str
    python_type: type[Any]
    convert: Callable[[str], Any] | None
    priority: int  # lower is tried first: the most specific converter wins an overlap


CONVERTERS: Final[dict[str, Converter]] = {
    "int": Converter("int", int, _to_int, 0),
    "float": Converter("float", float, _to_float, 1),
    "uuid": Converter("uuid", uuid.UUID, _to_uuid, 2),
    "str": Converter("str", str, None, 3),
    "path": Converter("path", str, None, 4),  # the rest of the path, slashes included
}

_PARAM = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)(?::([A-Za-z_]+))?\}")


@dataclass(frozen=True, slots=True)
class Param:
    """A ``{name}`` or ``{name:converter}`` segment (``{name}`` converts as ``str``)."""

    name: str
    converter: Converter


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
        raw_segments = path.split("/")[0 if callback else 1 :]
        for raw in raw_segments:
            if ("{" not in raw and "}" not in raw) or raw.startswith(_EXPRESSION):
                segments.append(raw)
                continue
            param = _parse_param(path, raw)
            if param.name in names:
                raise ValueError(f"Route path {path!r} names parameter {param.name!r} twice")
            if param.converter.name == "path" and any(
                isinstance(done, Param) and done.converter.name == "path" for done in segments
            ):
                # One, so that a request's path matches a route in time linear in its length.
                raise ValueError(f"Route path {path!r} has more than one ':path' parameter")
            names.add(param.name)
            segments.append(param)
        return cls(path, tuple(segments))

    @property
    def is_static(self) -> bool:
        return all(isinstance(segment, str) for segment in self.segments)

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
            convert = segment.converter.convert
            value = part if convert is None else convert(part)
            if value is NO_MATCH or value == "":
                return None
            values[segment.name] = value
        return values if len(parts) == len(segments) else None

    def format(self, values: Mapping[str, Any]) -> str:
        """The path with each parameter given its value in ``values`` (as Starlette's
        ``url_path_for``: a ``str`` one may hold no ``/``)."""
        if set(values) != self.names:
            raise KeyError(
                f"{self.path!r} takes the parameters {sorted(self.names)}, not {sorted(values)}"
            )
        parts = [""]
        for segment in self.segments:
            if isinstance(segment, str):
                parts.append(segment)
                continue
            value = str(values[segment.name])
            if segment.converter.name != "path" and ("/" in value or not value):
                raise ValueError(f"Path parameter {segment.name!r} cannot be {value!r}")
            parts.append(value)
        return "/".join(parts)

    def with_prefix(self, prefix: str) -> PathTemplate:
        """This template under ``prefix`` (a router's, say; it may hold parameters)."""
        if not prefix:
            return self
        if "{" in prefix:
            return PathTemplate.parse(prefix + self.path)
        return PathTemplate(prefix + self.path, (*prefix.split("/")[1:], *self.segments))


def _parse_param(path: str, raw: str) -> Param:
    found = _PARAM.fullmatch(raw)
    if found is None:
        raise ValueError(
            f"Route path {path!r}: segment {raw!r} must be a whole parameter such as "
            "'{name}' or '{name:int}'"
        )
    name, converter_name = found.group(1), found.group(2)
    if converter_name is None:
        return Param(name, CONVERTERS["str"])
    converter = CONVERTERS.get(converter_name)
    if converter is None:
        known = ", ".join(CONVERTERS)
        raise ValueError(
            f"Route path {path!r}: unknown converter {converter_name!r} (known: {known})"
        )
    return Param(name, converter)
