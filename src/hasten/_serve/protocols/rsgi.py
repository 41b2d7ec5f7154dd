"""The RSGI adapter (Granian's native protocol): scope and protocol object in, the serve step
out. Granian's protocol object is both transports: it already speaks their words."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Sequence
from typing import TYPE_CHECKING, Any

from granian.rsgi import ProtocolClosed, ProtocolError

from hasten._flow.backpressure import paced
from hasten._flow.context import UNSERVED
from hasten._http.connection import ASGICallable
from hasten._http.datastructures import Address, Headers
from hasten._http.errors import HTTPError
from hasten._http.paths import under_root
from hasten._http.requests import Request
from hasten._http.responses import Response
from hasten._http.websockets import (
    ABNORMAL,
    NO_STATUS,
    NORMAL,
    Message,
    WebSocket,
    WebSocketDisconnect,
)
from hasten._serve.protocols.bridge import HTTPBridge, WebSocketBridge, asgi_scope

if TYPE_CHECKING:
    from hasten._flow.transport import StreamWriter
    from hasten._serve.protocols import Served

__all__ = ["RSGIRequest", "RSGIWebSocket", "serve", "serve_through_asgi"]

logger = logging.getLogger("hasten.websocket")
_new = object.__new__
BROKEN_CHUNKS = "Request body incomplete: its chunked encoding was malformed or cut short"


class RSGIScope:
    """What a connection reads of Granian's RSGI scope, for its Request and its WebSocket
    alike."""

    _scope: Any
    root_path: str

    def _query_string(self) -> str:
        query: str = self._scope.query_string
        return query

    def _raw_headers(self) -> list[tuple[str, str]]:
        items: list[tuple[str, str]] = self._scope.headers.items()
        return items

    def _headers_of(self, items: list[tuple[str, str]]) -> Headers:
        return headers_of(self._scope.headers, items)

    def _peer(self) -> Address | None:
        return peer(self._scope.client)

    def _asgi_scope(self) -> dict[str, Any]:
        return asgi_scope(self._scope, self.root_path)


class RSGIRequest(RSGIScope, Request):
    """A Request read from an RSGI scope and protocol object."""

    _gone = (ProtocolClosed,)
    # Granian drops a Content-Length sent with Transfer-Encoding before the app sees it
    # (tests/servers/hostile/test_granian.py): no request of its has both to refuse.
    _may_have_both_lengths = False

    def _header(self, name: str) -> str | None:
        if self._headers is not None:  # built already, or rewritten by ProxyHeadersMiddleware
            return self._headers.get(name)
        headers = self._scope.headers
        value: str | None = headers.get(name)  # Granian looks it up in Rust
        if value is None and name in headers:
            raise _unreadable(name)
        return value

    def _app_header(self, name: str) -> str | None:
        if self._headers is None:
            headers = self._scope.headers
            # perf: looked up in Rust, without ``headers`` built; the limit counted as
            # ``headers`` counts it (every line: Granian's len() counts names).
            if len(headers.items()) <= self.context.max_headers:
                value: str | None = headers.get(name)
                if value is None and name in headers:  # there, but not handed over
                    raise _unreadable(name)
                return value
        return self.headers.get(name)  # made, or the 431

    async def _chunks_from_server(self) -> AsyncIterator[bytes]:
        # Granian hands the body over on the protocol object's (one) __aiter__(). It (2.8)
        # ends a body with one empty chunk; a chunked body that broke off (malformed, or the
        # client gone) with two, otherwise as if it were whole. Request trailers end with
        # two as well: they cannot be told apart, and are refused too.
        ended = False
        async for chunk in self._channel:
            if ended:
                raise HTTPError(400, BROKEN_CHUNKS)
            if chunk:
                yield chunk
            else:
                ended = True

    async def call_asgi(
        self, app: ASGICallable, root_path: str, headers: list[tuple[str, str]], outbound: Any
    ) -> None:
        bridge = HTTPBridge(self._channel, outbound, headers, self._paced)
        scope = asgi_scope(self._scope, root_path)
        scope["app"] = self.app  # as in Starlette: the app that mounts it
        await app(scope, bridge.receive, bridge.send)

    def _paced(self, writer: StreamWriter) -> StreamWriter:
        # Granian's stream channel is unbounded: hasten._flow.backpressure holds the stream back.
        return paced(writer, self._scope.client, self._scope.server)

    def _scheme(self) -> str:
        return str(self._scope.scheme)


def headers_of(headers: Any, items: list[tuple[str, str]]) -> Headers:
    """The request's headers, of Granian's ``headers`` and their ``items``; looking up one
    that Granian could not hand over is a 400."""
    readable = {name for name, _ in items}
    if len(readable) == len(headers):  # len(): the names, once each
        return Headers(items)
    return _PartlyHidden(items, frozenset(set(headers.keys()) - readable))


def _unreadable(name: str) -> HTTPError:
    # Granian (2.8) hands a header value over only when it is visible ASCII: with any other
    # byte (UTF-8 in a cookie, say), ``get`` answers None and ``items`` leaves it out, as if
    # the client had not sent it. A 400 says so, where the app would otherwise get its
    # default, or no cookies at all (tests/servers/hostile/test_granian.py notices when it changes).
    return HTTPError(
        400,
        f"The {name} header holds bytes other than visible ASCII, which Granian's RSGI "
        "interface does not hand over to the app",
    )


class _PartlyHidden(Headers):
    """Request headers of which Granian hid some: reading one of those is a 400."""

    __slots__ = ("_hidden",)

    def __init__(self, items: list[tuple[str, str]], hidden: frozenset[str]) -> None:
        super().__init__(items)
        self._hidden = hidden

    def _visible(self, name: str) -> str:
        name = name.lower()
        if name in self._hidden:
            raise _unreadable(name)
        return name

    def __getitem__(self, name: str) -> str:
        return super().__getitem__(self._visible(name))

    def get(self, name: str, default: Any = None) -> Any:
        return super().get(self._visible(name), default)

    def get_all(self, name: str) -> list[str]:
        return super().get_all(self._visible(name))

    getlist = get_all


def peer(client: str) -> Address | None:
    """Granian's ``host:port`` (``[::1]:port`` for IPv6) as an Address."""
    host, _, port = client.rpartition(":")
    return Address(host.strip("[]"), int(port)) if port.isdigit() else None


