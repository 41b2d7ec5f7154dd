"""Granian's side of RSGI, in-process: the scope and protocol objects an app gets, as strict
as Granian's (tests/servers/e2e holds the doubles to the real server)."""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from granian._granian import RSGIProtocolClosed, RSGIProtocolError

from hasten._http.websockets import NO_STATUS
from hasten.testing.exchange import Message, Pipe, Result, Wire

if TYPE_CHECKING:
    from hasten.app import Starlette

__all__ = ["HTTPProto", "RSGIDriver", "WebSocketProto"]


def _visible(value: str) -> bool:
    """Whether Granian hands the value over: visible ASCII, spaces and tabs only (its
    ``HeaderValue::to_str``); any other byte hides the value from the app."""
    return all(character == "\t" or " " <= character <= "~" for character in value)


class _Headers:
    """Granian's ``RSGIHeaders``: a value that is not visible ASCII is left out of ``items``
    and ``values``, and ``get`` answers None for it, while ``in`` and ``keys`` still see
    its name (tests/servers/hostile/test_granian.py holds this to Granian)."""

    def __init__(self, items: list[tuple[str, str]]) -> None:
        self._all = items
        self._items = [(name, value) for name, value in items if _visible(value)]

    def items(self) -> list[tuple[str, str]]:
        return list(self._items)

    def keys(self) -> list[str]:
        return list(dict.fromkeys(name for name, _ in self._all))

    def values(self) -> list[str]:
        return [value for _, value in self._items]

    def get(self, key: str, default: Any = None) -> Any:
        first = next((value for name, value in self._all if name == key), None)
        return first if first is not None and _visible(first) else default

    def __contains__(self, key: str) -> bool:
        return any(name == key for name, _ in self._all)

    def __len__(self) -> int:
        return len(self.keys())


