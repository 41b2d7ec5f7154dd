"""The RSGI adapter (Granian's native protocol): scope and protocol object in, the serve step
out. Granian's protocol object is the Transport itself: it already speaks its words."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any

from granian._granian import RSGIProtocolClosed, RSGIProtocolError

from ..backpressure import paced
from ..connection import NO_PATH_PARAMS, ASGICallable, PathParams
from ..datastructures import Address
from ..errors import HTTPError
from ..requests import Reading, Request
from ..websockets import ABNORMAL, NO_STATUS, Message, WebSocket, WebSocketDisconnect
from .bridge import HTTPBridge, WebSocketBridge, asgi_scope

if TYPE_CHECKING:
    from ..app import App
    from ..transport import StreamWriter

__all__ = ["RSGIRequest", "RSGIWebSocket", "serve"]

BROKEN_CHUNKS = "Request body incomplete: its chunked encoding was malformed or cut short"


class RSGIRequest(Request):
    """A Request read from an RSGI scope and protocol object."""

    __slots__ = ("_proto", "_scope")
    _gone = (RSGIProtocolClosed,)

    def __init__(  # perf: slots set directly, without super().__init__
        self, app: App, body_limit: int, scope: Any, proto: Any, path_params: PathParams
    ) -> None:
        self.app = app
        self.path = scope.path  # Granian has percent-decoded it, as ASGI servers do
        self.query_string = scope.query_string
        self.path_params = path_params
        self.method = scope.method
        self._body_limit = body_limit
        self._body = self._headers = self._query = self._cookies = self._state = None
        self._cleanup = self._form = None
        self._forwarded = None
        self._streamed = False
        self._scope = scope
        self._proto = proto

    def _raw_headers(self) -> list[tuple[str, str]]:
        return list(self._scope.headers.items())

    def _header(self, name: str) -> str | None:
        if self._headers is not None:  # built already, or rewritten by ProxyHeadersMiddleware
            return self._headers.get(name)
        value: str | None = self._scope.headers.get(name)  # Granian looks it up in Rust
        return value

    def _read_whole(self) -> Reading:
        # The server holds a Content-Length body to its length: one read is enough.
        reading: Reading = self._proto()
        return reading

    async def _body_chunks(self) -> AsyncIterator[bytes]:
        # The protocol object itself: Granian hands the body over on its (one) __aiter__().
        # Granian (2.8) ends a body with one empty chunk; a chunked body that broke off
        # (malformed, or the client gone) with two, otherwise as if it were whole. Request
        # trailers end with two as well: they cannot be told apart, and are refused too.
        ended = False
        async for chunk in self._proto:
            if ended:
                raise HTTPError(400, BROKEN_CHUNKS)
            if chunk:
                yield chunk
            else:
                ended = True

    def _client_disconnect(self) -> Awaitable[None]:
        done: Awaitable[None] = self._proto.client_disconnect()
        return done

    def _paced(self, writer: StreamWriter) -> StreamWriter:
        # Granian's stream channel is unbounded: hasten.backpressure holds the stream back.
        return paced(writer, self._scope.client, self._scope.server)

    async def call_asgi(
        self, app: ASGICallable, root_path: str, headers: list[tuple[str, str]]
    ) -> None:
        bridge = HTTPBridge(self._proto, headers, self._paced)
        await app(asgi_scope(self._scope, root_path), bridge.receive, bridge.send)

    def _peer(self) -> Address | None:
        return peer(self._scope.client)

    def _scheme(self) -> str:
        return str(self._scope.scheme)


def peer(client: str) -> Address | None:
    """Granian's ``host:port`` (``[::1]:port`` for IPv6) as an Address."""
    host, _, port = client.rpartition(":")
    return Address(host.strip("[]"), int(port)) if port.isdigit() else None