class RSGIWebSocket(RSGIScope, WebSocket):
    """A WebSocket over Granian's RSGI protocol.

    RSGI's handshake takes neither a subprotocol nor headers, and its close after the
    handshake sends no code (the client sees 1005) nor reason; before the handshake, closing
    answers with an HTTP status, so a refusal can say 404 or 422.

    Granian closes the socket only once the app has let go of its transport: hasten lets go
    as the WebSocket closes, whichever side closes it, and when its handler ends, so that no
    socket waits in CLOSE-WAIT for the garbage collector (an exception's traceback, or any
    reference cycle through the WebSocket, would otherwise keep it).
    """

    _transport: Any = None  # Granian's WebSocket transport, from accept until the close

    def _scheme(self) -> str:
        return "wss" if self._scope.scheme == "https" else "ws"

    async def call_asgi(
        self, app: ASGICallable, root_path: str, headers: list[tuple[str, str]], outbound: Any
    ) -> None:
        bridge = WebSocketBridge(self._channel)
        scope = asgi_scope(self._scope, root_path)
        scope["app"] = self.app  # as in Starlette: the app that mounts it
        try:
            await app(scope, bridge.receive, bridge.send)
        finally:
            bridge.release()

    async def _accept(self, subprotocol: str | None, headers: list[tuple[str, str]]) -> None:
        if subprotocol is not None or headers:
            raise RuntimeError(
                "Granian's RSGI cannot send a subprotocol or headers with the WebSocket "
                "handshake: serve the app over ASGI (hasten run --interface asgi) for them"
            )
        self._transport = await self._channel.accept()

    async def _receive(self) -> Message:
        try:
            message = await self._transport.receive()
        except (ProtocolClosed, ProtocolError):
            self.release()
            raise WebSocketDisconnect(ABNORMAL) from None
        if message.kind == 0:  # closed by the client; RSGI does not pass the code on
            self.release()
            raise WebSocketDisconnect(NO_STATUS)
        data: Message = message.data
        return data

    async def _send_text(self, data: str) -> None:
        try:
            await self._transport.send_str(data)
        except (ProtocolClosed, ProtocolError):
            self.connection_state = "closed"
            self.release()
            raise WebSocketDisconnect(ABNORMAL) from None

    async def _send_bytes(self, data: bytes) -> None:
        try:
            await self._transport.send_bytes(data)
        except (ProtocolClosed, ProtocolError):
            self.connection_state = "closed"
            self.release()
            raise WebSocketDisconnect(ABNORMAL) from None

    async def _close(self, code: int, reason: str) -> None:
        # Granian's close() after accept() sends a close frame without a code (its argument
        # is the handshake's HTTP status): the client sees 1005 whatever was asked.
        if code != NORMAL or reason:
            dropped(
                "a WebSocket close code and reason",
                f"{self.path} closed with {code} {reason!r}; the client saw 1005",
            )
        self._channel.close(code)
        self.release()

    async def _refuse(
        self, status: int, headers: Sequence[tuple[str, str]] = (), body: bytes = b""
    ) -> None:
        # Granian's close() before accept() answers with the status alone.
        if body or any(name not in _FRAMING for name, _ in headers):
            dropped(
                "the headers and body of a refused WebSocket handshake",
                f"{self.path} refused with {status}; the client got the status alone",
            )
        self._channel.close(status)

    def release(self) -> None:
        """Let go of Granian's transport: the socket closes once its close frame is out."""
        self.connection_state = "closed"
        self._transport = None


