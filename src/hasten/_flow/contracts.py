"""The contracts hasten's core speaks: ``async (Request) -> Response``, the Target a matched
request is handed to; and ASGI's, by Starlette's names
(``Scope``, ``Message``, ``Receive``, ``Send``, ``ASGIApp``), for ASGI middleware and mounts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

if TYPE_CHECKING:
    from hasten._http.requests import Request
    from hasten._http.responses import Response

__all__ = [
    "ASGIApp",
    "CallNext",
    "Handler",
    "Hook",
    "Instrumentation",
    "Invoke",
    "Message",
    "Middleware",
    "Receive",
    "Scope",
    "Send",
    "Target",
]

# ASGI 3, as Starlette's ``starlette.types`` names it.
Scope: TypeAlias = MutableMapping[str, Any]
Message: TypeAlias = MutableMapping[str, Any]
Receive: TypeAlias = Callable[[], Awaitable[Message]]
Send: TypeAlias = Callable[[Message], Awaitable[None]]
ASGIApp: TypeAlias = Callable[[Scope, Receive, Send], Awaitable[None]]

Handler: TypeAlias = "Callable[[Request], Awaitable[Response]]"
CallNext: TypeAlias = "Callable[[Request], Awaitable[Response]]"
Middleware: TypeAlias = "Callable[[Request, CallNext], Awaitable[Response]]"
Hook: TypeAlias = Callable[[], Awaitable[Any] | Any]
# Runs the handler for a request (or a WebSocket): the awaitable's result is what it returned.
Invoke: TypeAlias = Callable[[Any], Awaitable[Any]]
Render: TypeAlias = "Callable[[Any], Response]"


class Target:
    """What the router hands a request to: ``render(await invoke(request))`` is its Response.

    Two shortcuts that give the same response, for the serve step: ``call``, where set, is
    the handler itself, to be called without arguments (it reads nothing from the request);
    a result whose type is in ``plain`` is sent as ``encode(result)`` with ``status`` and
    ``headers``, without a Response object (``render`` would build exactly that Response).

    ``websocket``: it serves WebSocket connections (``invoke(websocket)``). ``guarded``: its
    requests enter a guard around their dependencies (hasten._params.cleanup_guard). ``tag``: how
    observation names its requests (a ``RouteTag``), when the app observes them. ``route``:
    the route it serves, where one does (``request.scope["route"]``); ``scope_items``, its
    ``route`` and ``endpoint`` as Starlette's scope holds them.
    """

    __slots__ = (
        "call",
        "encode",
        "guarded",
        "headers",
        "invoke",
        "name",
        "plain",
        "render",
        "route",
        "scope_items",
        "status",
        "tag",
        "websocket",
    )

    def __init__(
        self,
        name: str,
        invoke: Invoke,
        render: Render,
        *,
        call: Callable[[], Awaitable[Any]] | None = None,
        plain: frozenset[type] = frozenset(),
        encode: Callable[[Any], bytes] | None = None,
        status: int = 200,
        headers: list[tuple[str, str]] | None = None,
    ) -> None:
        self.name = name
        self.invoke = invoke
        self.render = render
        self.call = call
        self.plain = plain
        self.encode = encode
        self.status = status
        self.headers = headers or []
        self.websocket = False
        self.guarded = False
        self.tag: Any = None
        self.route: Any = None
        # What Starlette's router leaves in the scope for the route: its route and endpoint.
        self.scope_items: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"<Target {self.name}>"


class Instrumentation(Protocol):
    """What wraps a route's steps in its request's OpenTelemetry spans, when the app has
    telemetry on (hasten._observing.tracing): bound once, at startup, around each route's own."""

    def invoke(self, invoke: Invoke, func: Callable[..., Any]) -> Invoke:
        """Reading the request's values and solving the dependencies of handler ``func``."""
        ...

    def endpoint(self, func: Callable[..., Any], on_loop: bool) -> Callable[..., Any]:
        """The handler itself, where it runs (``on_loop``, else on a thread)."""
        ...

    def run(
        self, run: Callable[..., Any], func: Callable[..., Any], around: bool
    ) -> Callable[..., Any]:
        """Handing the handler its values (``around``: it runs in a process or an executor,
        whose wait is its span)."""
        ...

    def render(self, render: Render, func: Callable[..., Any]) -> Render:
        """Rendering the handler's result."""
        ...