class RSGIWebSocket(WebSocket):
    """A WebSocket over Granian's RSGI protocol.

    RSGI's handshake takes neither a subprotocol nor headers, and its close after the
    handshake sends no code (the client sees 1005) nor reason; before the handshake, closing
    answers with an HTTP status, so a refusal can say 404 or 422.
    """

    __slots__ = ("_proto", "_scope", "_transport")

    def __init__(self, app: App, scope: Any, proto: Any) -> None:
        super().__init__(app, scope.path, scope.query_string, NO_PATH_PARAMS)
        self._scope = scope
        self._proto = proto
        self._transport: Any = None

    def _raw_headers(self) -> list[tuple[str, str]]:
        return list(self._scope.headers.items())

    def _peer(self) -> Address | None:
        return peer(self._scope.client)

    def _scheme(self) -> str:
        return "wss" if self._scope.scheme == "https" else "ws"

    async def call_asgi(
        self, app: ASGICallable, root_path: str, headers: list[tuple[str, str]]
    ) -> None:
        bridge = WebSocketBridge(self._proto)
        await app(asgi_scope(self._scope, root_path), bridge.receive, bridge.send)

    async def _accept(self, subprotocol: str | None, headers: list[tuple[str, str]]) -> None:
        if subprotocol is not None or headers:
            raise RuntimeError(
                "Granian's RSGI cannot send a subprotocol or headers with the WebSocket "
                "handshake: serve the app over ASGI (hasten run --interface asgi) for them"
            )
        self._transport = await self._proto.accept()

    async def _receive(self) -> Message:
        try:
            message = await self._transport.receive()
        except (RSGIProtocolClosed, RSGIProtocolError):
            raise WebSocketDisconnect(ABNORMAL) from None
        if message.kind == 0:  # closed by the client; RSGI does not pass the code on
            raise WebSocketDisconnect(NO_STATUS)
        data: Message = message.data
        return data

    async def _send_text(self, data: str) -> None:
        try:
            await self._transport.send_str(data)
        except (RSGIProtocolClosed, RSGIProtocolError):
            self.connection_state = "closed"
            raise WebSocketDisconnect(ABNORMAL) from None

    async def _send_bytes(self, data: bytes) -> None:
        try:
            await self._transport.send_bytes(data)
        except (RSGIProtocolClosed, RSGIProtocolError):
            self.connection_state = "closed"
            raise WebSocketDisconnect(ABNORMAL) from None

    async def _close(self, code: int, reason: str) -> None:
        self._proto.close(code)

    async def _refuse(self, status: int) -> None:
        self._proto.close(status)


def serve(app: App, scope: Any, proto: Any) -> Awaitable[None]:
    """``App.__rsgi__``: serve one RSGI connection scope."""
    runtime = app.runtime
    if runtime is not None and scope.proto == "http":
        # perf: a plain function handing back the serve step's coroutine (no frame of ours).
        return runtime.serve(scope.method, scope.path, scope, proto, RSGIRequest)
    if scope.proto != "http":
        return _serve_websocket(app, scope, proto)
    return app.serve_before_start(scope.method, scope.path, scope, proto, RSGIRequest)


async def _serve_websocket(app: App, scope: Any, proto: Any) -> None:
    runtime = app.runtime or await app.start_for_request()
    if runtime is None:
        proto.close(503)
        return
    await runtime.serve_websocket(scope.path, RSGIWebSocket(app, scope, proto))


async def serve_through_asgi(app: App, scope: Any, proto: Any) -> None:
    """``App.__rsgi__`` once ASGI middleware wraps the app: every connection goes through
    ``app.asgi`` (the middleware, then the ASGI adapter) over the RSGI → ASGI bridge."""
    if app.runtime is None and await app.start_for_request() is None:
        if scope.proto == "http":
            proto.response_bytes(503, [], b"")
        else:
            proto.close(503)
        return
    bridge: HTTPBridge | WebSocketBridge = (
        HTTPBridge(proto, [], lambda writer: paced(writer, scope.client, scope.server))
        if scope.proto == "http"
        else WebSocketBridge(proto)
    )
    await app.asgi(asgi_scope(scope, ""), bridge.receive, bridge.send)
