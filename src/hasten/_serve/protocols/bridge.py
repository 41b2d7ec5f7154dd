"""RSGI → ASGI: an ASGI app served from Granian's RSGI protocol objects.

Used for an ASGI app mounted in a hasten app, and for the whole app when ASGI middleware
wraps it, under Granian RSGI. The ASGI app sees an ASGI 3 scope (with ``root_path``, and the
``http.response.pathsend`` extension, which becomes Granian's own ``response_file``), a
``receive`` fed from the RSGI body and disconnect signal, and a ``send`` whose messages become
RSGI response calls. RSGI's limits remain: a WebSocket accept carries no subprotocol nor
headers, and a close after the handshake no code.
"""

from __future__ import annotations

import functools
import re
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import quote

from granian.rsgi import ProtocolClosed, ProtocolError

from hasten._flow.contracts import Message
from hasten._flow.transport import Outbound, StreamWriter
from hasten._http.datastructures import check_header
from hasten._http.wire import HeaderList

__all__ = ["HTTPBridge", "WebSocketBridge", "asgi_scope"]

_PATH_SAFE = "/:@!$&'()*+,;=-._~"
_UNSAFE = re.compile(r"[^A-Za-z0-9/:@!$&'()*+,;=\-._~]")
_RSGI_GONE = (ProtocolClosed, ProtocolError)


class _Ended:
    """A stream the app has ended: more body is an error."""

    async def send_bytes(self, data: bytes) -> None:
        raise RuntimeError("Unexpected ASGI message 'http.response.body' after the response ended")


_ENDED = _Ended()


@functools.lru_cache(maxsize=256)
def _address(value: str) -> tuple[str, int] | None:
    # Cached: the server's address is the same for every request, a client's for a while.
    host, _, port = value.rpartition(":")
    return (host.strip("[]"), int(port)) if port.isdigit() else None


def _raw_path(path: str) -> bytes:
    # perf: most paths need no escaping, and quote() costs more than the check.
    if path.isascii() and _UNSAFE.search(path) is None:
        return path.encode("ascii")
    return quote(path, safe=_PATH_SAFE).encode("ascii")


def asgi_scope(scope: Any, root_path: str) -> dict[str, Any]:
    """The ASGI scope of an RSGI one (HTTP or WebSocket), served under ``root_path``."""
    websocket = scope.proto != "http"
    path: str = scope.path
    headers = [
        (name.encode("latin-1"), value.encode("latin-1")) for name, value in scope.headers.items()
    ]
    result: dict[str, Any] = {
        "type": "websocket" if websocket else "http",
        "asgi": {"version": "3.0", "spec_version": "2.4"},
        "http_version": scope.http_version,
        "scheme": ("wss" if scope.scheme == "https" else "ws") if websocket else scope.scheme,
        "path": path,
        "raw_path": _raw_path(path),
        "query_string": scope.query_string.encode("latin-1"),
        "root_path": root_path,
        "headers": headers,
        "client": _address(scope.client),
        "server": _address(scope.server),
        "extensions": {} if websocket else {"http.response.pathsend": {}},
    }
    if websocket:
        offered = [v for name, v in scope.headers.items() if name == "sec-websocket-protocol"]
        result["subprotocols"] = [p.strip() for v in offered for p in v.split(",") if p.strip()]
    else:
        result["method"] = scope.method
    return result


class HTTPBridge:
    """One HTTP request: ASGI ``receive`` over an RSGI protocol object (``proto``), and ASGI
    ``send`` over the request's Outbound (the same object, unless observation wraps it).

    ``extra`` headers are added to the response the app starts (what hasten middleware set
    on a mounted app's response); ``pace`` holds a streamed body back to its client's pace.
    """

    __slots__ = (
        "_body",
        "_extra",
        "_headers",
        "_more",
        "_outbound",
        "_pace",
        "_proto",
        "_status",
        "_stream",
    )

    def __init__(
        self,
        proto: Any,
        outbound: Outbound,
        extra: HeaderList,
        pace: Callable[[StreamWriter], StreamWriter] = lambda writer: writer,
    ) -> None:
        self._proto = proto
        self._outbound = outbound
        self._extra = extra
        self._pace = pace
        self._body: AsyncIterator[bytes] | None = None
        self._more = True
        self._status = 500
        self._headers: HeaderList = []
        self._stream: Any = None

    async def receive(self) -> Message:
        if self._more:
            if self._body is None:
                self._body = aiter(self._proto)
            try:
                chunk = await anext(self._body)
            except StopAsyncIteration:
                chunk = b""
            self._more = bool(chunk)  # Granian ends the body with an empty chunk
            return {"type": "http.request", "body": chunk, "more_body": self._more}
        await self._proto.client_disconnect()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self._status = message["status"]
            headers: HeaderList = []
            for raw_name, raw_value in message.get("headers", []):
                name, value = raw_name.decode("latin-1").lower(), raw_value.decode("latin-1")
                check_header(name, value)  # Granian would drop it without a word
                headers.append((name, value))
            headers.extend(self._extra)
            self._headers = headers
        elif kind == "http.response.body":
            body = message.get("body", b"")
            if self._stream is None:
                if not message.get("more_body", False):
                    self._outbound.response_bytes(self._status, self._headers, body)
                    return
                self._stream = self._pace(
                    self._outbound.response_stream(self._status, self._headers)
                )
            stream = self._stream
            if not message.get("more_body", False):
                # Granian ends a stream when its transport is released: release it now, as
                # the ASGI app (or a middleware around it) may keep this bridge alive.
                self._stream = _ENDED
            if body:
                try:
                    await stream.send_bytes(body)
                except _RSGI_GONE:
                    raise OSError("The client has gone away") from None  # ASGI 2.4
        elif kind == "http.response.pathsend":
            self._outbound.response_file(self._status, self._headers, message["path"])


class WebSocketBridge:
    """One WebSocket: ASGI ``websocket.*`` messages over an RSGI WebSocket protocol object.

    It lets go of Granian's transport at the close, and its owner calls ``release`` when the
    app returns: Granian closes the socket only once nothing holds the transport.
    """

    __slots__ = ("_connected", "_proto", "_transport")

    def __init__(self, proto: Any) -> None:
        self._proto = proto
        self._transport: Any = None
        self._connected = False

    async def receive(self) -> Message:
        if not self._connected:
            self._connected = True
            return {"type": "websocket.connect"}
        if self._transport is None:
            raise RuntimeError("receive() before websocket.accept, or after the close")
        try:
            message = await self._transport.receive()
        except _RSGI_GONE:
            self.release()
            return {"type": "websocket.disconnect", "code": 1006, "reason": ""}
        if message.kind == 0:
            self.release()
            return {"type": "websocket.disconnect", "code": 1005, "reason": ""}
        key = "bytes" if message.kind == 1 else "text"
        return {"type": "websocket.receive", key: message.data}

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "websocket.accept":
            self._transport = await self._proto.accept()  # RSGI: no subprotocol, no headers
        elif kind == "websocket.send":
            if self._transport is None:
                raise OSError("The WebSocket is not open (not accepted yet, or closed)")
            text = message.get("text")
            try:
                if text is not None:
                    await self._transport.send_str(text)
                else:
                    await self._transport.send_bytes(message["bytes"])
            except _RSGI_GONE:
                raise OSError("The client has gone away") from None
        elif kind == "websocket.close":
            self._proto.close(message.get("code", 1000) if self._transport else 403)
            self.release()
        elif kind == "websocket.http.response.start":
            self._proto.close(message["status"])

    def release(self) -> None:
        """Let go of Granian's transport: the socket closes once its close frame is out."""
        self._transport = None