def _framed(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The headers as Granian hands them over: a Content-Length sent with a Transfer-Encoding
    is dropped (the chunked body is read)."""
    if any(name == "transfer-encoding" for name, _ in headers):
        return [(name, value) for name, value in headers if name != "content-length"]
    return headers


def _server_address(wire: Wire) -> str:
    """Granian's ``host:port`` of the socket the client reached: an address the URL names
    (``[::1]:port`` for IPv6), else the loopback a test server listens on."""
    try:
        address = ipaddress.ip_address(wire.host)
    except ValueError:
        return f"127.0.0.1:{wire.port}"
    return f"[{address}]:{wire.port}" if address.version == 6 else f"{address}:{wire.port}"


class _Scope:
    def __init__(self, wire: Wire, proto: str) -> None:
        self.proto = proto
        self.http_version = "1.1"
        self.rsgi_version = "1.5"
        self.server = _server_address(wire)
        self.client = f"{wire.client[0]}:{wire.client[1]}"
        # Granian's scheme is the connection's: http or https, for WebSockets too.
        self.scheme = "https" if wire.scheme in ("https", "wss") else "http"
        self.method = wire.method
        self.path = unquote(wire.raw_path)  # Granian decodes the path, as ASGI servers do
        self.query_string = wire.query_string
        self.authority = None
        self.headers = _Headers(_framed(wire.headers))


class HTTPProto:
    """The RSGI HTTP protocol object, as strict as Granian's: the body is handed over once,
    one response per request, and what the app sends is recorded as it is (Granian's own
    additions, Content-Length among them, are tested against Granian in tests/servers/e2e)."""

    def __init__(self, chunks: list[bytes], result: Result) -> None:
        self._chunks = chunks
        self._result = result
        self._read = False
        self._pending: Iterator[bytes] = iter(())
        self.finished = asyncio.Event()  # the client leaves once the app has returned

    async def client_disconnect(self) -> None:
        await self.finished.wait()

    def _take_body(self) -> list[bytes]:
        if self._read:
            raise RSGIProtocolError("RSGI protocol error")  # Granian: the body is gone
        self._read = True
        return self._chunks

    def __call__(self) -> asyncio.Future[bytes]:
        # A future, as Granian's: the body timeout cancels what a read waits on.
        future: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()
        future.set_result(b"".join(self._take_body()))
        return future

    def __aiter__(self) -> HTTPProto:
        # As Granian's: the object iterates itself, and a second __aiter__ is an error.
        self._pending = iter(self._take_body())
        return self

    async def __anext__(self) -> bytes:
        chunk = next(self._pending, None)
        if chunk is None:
            raise StopAsyncIteration
        return chunk

    def _start(self, status: int, headers: list[tuple[str, str]]) -> None:
        if self._result.responded:
            raise RSGIProtocolError("RSGI protocol error")  # a second response
        self._result.start(status, list(headers))

    def _whole(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self._start(status, headers)
        if body:
            self._result.add(body)
        self._result.finish()

    def response_empty(self, status: int, headers: list[tuple[str, str]]) -> None:
        self._whole(status, headers, b"")

    def response_str(self, status: int, headers: list[tuple[str, str]], body: str) -> None:
        self._whole(status, headers, body.encode())

    def response_bytes(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self._whole(status, headers, body)

    def response_file(self, status: int, headers: list[tuple[str, str]], file: str) -> None:
        with open(file, "rb") as handle:
            self._whole(status, headers, handle.read())

    def response_file_range(
        self, status: int, headers: list[tuple[str, str]], file: str, start: int, end: int
    ) -> None:
        with open(file, "rb") as handle:
            handle.seek(start)
            self._whole(status, headers, handle.read(end - start))

    def response_stream(self, status: int, headers: list[tuple[str, str]]) -> _Stream:
        self._start(status, headers)
        return _Stream(self._result)


class _Stream:
    """A streamed body: Granian ends it when the app's call returns."""

    def __init__(self, result: Result) -> None:
        self._result = result

    async def send_bytes(self, data: bytes) -> None:
        await self._result.hand(data)

    async def send_str(self, data: str) -> None:
        await self._result.hand(data.encode())


class _WebSocketMessage:
    def __init__(self, kind: int, data: Any) -> None:
        self.kind = kind  # Granian's: 0 closed, 1 bytes, 2 text
        self.data = data


class WebSocketProto:
    """Granian's RSGI WebSocket protocol object, with its limits: accept() takes nothing,
    close() before it answers with an HTTP status, and close() after it sends no code (the
    client sees 1005). Once the app has taken the client's close, it can neither receive
    nor send."""

    def __init__(self, pipe: Pipe) -> None:
        self._pipe = pipe
        self._accepted = False
        self._closed = False

    async def accept(self) -> WebSocketProto:
        self._accepted = True
        await self._pipe.from_app.put({"type": "websocket.accept", "subprotocol": None})
        return self

    def close(self, status: int | None = None) -> None:
        if self._closed:
            return
        self._closed = True
        if self._accepted:
            self._pipe.from_app.put_nowait(
                {"type": "websocket.close", "code": NO_STATUS, "reason": ""}
            )
        else:
            start = {"type": "websocket.http.response.start", "status": status or 403}
            self._pipe.from_app.put_nowait({**start, "headers": []})
            self._pipe.from_app.put_nowait({"type": "websocket.http.response.body", "body": b""})

    async def receive(self) -> _WebSocketMessage:
        if self._closed:
            raise RSGIProtocolClosed("RSGI transport is closed")
        message = await self._pipe.to_app.get()
        if message["type"] == "websocket.disconnect":
            self._closed = True
            return _WebSocketMessage(0, None)
        text = message.get("text")
        if text is not None:
            return _WebSocketMessage(2, text)
        return _WebSocketMessage(1, bytes(message["bytes"]))

    async def send_bytes(self, data: bytes) -> None:
        await self._send({"type": "websocket.send", "bytes": bytes(data)})

    async def send_str(self, data: str) -> None:
        await self._send({"type": "websocket.send", "text": data})

    async def _send(self, message: Message) -> None:
        if self._closed:
            raise RSGIProtocolClosed("RSGI transport is closed")
        await self._pipe.from_app.put(message)


class RSGIDriver:
    """Serves an app as Granian does over RSGI: ``__rsgi__`` per connection, and the app
    started and stopped as Granian's ``__rsgi_init__`` and ``__rsgi_del__`` do."""

    def __init__(self, app: Starlette) -> None:
        self.app = app

    async def start(self) -> None:
        await self.app.startup()

    async def stop(self, current: bool) -> None:
        if current:
            await self.app.shutdown()

    async def send(self, wire: Wire, result: Result) -> None:
        proto = HTTPProto(wire.chunks, result)
        try:
            await self.app.__rsgi__(_Scope(wire, "http"), proto)
        finally:
            result.finish()  # Granian ends a stream when the call returns
            proto.finished.set()

    async def websocket(self, wire: Wire, pipe: Pipe) -> None:
        await self.app.__rsgi__(_Scope(wire, "ws"), WebSocketProto(pipe))
