"""The contracts hasten's core speaks: ``async (Request) -> Response``, and the Target a
matched request is handed to."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from .renderers import Renderer
    from .requests import Request
    from .responses import Response

__all__ = ["CallNext", "Handler", "Hook", "Invoke", "Middleware", "Target"]

Handler: TypeAlias = "Callable[[Request], Awaitable[Response]]"
CallNext: TypeAlias = "Callable[[Request], Awaitable[Response]]"
Middleware: TypeAlias = "Callable[[Request, CallNext], Awaitable[Response]]"
Hook: TypeAlias = Callable[[], Awaitable[Any] | Any]
# Runs the handler: the awaitable's result is what the handler returned. It is called with the
# Request when the target takes it, and with nothing otherwise (no Request is then built).
Invoke: TypeAlias = Callable[..., Awaitable[Any]]


class Target:
    """What the router hands a request to: ``render(await invoke(request))`` is its Response,
    and ``send(await invoke(request), transport, head)`` puts the same on the wire; without
    ``takes_request``, ``invoke()`` takes nothing.

    Split in two so that an async handler's own coroutine is the only one awaited for it.
    ``websocket``: it serves WebSocket connections (``invoke(websocket)``).
    """

    __slots__ = ("invoke", "name", "render", "send", "takes_request", "websocket")

    def __init__(self, name: str, invoke: Invoke, renderer: Renderer, takes_request: bool) -> None:
        self.name = name
        self.invoke = invoke
        self.render = renderer.render
        self.send = renderer.send
        self.takes_request = takes_request
        self.websocket = False

    def __repr__(self) -> str:
        return f"<Target {self.name}>"
