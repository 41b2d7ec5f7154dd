"""Mounts: another ASGI app, or static files, served under a path prefix.

A mount is two routes in the one matcher: the prefix itself and ``prefix/{path:path}``, a
catch-all tried after every other route (so it costs the app's other routes nothing, and an
app route under the prefix still wins). A prefix may hold parameters (``/tenants/{tenant}``):
the mounted app finds their values in its scope's ``path_params``, as under Starlette's Mount.
An ASGI app gets the connection with ``root_path`` set to the prefix: under ASGI servers the
server's own ``receive`` and ``send``; under Granian RSGI a bridge (``protocols/bridge.py``)
that gives the mounted app the same messages, files through Granian's ``response_file``
(``http.response.pathsend``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from hasten._flow.contracts import ASGIApp, Target
from hasten._flow.transport import Outbound
from hasten._http.connection import MOUNT_PATH, Connection, mounting
from hasten._http.paths import PathTemplate
from hasten._http.requests import Request
from hasten._http.responses import Response
from hasten._http.websockets import WebSocket
from hasten._params.endpoints import Endpoint, RouteOptions, RunsOn
from hasten._params.renderers import Renderer

if TYPE_CHECKING:
    from hasten._flow.context import ServeContext
    from hasten._params.dependencies import AppDependencies
    from hasten._params.markers import Dependency
    from hasten._running.pools import Pools

__all__ = [
    "ASGIApp",
    "MountEndpoint",
    "MountResponse",
    "Mountable",
    "given_path_params",
    "is_native",
    "serve_websocket",
    "with_path_params",
]


class Mountable(Protocol):
    """What hasten serves natively under a prefix (``StaticFiles``), without ASGI."""

    methods: frozenset[str]

    async def respond(self, request: Request, path: str) -> Response:
        """The response for ``path``, the part of the request's path after the prefix."""
        ...


class MountResponse(Response):
    """The mounted ASGI app's response: it is the app that sends it. Headers a middleware
    sets on it are added to the app's own."""

    __slots__ = ("asgi_app", "root_path")

    def __init__(self, asgi_app: ASGIApp, root_path: str) -> None:
        super().__init__()
        self.asgi_app = asgi_app
        self.root_path = root_path

    def __repr__(self) -> str:
        return f"<MountResponse {self.root_path}>"

    async def send(self, outbound: Outbound, request: Request) -> None:
        extra = self.wire_headers if self._headers is not None else []
        token = mounting.set(request)
        try:
            await request.call_asgi(self.asgi_app, self.root_path, extra, outbound)
        finally:
            mounting.reset(token)


_AS_IS = Renderer(200)


class MountEndpoint(Endpoint):
    """The endpoint of a mount: what ``hasten routes`` shows, and the target it serves."""

    __slots__ = ("mounted",)

    def __init__(self, mounted: ASGIApp | Mountable, name: str | None = None) -> None:
        # Nothing to describe or extract: the mounted app reads the request itself.
        self.mounted = mounted
        self.func: Any = mounted.respond if is_native(mounted) else mounted  # type: ignore[union-attr]
        # It documents itself, if at all; ``name``: what url_for calls it.
        self.options = RouteOptions(name=name, include_in_schema=False)
        self.name = f"mount {type(mounted).__module__}.{type(mounted).__qualname__}"
        self.parameters = ()
        self.renderer = _AS_IS

    def under(self, template: PathTemplate, options: RouteOptions | None = None) -> MountEndpoint:
        # The mounted app reads its path itself, and documents itself; the body limit of the
        # routers it is included through is its too (FastAPI's), their dependencies are not.
        limit = None if options is None else options.max_body_size
        if limit == self.options.max_body_size:
            return self
        under = MountEndpoint(self.mounted, self.options.name)
        under.options = dataclasses.replace(self.options, max_body_size=limit)
        return under

    @property
    def runs_on(self) -> RunsOn:
        return "event loop"

    def bind(
        self,
        pools: Pools,
        label: str,
        dependencies: Sequence[Dependency] = (),
        app: AppDependencies | None = None,
        context: ServeContext | None = None,
        *,
        websocket: bool = False,
    ) -> Target:
        # As in FastAPI, a router's dependencies are not given to the apps mounted on it; its
        # body limit (else the app's) is, but to a hasten app, which holds bodies to its own.
        mounted: Any = self.mounted
        if is_native(mounted):
            return Target(self.name, _native(mounted), _AS_IS.render)
        limited = None
        if context is not None and not _limits_itself(mounted):
            limited = context.of_route(self.options.max_body_size, {}, None)
        return Target(self.name, _asgi(mounted, limited), _AS_IS.render)


