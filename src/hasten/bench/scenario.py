"""Scenarios: the requests a run sends, their weights, and the table they expand into.

A request is written ``[METHOD] PATH [weight=N] [body=TEXT | body=@FILE] [header=NAME:VALUE]...``
(split like a shell line, so quote a value that holds spaces). ``{A..B}`` in the path, query or
body is replaced by a whole number drawn from A to B for each entry of the table, e.g.
``GET /items/{1..1000}?page={1..50}``. A TOML scenario lists the same fields::

    [[request]]
    method = "POST"                     # default GET
    path = "/orders"
    weight = 2                          # default 1
    headers = { content-type = "application/json" }
    body = '{"id": {1..100}, "name": "x"}'   # or body_file = "order.json", beside the TOML
"""

from __future__ import annotations

import random
import re
import shlex
import tomllib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "TABLE_SIZE",
    "RequestSpec",
    "RequestTable",
    "ScenarioError",
    "build_table",
    "describe",
    "load_scenario",
    "parse_request",
    "request_line",
]

# Entries in a table with ranges or several requests: enough to spread values and weights,
# small enough to build in milliseconds and to hold in wrk's Lua.
TABLE_SIZE = 4096
_RANGE = re.compile(r"\{(-?\d+)\.\.(-?\d+)\}")
_BODY_RANGE = re.compile(rb"\{(-?\d+)\.\.(-?\d+)\}")
_METHOD = re.compile(r"[A-Z]+")
_TOKEN = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_TOML_KEYS = {"method", "path", "weight", "headers", "body", "body_file"}


class ScenarioError(ValueError):
    """A request or scenario file that cannot be sent as written."""


@dataclass(frozen=True, slots=True)
class RequestSpec:
    """One kind of request of a scenario; ``path`` and ``body`` may hold ``{A..B}`` ranges."""

    path: str
    method: str = "GET"
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not _METHOD.fullmatch(self.method):
            raise ScenarioError(f"method {self.method!r} must be upper-case letters, e.g. GET")
        if not self.path.startswith("/") or any(char.isspace() for char in self.path):
            raise ScenarioError(f"path {self.path!r} must start with / and hold no spaces")
        if not self.weight > 0:
            raise ScenarioError(f"weight must be positive, got {self.weight}")
        for name, value in self.headers:
            if not _TOKEN.fullmatch(name) or "\r" in value or "\n" in value:
                raise ScenarioError(f"header {name}:{value} is not a valid HTTP header")
        bounds = [(m[1], m[2]) for m in _RANGE.finditer(self.path)]
        bounds += [(m[1].decode(), m[2].decode()) for m in _BODY_RANGE.finditer(self.body)]
        for low, high in bounds:
            if int(low) > int(high):
                raise ScenarioError(f"range {{{low}..{high}}} ends before it starts")

    def describe(self) -> str:
        """``METHOD PATH``, with the weight when it is not 1."""
        weight = "" if self.weight == 1 else f" weight={self.weight:g}"
        return f"{self.method} {self.path}{weight}"

    @property
    def varies(self) -> bool:
        """Whether the path or body holds a range."""
        return bool(_RANGE.search(self.path) or _BODY_RANGE.search(self.body))

    def render(self, host: str, rng: random.Random) -> bytes:
        """The raw HTTP/1.1 request, ranges drawn from ``rng``."""
        path = _RANGE.sub(lambda match: str(rng.randint(int(match[1]), int(match[2]))), self.path)
        body = _BODY_RANGE.sub(
            lambda match: str(rng.randint(int(match[1]), int(match[2]))).encode(), self.body
        )
        lines = [f"{self.method} {path} HTTP/1.1", f"Host: {host}"]
        lines += [f"{name}: {value}" for name, value in self.headers]
        if body or self.method in ("POST", "PUT", "PATCH"):
            lines.append(f"Content-Length: {len(body)}")
        return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


@dataclass(frozen=True, slots=True)
class RequestTable:
    """Raw requests, in the order a load generator cycles through them."""

    entries: tuple[bytes, ...]
    samples: tuple[bytes, ...]  # the first entry of each request kind: to check its status

    def __len__(self) -> int:
        return len(self.entries)


