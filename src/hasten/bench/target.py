"""Targets: what a run measures, an app to serve or the URL of a running server.

Written ``[LABEL=]MODULE:APP[@SERVER[/INTERFACE]]`` (e.g. ``fast=benchmarks.apps.x:app@uvicorn``
or ``pkg.main:app@granian/asgi``) or ``[LABEL=]http://HOST:PORT[/PATH]``.
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from ..servers import INTERFACES, Interface, ServerName

__all__ = [
    "AppTarget",
    "Target",
    "TargetError",
    "UrlTarget",
    "distinct_labels",
    "parse_target",
]

_LABEL = re.compile(r"[\w.+-]+")
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")


class TargetError(ValueError):
    """A target written in a form that cannot be served or reached."""


@dataclass(frozen=True, slots=True)
class AppTarget:
    """An app that each round serves afresh on a free port."""

    label: str
    app: str
    server: ServerName
    interface: Interface
    workers: int

    def describe(self) -> str:
        """``server/interface``, e.g. ``granian/rsgi``."""
        return f"{self.server}/{self.interface}"


@dataclass(frozen=True, slots=True)
class UrlTarget:
    """A server that is already running; its process tree is sampled only with a pid."""

    label: str
    host: str
    port: int
    path: str
    pid: int | None

    def describe(self) -> str:
        """``url``, with the pid when there is one."""
        return "url" if self.pid is None else f"url, pid {self.pid}"


Target = AppTarget | UrlTarget


def parse_target(
    text: str,
    *,
    server: ServerName = "granian",
    interface: Interface | None = None,
    workers: int = 1,
    pid: int | None = None,
) -> Target:
    """A target from its written form; the keywords apply where the text does not say."""
    label, _, spec = text.partition("=") if _has_label(text) else ("", "", text)
    if label and not _LABEL.fullmatch(label):
        raise TargetError(f"label {label!r} may hold only letters, digits and . _ + -")
    if spec.startswith(("http://", "https://")):
        return _url_target(label, spec, pid)
    app, _, how = spec.partition("@")
    module, colon, attribute = app.partition(":")
    if not (colon and _DOTTED.fullmatch(module) and _DOTTED.fullmatch(attribute)):
        raise TargetError(
            f"target {text!r} must look like [LABEL=]MODULE:APP[@SERVER[/INTERFACE]] "
            "or [LABEL=]http://HOST:PORT/PATH"
        )
    chosen_server, chosen_interface = _server_and_interface(how, server, interface)
    default_label = module.rpartition(".")[2] + ("" if attribute == "app" else f":{attribute}")
    return AppTarget(label or default_label, app, chosen_server, chosen_interface, workers)


def distinct_labels(targets: Sequence[Target]) -> list[Target]:
    """``targets`` with labels made unique: the server first, then a number, is appended."""
    result = list(targets)
    for suffix in (_server_suffix, _number_suffix):
        counts = Counter(target.label for target in result)
        seen: Counter[str] = Counter()
        for index, target in enumerate(result):
            if counts[target.label] > 1:
                seen[target.label] += 1
                label = target.label + suffix(target, seen[target.label])
                result[index] = dataclasses.replace(target, label=label)
    return result


def _has_label(text: str) -> bool:
    head, equals, _ = text.partition("=")
    return bool(equals) and ":" not in head and "/" not in head


def _server_and_interface(
    how: str, server: ServerName, interface: Interface | None
) -> tuple[ServerName, Interface]:
    name, _, wanted = how.partition("/")
    chosen = next((each for each in INTERFACES if each == (name or server)), None)
    if chosen is None:
        raise TargetError(f"server {name!r} is not one of {', '.join(INTERFACES)}")
    speaks = INTERFACES[chosen]
    if not wanted:
        return chosen, interface if interface in speaks else speaks[0]
    asked = next((each for each in speaks if each == wanted), None)
    if asked is None:
        raise TargetError(f"{chosen} speaks {' or '.join(speaks)}, not {wanted!r}")
    return chosen, asked


def _url_target(label: str, url: str, pid: int | None) -> UrlTarget:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise TargetError(f"URL {url!r} must be http://HOST[:PORT][/PATH] (no https)")
    try:
        port = parts.port or 80
    except ValueError:
        raise TargetError(f"URL {url!r} has an invalid port") from None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return UrlTarget(label or f"{parts.hostname}:{port}", parts.hostname, port, path, pid)


def _server_suffix(target: Target, _: int) -> str:
    return f"@{target.describe()}" if isinstance(target, AppTarget) else ""


def _number_suffix(_: Target, number: int) -> str:
    return f"#{number}"