def is_native(mounted: object) -> bool:
    return hasattr(mounted, "respond") and hasattr(mounted, "methods")


def _native(mounted: Mountable) -> Callable[[Request], Awaitable[Response]]:
    def respond(request: Request) -> Awaitable[Response]:
        return mounted.respond(request, request.path_params.get(MOUNT_PATH, ""))

    return respond


def _prefix(connection: Connection) -> str:
    """The part of the connection's path the mount matched: the path without what follows."""
    path = connection.path
    rest = connection.path_params.get(MOUNT_PATH)
    # The prefix itself matched: all of it, but a mount at "/" adds nothing to the root path.
    return path.rstrip("/") if rest is None else path[: len(path) - len(rest) - 1]


def given_path_params(mounted: ASGIApp, connection: Connection) -> ASGIApp:
    """``mounted``, given the values of its prefix's parameters (``/tenants/{tenant}``) in
    its scope's ``path_params``, as Starlette's Mount gives them."""
    values = {name: value for name, value in connection.path_params.items() if name != MOUNT_PATH}
    return with_path_params(mounted, values)


def with_path_params(app: ASGIApp, values: dict[str, Any]) -> ASGIApp:
    """``app``, given ``values`` in its scope's ``path_params`` (a mount's or a host's); a
    hasten app's requests find them in their ``path_params`` too, as in Starlette."""
    if not values:
        return app
    under_params = getattr(app, "serve_under_path_params", app)

    async def given(scope: Any, receive: Any, send: Any) -> None:
        scope["path_params"] = {**scope.get("path_params", {}), **values}
        await under_params(scope, receive, send)

    return given


def _limits_itself(mounted: object) -> bool:
    """Whether the mounted app is a hasten app, whose settings limit every body it reads."""
    return hasattr(mounted, "__rsgi__") and hasattr(mounted, "settings")


def _held_to(mounted: ASGIApp, limit: int) -> ASGIApp:
    """``mounted``, its request body held to ``limit`` bytes as it reads it."""

    async def held(scope: Any, receive: Any, send: Any) -> None:
        await _HeldBody(limit, receive, send).run(mounted, scope)

    return held


class _HeldBody:
    """One request's body held to ``limit`` as a mounted app reads it: past it, the client
    gets hasten's 413 (if the app has not begun its response) and the app a disconnect;
    whatever it then sends or raises is the client's no more."""

    __slots__ = ("_receive", "_send", "limit", "received", "refused", "started")

    def __init__(self, limit: int, receive: Any, send: Any) -> None:
        self.limit = limit
        self._receive = receive
        self._send = send
        self.received = 0
        self.refused = False
        self.started = False

    async def run(self, mounted: ASGIApp, scope: Any) -> None:
        try:
            await mounted(scope, self.receive, self.send)
        except Exception:
            if not self.refused:
                raise  # the app's own failure: the mount's to report

    async def receive(self) -> Any:
        if self.refused:
            return _DISCONNECT
        message = await self._receive()
        if message["type"] == "http.request":
            self.received += len(message.get("body", b""))
            if self.received > self.limit:
                self.refused = True
                if not self.started:
                    await _send_too_large(self._send, self.limit)
                return _DISCONNECT
        return message

    async def send(self, message: Any) -> None:
        if not self.refused:
            self.started = True
            await self._send(message)


_DISCONNECT = {"type": "http.disconnect"}


async def _send_too_large(send: Any, limit: int) -> None:
    body = msgspec.json.encode({"detail": f"Request body exceeds the limit of {limit} bytes"})
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _asgi(
    mounted: ASGIApp, limited: ServeContext | None = None
) -> Callable[[Connection], Awaitable[Any]]:
    async def forward(connection: Connection) -> Any:
        root_path = connection.root_path + _prefix(connection)
        mounted_here = given_path_params(mounted, connection)
        if limited is not None and isinstance(connection, Request):
            # Held to the mount's limit: a Content-Length over it is a 413 now, a body a
            # middleware read already too; one without is counted as the app reads it.
            connection.enter_route(limited)
            connection._allowed_length()
            mounted_here = _held_to(mounted_here, limited.body_limit)
        if isinstance(connection, WebSocket):
            await serve_websocket(connection, mounted_here, root_path)
            return None
        return MountResponse(mounted_here, root_path)

    return forward


async def serve_websocket(connection: WebSocket, app: ASGIApp, root_path: str) -> None:
    """``app`` serves the WebSocket connection over ASGI, and ends it."""
    token = mounting.set(connection)
    try:
        await connection.call_asgi(app, root_path, [], None)
    finally:
        mounting.reset(token)
    connection.connection_state = "closed"  # the app ended it