# A refusal's headers that say nothing but how its (dropped) body was framed.
_FRAMING = frozenset(("content-type", "content-length"))


# What RSGI could not carry that hasten has said so once (per process, as a warnings "once").
told: set[str] = set()


def dropped(what: str, example: str) -> None:
    """Say, the first time for each ``what``, that Granian's RSGI could not carry it to the
    client: a difference the client sees and the app's author should hear of
    (docs/from-fastapi.md, WebSockets under RSGI). ``example``: the connection it was."""
    if what in told:
        return
    told.add(what)
    logger.warning(
        "Granian's RSGI cannot send %s (%s): serve the app over ASGI "
        "(hasten run --interface asgi) if its WebSocket clients read them; said once",
        what,
        example,
    )


def serve(served: Served, scope: Any, proto: Any) -> Awaitable[None]:
    """``App.__rsgi__``: serve one RSGI connection scope."""
    runtime = served.runtime
    if runtime is not None and scope.proto == "http" and not served.through_asgi:
        # perf: a plain function handing back the serve step's coroutine (no frame of ours).
        path: str = scope.path  # Granian has percent-decoded it, as ASGI servers do
        if served.root_path:  # App(root_path=...), FastAPI's deprecated keyword
            path = under_root(path, served.root_path)
        # perf: ``RSGIRequest(runtime.context, served, scope, proto, scope.method, path)``
        # with Connection.__init__ written out: making an object of a class with an
        # ``__init__`` runs it in an interpreter frame of its own (about 1,100 instructions).
        # tests/project/test_perf_copies.py holds the two equal.
        request = _new(RSGIRequest)
        request.context = runtime.context
        request.app = served
        request.method = scope.method
        request.path = path
        request._scope = scope
        request._channel = proto
        request._cleanup = None
        request._sub_response = None
        serve = runtime.serve  # an attribute of the runtime's, read specialized (not a method)
        return serve(request, proto)
    return _serve_unstarted(served, scope, proto)


async def _serve_unstarted(served: Served, scope: Any, proto: Any) -> None:
    """A WebSocket, any connection before the app has started, or every connection once
    ASGI middleware wraps the app."""
    if served.through_asgi:
        await serve_through_asgi(served, scope, proto)
        return
    path = under_root(scope.path, served.root_path)
    runtime = await served.start_for(path)
    if _through_asgi(served):  # as the app started, it found its ASGI entry replaced
        await serve_through_asgi(served, scope, proto)
        return
    if scope.proto != "http":
        if isinstance(runtime, Response):
            proto.close(runtime.status)  # a refused handshake carries the status
            return
        websocket = RSGIWebSocket(runtime.context, served, scope, proto, "GET", path)
        try:
            await runtime.serve_websocket(websocket)
        finally:
            websocket.release()
    elif isinstance(runtime, Response):
        await runtime.send(proto, RSGIRequest(UNSERVED, served, scope, proto, scope.method, path))
    else:
        await runtime.serve(
            RSGIRequest(runtime.context, served, scope, proto, scope.method, path), proto
        )


def _through_asgi(served: Served) -> bool:
    # A call of its own: what an await may have changed, read again (mypy would not).
    return served.through_asgi


async def serve_through_asgi(served: Served, scope: Any, proto: Any) -> None:
    """``App.__rsgi__`` once ASGI middleware wraps the app, or code replaced its ASGI entry:
    every connection goes through the app's ``__call__`` (then its middleware and the ASGI
    adapter) over the RSGI → ASGI bridge."""
    scope_of_app = asgi_scope(scope, served.root_path)
    scope_of_app["app"] = served  # as Starlette's: Request(scope).app in a middleware
    # perf: the middleware itself, unless code replaced the app's ``__call__`` (the call
    # that hands it on is a coroutine of its own, 2,600 instructions).
    served_over_asgi: Any = served if served.call_replaced else served.asgi
    if scope.proto == "http":
        http = HTTPBridge(
            proto, proto, [], lambda writer: paced(writer, scope.client, scope.server)
        )
        await served_over_asgi(scope_of_app, http.receive, http.send)
        return
    websocket = WebSocketBridge(proto)
    try:
        await served_over_asgi(scope_of_app, websocket.receive, websocket.send)
    finally:
        websocket.release()
