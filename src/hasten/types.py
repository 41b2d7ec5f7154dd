"""The contracts hasten's core speaks: ``async (Request) -> Response``, the Target a matched
request is handed to, and what the protocol adapters serve."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

if TYPE_CHECKING:
    from .requests import Request
    from .responses import Response
    from .runtime import Runtime

__all__ = ["CallNext", "Handler", "Hook", "Invoke", "Middleware", "Served", "Target"]

Handler: TypeAlias = "Callable[[Request], Awaitable[Response]]"
CallNext: TypeAlias = "Callable[[Request], Awaitable[Response]]"
Middleware: TypeAlias = "Callable[[Request, CallNext], Awaitable[Response]]"
Hook: TypeAlias = Callable[[], Awaitable[Any] | Any]
# Runs the handler for a request (or a WebSocket): the awaitable's result is what it returned.
Invoke: TypeAlias = Callable[[Any], Awaitable[Any]]
Render: TypeAlias = "Callable[[Any], Response]"


class Target:
    """What the router hands a request to: ``render(await invoke(request))`` is its Response.

    ``websocket``: it serves WebSocket connections (``invoke(websocket)``). ``tag``: how
    observation names its requests (a ``RouteTag``), when the app observes them.
    """

    __slots__ = ("invoke", "name", "render", "tag", "websocket")

    def __init__(self, name: str, invoke: Invoke, render: Render) -> None:
        self.name = name
        self.invoke = invoke
        self.render = render
        self.websocket = False
        self.tag: Any = None

    def __repr__(self) -> str:
        return f"<Target {self.name}>"


class Served(Protocol):
    """What the protocol adapters serve (an App): its runtime once started, and a way to
    start it for a connection that comes first. The adapters know nothing else of it."""

    @property
    def runtime(self) -> Runtime | None: ...

    # ASGI middleware wraps the app: an RSGI connection goes through ``asgi`` too.
    through_asgi: bool
    # The path the app is served under (FastAPI's deprecated ``root_path=``), or ''.
    root_path: str

    @property
    def asgi(self) -> Callable[..., Awaitable[None]]:
        """The app's ASGI callable, with any ASGI middleware around it."""
        ...

    async def start_for(self, path: str) -> Runtime | Response:
        """Start the app for a connection to ``path`` that came before startup: its runtime,
        or the response that refuses the connection (stopping, starting, failed to start)."""
        ...

    async def startup(self) -> None: ...

    async def shutdown(self) -> None: ...
