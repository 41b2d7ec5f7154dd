"""The ASGI 3 adapter: HTTP and lifespan scopes in, Response out."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import TYPE_CHECKING, Any

from ..datastructures import Address
from ..errors import HTTPError
from ..requests import Request

if TYPE_CHECKING:
    from ..app import App

__all__ = ["ASGIRequest", "serve"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class ClientDisconnected(HTTPError):
    """The client went away while its body was being read."""

    def __init__(self) -> None:
        super().__init__(400, "Client disconnected while sending the body")


class ASGIRequest(Request):
    """A Request read from an ASGI scope and ``receive`` channel."""

    __slots__ = ("_receive", "_scope")

    def __init__(
        self, app: App, scope: Scope, receive: Receive
    ) -> None:  # perf: slots set directly
        self.app = app
        self.method = scope["method"]
        self.path = scope["path"]
        self.query_string = scope["query_string"].decode("latin-1")
        self.path_params = {}
        self._headers = self._query = self._cookies = self._body = None
        self._scope = scope
        self._receive = receive

    def _raw_headers(self) -> list[tuple[str, str]]:
        return [
            (name.decode("latin-1"), value.decode("latin-1"))
            for name, value in self._scope["headers"]
        ]

    async def _body_chunks(self) -> AsyncIterator[bytes]:
        more_body = True
        while more_body:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnected
            more_body = message.get("more_body", False)
            chunk = message.get("body", b"")
            if chunk:
                yield chunk

    @property
    def client(self) -> Address | None:
        client = self._scope.get("client")
        # int(): Granian's ASGI scope carries the port as a string.
        return Address(client[0], int(client[1])) if client else None

    @property
    def scheme(self) -> str:
        return str(self._scope.get("scheme", "http"))


async def serve(app: App, scope: Scope, receive: Receive, send: Send) -> None:
    """``App.__call__``: serve one ASGI scope."""
    kind = scope["type"]
    if kind == "http":
        await _serve_http(app, scope, receive, send)
    elif kind == "lifespan":
        await _serve_lifespan(app, receive, send)
    else:
        # WebSockets are not served yet: refuse the handshake instead of hanging.
        await send({"type": "websocket.close", "code": 1003})


async def _serve_http(app: App, scope: Scope, receive: Receive, send: Send) -> None:
    request = ASGIRequest(app, scope, receive)
    response = await app.respond(request)
    body = response.body
    headers = [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in response.raw_headers
    ]
    headers.append((b"content-length", str(len(body)).encode()))
    await send({"type": "http.response.start", "status": response.status, "headers": headers})
    if scope["method"] == "HEAD":
        body = b""
    await send({"type": "http.response.body", "body": body})


async def _serve_lifespan(app: App, receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            try:
                await app.startup()
            except Exception as exc:
                await send({"type": "lifespan.startup.failed", "message": repr(exc)})
                return
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            try:
                await app.shutdown()
            except Exception as exc:
                await send({"type": "lifespan.shutdown.failed", "message": repr(exc)})
                return
            await send({"type": "lifespan.shutdown.complete"})
            return
