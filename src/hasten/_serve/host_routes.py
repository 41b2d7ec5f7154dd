"""Starlette's ``Host``: an app served for the requests to a host name.

``Host("api.example.com", app=api)``, or ``Host("{tenant}.example.com", app=site)`` whose
parameters the app finds in its scope's ``path_params``. Like a frontend, a router's hosts
are tried where no other route of the app serves the path, in the order registered: the
first whose name matches the request's ``Host`` (in any case, the ports of both left out)
gets the request, with its path as it came; none, a 404. The app is served over ASGI, as a
mount's is. WebSocket connections do not reach a host's app (a mount's do).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hasten._flow.contracts import Target
from hasten._http.datastructures import URLPath
from hasten._http.errors import HTTPError
from hasten._http.hosts import host_port
from hasten._http.paths import PathTemplate
from hasten._http.requests import Request
from hasten._serve.mounts import MountEndpoint, MountResponse, with_path_params
from hasten._serve.routes import ASGI_METHODS, AppRoute, BaseRoute, Match

__all__ = ["Host"]

# The longest name DNS allows (RFC 1035), with room for a trailing dot.
_LONGEST_NAME = 254
# A port at the end of a host pattern.
_PORT = re.compile(r":[0-9]+$")
# A host pattern's parameter, with Starlette's converters.
_PARAMETER = re.compile(r"{([a-zA-Z_][a-zA-Z0-9_]*)(?::([a-zA-Z_][a-zA-Z0-9_]*))?}")
_CONVERTERS: dict[str, tuple[str, Callable[[str], Any]]] = {
    "str": ("[^/]+", str),
    "path": (".*", str),
    "int": ("[0-9]+", int),
    "float": (r"[0-9]+(?:\.[0-9]+)?", float),
    "uuid": (
        "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}",
        uuid.UUID,
    ),
}


@dataclass(frozen=True, slots=True, init=False)
class Host(AppRoute):
    """Starlette's ``Host(host, app, name=None)``: ``app`` (any ASGI app) serves the
    requests whose ``Host`` header names ``host``, a pattern that may hold parameters."""

    low_priority = True

    host: str = field(default="", compare=False)
    # The router's hosts, in order, this one among them: what its requests are tried on.
    group: list[Host] = field(default_factory=list, compare=False, repr=False)

    def __repr__(self) -> str:
        name = self.compiled.options.name or ""
        return f"{type(self).__name__}(host={self.host!r}, name={name!r}, app={self.app!r})"

    def __init__(self, *args: Any, host: str = "", group: list[Host] | None = None, **kwargs: Any):
        if args and isinstance(args[0], str):  # Starlette's form: (host, app, name=None)
            host, app, name = _by_hand(*args, **kwargs)
            args, kwargs = (PathTemplate.parse("/"), ASGI_METHODS, MountEndpoint(app, name)), {}
        BaseRoute.__init__(self, *args, **kwargs)
        _pattern(host)  # a pattern it cannot read is an error now
        object.__setattr__(self, "host", host)
        object.__setattr__(self, "group", [self] if group is None else group)

    @property
    def path(self) -> str:
        # Starlette's Host has no path: the paths of the routes under it are theirs whole.
        return ""

    @property
    def label(self) -> str:
        return f"HOST {self.host}"

    def host_values(self, hostname: str) -> dict[str, Any] | None:
        """The host parameters' values where ``hostname`` is this host's; else None."""
        if len(hostname) > _LONGEST_NAME:  # no host's; and a pattern's time stays short
            return None
        pattern, converters = _pattern(self.host)
        found = pattern.fullmatch(hostname.lower())  # DNS names are in any case: as Starlette
        if found is None:
            return None
        return {name: converters[name](value) for name, value in found.groupdict().items()}

    def matches(self, scope: Mapping[str, Any]) -> tuple[Match, dict[str, Any]]:
        """Starlette's: any connection to this host, with the app's scope."""
        if scope.get("type") not in ("http", "websocket"):
            return Match.NONE, {}
        raw = dict(scope.get("headers", ())).get(b"host", b"")
        hostname = _hostname(raw.decode("latin-1"))
        values = None if hostname is None else self.host_values(hostname)
        if values is None:
            return Match.NONE, {}
        path_params = {**scope.get("path_params", {}), **values}
        return Match.FULL, {"path_params": path_params, "endpoint": self.app}

    def url_path(self, values: Mapping[str, Any]) -> str | None:
        """``path`` (the path on the host), when the other values are the host's: a
        URLPath that names the host, for ``make_absolute_url``."""
        if "path" not in values or set(values) - {"path"} != self.own_names():
            return None
        return URLPath(str(values["path"]), host=self.host_of(values))

    def inner_path(self, name: str, values: Mapping[str, Any]) -> str | None:
        path = AppRoute.inner_path(self, name, values)
        if path is None:
            return None
        return URLPath(path, getattr(path, "protocol", ""), self.host_of(values))

    def host_of(self, values: Mapping[str, Any]) -> str:
        """The host this route names, its parameters given ``values`` (Starlette's)."""
        return _PARAMETER.sub(
            lambda found: str(values.get(found.group(1), f"{{{found.group(1)}}}")), self.host
        )

    def own_names(self) -> frozenset[str]:
        return frozenset(_pattern(self.host)[1])

    def prefix_of(self, values: Mapping[str, Any]) -> str:
        return ""  # the host is the URLPath's, not the path's

    def _target(self, bound: Target) -> Target:
        group = self.group

        async def to_host(request: Request) -> MountResponse:
            hostname = _hostname(request.headers.get("host") or "")
            for host in group:
                values = None if hostname is None else host.host_values(hostname)
                if values is not None:
                    app = with_path_params(host.app, values)
                    return MountResponse(app, request.root_path)
            raise HTTPError(404, "Not Found")

        target = Target(bound.name, to_host, bound.render)
        target.guarded = bound.guarded
        return target


def _hostname(header: str) -> str | None:
    """The host a Host header names, its port left out (a host is matched whatever port
    the client wrote, as in Starlette); None where the header is not a host, with digits
    for a port if it has one."""
    colon = header.find(":", header.rfind("]") + 1)  # the port's: after an IPv6 literal
    host, port = (header, "") if colon < 0 else (header[:colon], header[colon + 1 :])
    if port and not (port.isascii() and port.isdigit()):
        return None
    try:
        host_port(host)
    except HTTPError:
        return None
    return host


def _by_hand(host: str, app: Any, name: str | None = None) -> tuple[str, Any, str | None]:
    return host, app, name


_patterns: dict[str, tuple[re.Pattern[str], dict[str, Callable[[str], Any]]]] = {}


def _pattern(host: str) -> tuple[re.Pattern[str], dict[str, Callable[[str], Any]]]:
    """A host pattern's regular expression and its parameters' converters, made once."""
    made = _patterns.get(host)
    if made is None:
        expression, converters, start = "", {}, 0
        for found in _PARAMETER.finditer(host):
            name, kind = found.group(1), found.group(2) or "str"
            if kind not in _CONVERTERS:
                raise ValueError(f"Host {host!r}: unknown converter {kind!r}")
            if name in converters:
                raise ValueError(f"Host {host!r} names parameter {name!r} twice")
            regex, converters[name] = _CONVERTERS[kind]
            expression += re.escape(host[start : found.start()]) + f"(?P<{name}>{regex})"
            start = found.end()
        # A port in the pattern is left out, as the request's is; names match in any case.
        expression += re.escape(_PORT.sub("", host[start:]))
        made = _patterns[host] = (re.compile(expression, re.IGNORECASE), converters)
    return made
