"""Class-based endpoints, as Starlette's ``starlette.endpoints``: a method per HTTP method, or
callbacks for a WebSocket's connection, messages and disconnection.

    class Users(HTTPEndpoint):
        async def get(self, request): ...
        def post(self, request): ...       # a sync method runs on the thread pool

    app.add_route("/users", Users)         # or Route("/users", Users)

Each is an ASGI app: the class is called with ``(scope, receive, send)`` and awaited.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Generator, Mapping
from typing import Any, ClassVar, Literal

from hasten._flow.contracts import Receive, Scope, Send
from hasten._http.errors import HTTPException
from hasten._http.requests import Request
from hasten._http.responses import PlainTextResponse, Response
from hasten._http.websockets import WebSocket
from hasten._running.concurrency import run_in_threadpool
from hasten.status import WS_1003_UNSUPPORTED_DATA

__all__ = ["HTTPEndpoint", "WebSocketEndpoint"]

_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "QUERY")


class HTTPEndpoint:
    """An ASGI app answering each HTTP method with the method of that name (``get``,
    ``post``, ...; HEAD with ``get`` unless it has ``head``); 405 for the others."""

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        self.scope, self.receive, self.send = scope, receive, send
        # HEAD is answered by ``get`` where there is no ``head``.
        self._allowed_methods = [
            m
            for m in _METHODS
            if getattr(self, m.lower(), None) or (m == "HEAD" and getattr(self, "get", None))
        ]

    def __await__(self) -> Generator[Any, None, None]:
        return self.dispatch().__await__()

    async def dispatch(self) -> None:
        request = Request(self.scope, receive=self.receive, send=self.send)
        method = request.method.lower()
        name = "get" if method == "head" and not hasattr(self, "head") else method
        # Only a method's own name: ``_do_delete`` or ``dispatch`` is no HTTP method.
        known = request.method in _METHODS
        handler = getattr(self, name, None) if known else None
        handler = handler or self.method_not_allowed
        if inspect.iscoroutinefunction(handler):
            response = await handler(request)
        else:
            response = await run_in_threadpool(handler, request)
        await response(self.scope, self.receive, self.send)

    async def method_not_allowed(self, request: Request) -> Response:
        headers = {"Allow": ", ".join(self._allowed_methods)}
        if "app" in self.scope:  # inside an app: its exception handlers answer
            raise HTTPException(status_code=405, headers=headers)
        return PlainTextResponse("Method Not Allowed", status_code=405, headers=headers)


class WebSocketEndpoint:
    """An ASGI app for a WebSocket: ``on_connect`` (accepts), ``on_receive`` for each
    message, decoded by ``encoding`` ("text", "bytes", "json" or None: as it came), and
    ``on_disconnect`` with the close code."""

    encoding: ClassVar[Literal["text", "bytes", "json"] | None] = None

    def __init__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "websocket"
        self.scope, self.receive, self.send = scope, receive, send

    def __await__(self) -> Generator[Any, None, None]:
        return self.dispatch().__await__()

    async def dispatch(self) -> None:
        await self.run(WebSocket(self.scope, receive=self.receive, send=self.send))

    @classmethod
    async def serve_session(cls, websocket: WebSocket) -> None:
        """Serve ``websocket``, a connection hasten has already (a route's)."""
        endpoint = cls.__new__(cls)
        await endpoint.run(websocket)

    async def run(self, websocket: WebSocket) -> None:
        """The session: connect, receive until the client disconnects, disconnect."""
        await self.on_connect(websocket)
        close_code = 1000
        try:
            while True:
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    close_code = message.get("code") or 1000
                    break
                await self.on_receive(websocket, await self.decode(websocket, message))
        except Exception:
            close_code = 1011
            raise
        finally:
            await self.on_disconnect(websocket, close_code)

    async def decode(self, websocket: WebSocket, message: Mapping[str, Any]) -> Any:
        """A ``websocket.receive`` message's data as ``encoding`` asks (None: its text or
        bytes, as they came); a message of the other kind, or JSON that is not, closes the
        connection with 1003."""
        text, data = message.get("text"), message.get("bytes")
        if self.encoding == "text":
            if text is None:
                await websocket.close(code=WS_1003_UNSUPPORTED_DATA)
                raise RuntimeError("Expected text websocket messages, but got bytes")
            return text
        if self.encoding == "bytes":
            if data is None:
                await websocket.close(code=WS_1003_UNSUPPORTED_DATA)
                raise RuntimeError("Expected bytes websocket messages, but got text")
            return data
        if self.encoding == "json":
            try:
                return json.loads(text if text is not None else data or b"")
            except (json.JSONDecodeError, UnicodeDecodeError):
                await websocket.close(code=WS_1003_UNSUPPORTED_DATA)
                raise RuntimeError("Malformed JSON data received.") from None
        return text if text is not None else data

    async def on_connect(self, websocket: WebSocket) -> None:
        """Override to handle an incoming connection; this one accepts it."""
        await websocket.accept()

    async def on_receive(self, websocket: WebSocket, data: Any) -> None:
        """Override to handle an incoming message."""

    async def on_disconnect(self, websocket: WebSocket, close_code: int) -> None:
        """Override to handle a disconnection."""