def parse_request(text: str, base: Path | None = None) -> RequestSpec:
    """A request from its command-line form; ``body=@FILE`` is read relative to ``base``."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ScenarioError(f"request {text!r}: {exc}") from None
    if not words:
        raise ScenarioError("empty request: write e.g. 'GET /hello'")
    method = "GET" if words[0].startswith("/") else words.pop(0).upper()
    if not words or ("=" in words[0] and not words[0].startswith("/")):
        raise ScenarioError(f"request {text!r} has no path: write e.g. 'GET /hello'")
    path = words.pop(0)
    headers: list[tuple[str, str]] = []
    options: dict[str, Any] = {}
    for word in words:
        key, equals, value = word.partition("=")
        if not equals or key not in ("weight", "body", "header"):
            raise ScenarioError(
                f"request {text!r}: {word!r} is not weight=N, body=TEXT, body=@FILE "
                "or header=NAME:VALUE"
            )
        if key == "header":
            headers.append(_header(value))
        else:
            options[key] = value
    body = _body(options.get("body", ""), base or Path.cwd())
    weight = _weight(options.get("weight", "1"))
    return RequestSpec(path, method, tuple(headers), body, weight)


def load_scenario(path: Path) -> list[RequestSpec]:
    """The ``[[request]]`` tables of a TOML scenario file."""
    try:
        document = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioError(f"cannot read scenario {path}: {exc}") from None
    items = document.get("request")
    if not isinstance(items, list) or not items or set(document) != {"request"}:
        raise ScenarioError(f"{path} must hold [[request]] tables and nothing else")
    return [_from_toml(item, path) for item in items]


def build_table(
    specs: Sequence[RequestSpec], host: str, size: int = TABLE_SIZE, seed: int = 0
) -> RequestTable:
    """Expand ``specs`` into a shuffled table: each kind in proportion to its weight, each
    entry with its own values drawn from the ranges. ``host`` is the Host header."""
    if not specs:
        raise ScenarioError("a scenario needs at least one request")
    rng = random.Random(seed)
    if len(specs) == 1 and not specs[0].varies:
        size = 1
    counts = _apportion([spec.weight for spec in specs], size)
    kinds = [index for index, count in enumerate(counts) for _ in range(count)]
    rng.shuffle(kinds)
    entries = tuple(specs[kind].render(host, rng) for kind in kinds)
    samples = tuple(entries[kinds.index(kind)] for kind in range(len(specs)))
    return RequestTable(entries, samples)


def request_line(raw: bytes) -> str:
    """The first line of a raw request, e.g. ``GET /items/7 HTTP/1.1``."""
    return raw.split(b"\r\n", 1)[0].decode("latin-1")


def _apportion(weights: Sequence[float], size: int) -> list[int]:
    """Split ``size`` in proportion to ``weights`` (largest remainder), at least 1 each."""
    size = max(size, len(weights))
    total = sum(weights)
    exact = [weight / total * size for weight in weights]
    counts = [max(1, int(share)) for share in exact]
    by_remainder = sorted(range(len(weights)), key=lambda i: exact[i] - counts[i], reverse=True)
    for index in by_remainder[: max(0, size - sum(counts))]:
        counts[index] += 1
    return counts


def _header(value: str) -> tuple[str, str]:
    name, colon, content = value.partition(":")
    if not colon or not name:
        raise ScenarioError(f"header {value!r} must look like NAME:VALUE")
    return name.strip(), content.strip()


def _body(value: str, base: Path) -> bytes:
    if not value.startswith("@"):
        return value.encode()
    file = base / value[1:]
    try:
        return file.read_bytes()
    except OSError as exc:
        raise ScenarioError(f"cannot read body file {file}: {exc.strerror or exc}") from None


def _weight(value: object) -> float:
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        try:
            return float(value)
        except ValueError:
            pass
    raise ScenarioError(f"weight {value!r} is not a number")


def _from_toml(item: object, path: Path) -> RequestSpec:
    if not isinstance(item, dict) or "path" not in item or set(item) - _TOML_KEYS:
        raise ScenarioError(
            f"{path}: each [[request]] needs a path and may have only {sorted(_TOML_KEYS)}"
        )
    if "body" in item and "body_file" in item:
        raise ScenarioError(f"{path}: a request has body or body_file, not both")
    body = _body("@" + str(item["body_file"]), path.parent) if "body_file" in item else b""
    headers = _toml_headers(item.get("headers", {}), path)
    return RequestSpec(
        str(item["path"]),
        str(item.get("method", "GET")).upper(),
        headers,
        str(item["body"]).encode() if "body" in item else body,
        _weight(item.get("weight", 1)),
    )


def _toml_headers(headers: object, path: Path) -> tuple[tuple[str, str], ...]:
    if not isinstance(headers, Mapping):
        raise ScenarioError(f"{path}: headers must be a table, e.g. {{ accept = 'text/plain' }}")
    return tuple((str(name), str(value)) for name, value in headers.items())


def describe(specs: Iterable[RequestSpec]) -> str:
    """The scenario in one line, e.g. ``GET /hello, POST /orders weight=2``."""
    return ", ".join(spec.describe() for spec in specs)
