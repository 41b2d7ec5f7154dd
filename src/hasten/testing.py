"""TestClient: drive an app in-process through its RSGI or ASGI adapter with httpx's API.

``TestClient(app).get("/hello").json()``. The first request starts the app, as a server would;
closing the client (or leaving its ``with`` block) shuts it down.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Coroutine, Iterator
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

import httpx
import msgspec
from granian._granian import RSGIProtocolClosed, RSGIProtocolError

from .servers import Interface
from .websockets import WebSocketDisconnect

if TYPE_CHECKING:
    from .app import App

__all__ = ["TestClient", "WebSocketDenied", "WebSocketSession"]

T = TypeVar("T")
CLIENT_ADDRESS = ("127.0.0.1", 50000)


class _LoopThread:
    """An event loop on a thread of its own, so the client's sync calls work anywhere."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float = 60) -> T:
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro, self.loop)
        return future.result(timeout)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join()
        self.loop.close()


class _Wire:
    """The parts of an httpx request both drivers need, in the forms the servers deliver."""

    def __init__(self, request: httpx.Request) -> None:
        raw_path, _, query = request.url.raw_path.decode("ascii").partition("?")
        self.method = request.method
        self.raw_path = raw_path
        self.query_string = query
        self.headers = [(name.lower(), value) for name, value in request.headers.multi_items()]
        self.chunks = [bytes(chunk) for chunk in request.stream]  # type: ignore[union-attr]
        self.host = request.url.host
        self.scheme = request.url.scheme


class _Result:
    """What the app sent; an app that sends nothing gets Granian's empty 500."""

    def __init__(self) -> None:
        self.responded = False
        self.status = 500
        self.headers: list[tuple[str, str]] = []
        self.body = b""


class _RSGIHeaders:
    def __init__(self, items: list[tuple[str, str]]) -> None:
        self._items = items

    def items(self) -> list[tuple[str, str]]:
        return list(self._items)

    def keys(self) -> list[str]:
        return [name for name, _ in self._items]

    def values(self) -> list[str]:
        return [value for _, value in self._items]

    def get(self, key: str, default: Any = None) -> Any:
        return next((value for name, value in self._items if name == key), default)

    def __contains__(self, key: str) -> bool:
        return any(name == key for name, _ in self._items)


class _RSGIScope:
    def __init__(self, wire: _Wire) -> None:
        self.proto = "http"
        self.http_version = "1.1"
        self.rsgi_version = "1.5"
        self.server = "127.0.0.1:80"
        self.client = f"{CLIENT_ADDRESS[0]}:{CLIENT_ADDRESS[1]}"
        self.scheme = wire.scheme
        self.method = wire.method
        self.path = unquote(wire.raw_path)  # Granian decodes the path, as ASGI servers do
        self.query_string = wire.query_string
        self.authority = None
        self.headers = _RSGIHeaders(wire.headers)


class _RSGIProto:
    """The RSGI HTTP protocol object, as strict as Granian's: the body is handed over once,
    one response per request, and what the app sends is recorded as it is (Granian's own
    additions, Content-Length among them, are tested against Granian in tests/e2e)."""

    def __init__(self, chunks: list[bytes], result: _Result) -> None:
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

    def __aiter__(self) -> _RSGIProto:
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
        self._result.responded = True
        self._result.status = status
        self._result.headers = list(headers)

    def response_empty(self, status: int, headers: list[tuple[str, str]]) -> None:
        self._start(status, headers)

    def response_str(self, status: int, headers: list[tuple[str, str]], body: str) -> None:
        self._start(status, headers)
        self._result.body = body.encode()

    def response_bytes(self, status: int, headers: list[tuple[str, str]], body: bytes) -> None:
        self._start(status, headers)
        self._result.body = body

    def response_file(self, status: int, headers: list[tuple[str, str]], file: str) -> None:
        self._start(status, headers)
        with open(file, "rb") as handle:
            self._result.body = handle.read()

    def response_file_range(
        self, status: int, headers: list[tuple[str, str]], file: str, start: int, end: int
    ) -> None:
        self._start(status, headers)
        with open(file, "rb") as handle:
            handle.seek(start)
            self._result.body = handle.read(end - start)

    def response_stream(self, status: int, headers: list[tuple[str, str]]) -> _RSGIStream:
        self._start(status, headers)
        return _RSGIStream(self._result)


class _RSGIStream:
    def __init__(self, result: _Result) -> None:
        self._result = result

    async def send_bytes(self, data: bytes) -> None:
        self._result.body += data

    async def send_str(self, data: str) -> None:
        self._result.body += data.encode()


class _RSGIDriver:
    def __init__(self, app: App) -> None:
        self.app = app

    async def start(self) -> None:
        await self.app.startup()

    async def stop(self) -> None:
        await self.app.shutdown()

    async def send(self, wire: _Wire) -> _Result:
        result = _Result()
        proto = _RSGIProto(wire.chunks, result)
        try:
            await self.app.__rsgi__(_RSGIScope(wire), proto)
        finally:
            proto.finished.set()
        return result


class _ASGIDriver:
    def __init__(self, app: App, root_path: str) -> None:
        self.app = app
        self.root_path = root_path
        self._to_app: asyncio.Queue[dict[str, Any]] | None = None
        self._from_app: asyncio.Queue[dict[str, Any]] | None = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        self._to_app, self._from_app = asyncio.Queue(), asyncio.Queue()
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}}
        self._task = asyncio.create_task(
            self.app(scope, self._to_app.get, self._from_app.put)  # type: ignore[arg-type]
        )
        await self._lifespan("startup")

    async def stop(self) -> None:
        if self._task is not None:
            await self._lifespan("shutdown")
            await self._task
            self._task = None

    async def _lifespan(self, phase: str) -> None:
        assert self._to_app is not None
        assert self._from_app is not None
        await self._to_app.put({"type": f"lifespan.{phase}"})
        message = await self._from_app.get()
        if message["type"] != f"lifespan.{phase}.complete":
            raise RuntimeError(f"lifespan {phase} failed: {message.get('message')}")

    async def send(self, wire: _Wire) -> _Result:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0", "spec_version": "2.3"},
            "http_version": "1.1",
            "method": wire.method,
            "scheme": wire.scheme,
            "path": self.root_path + unquote(wire.raw_path),
            "raw_path": (self.root_path + wire.raw_path).encode("ascii"),
            "query_string": wire.query_string.encode("ascii"),
            "root_path": self.root_path,
            "headers": [(n.encode("latin-1"), v.encode("latin-1")) for n, v in wire.headers],
            "client": CLIENT_ADDRESS,
            "server": (wire.host, 80),
        }
        exchange = _ASGIExchange(wire.chunks)
        await self.app(scope, exchange.receive, exchange.send)  # type: ignore[arg-type]
        if not exchange.complete:
            raise RuntimeError("The app returned without completing its response")
        return exchange.result


class _ASGIExchange:
    """One request's ``receive`` and ``send``, as strict as uvicorn's: the body comes once,
    then ``receive`` waits until the response is complete (as for a client that stays);
    messages out of order are an error."""

    def __init__(self, chunks: list[bytes]) -> None:
        self._incoming = iter(
            [
                {"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1}
                for index, chunk in enumerate(chunks or [b""])
            ]
        )
        self._done = asyncio.Event()
        self.result = _Result()
        self.complete = False

    async def receive(self) -> dict[str, Any]:
        message = next(self._incoming, None)
        if message is not None:
            return message
        await self._done.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if self.complete:
            raise RuntimeError(f"Unexpected ASGI message {kind!r} after the response completed")
        if kind == "http.response.start":
            if self.result.responded:
                raise RuntimeError("Unexpected ASGI message 'http.response.start' sent twice")
            self.result.responded = True
            self.result.status = message["status"]
            self.result.headers = [
                (name.decode("latin-1"), value.decode("latin-1"))
                for name, value in message["headers"]
            ]
        elif kind == "http.response.body":
            if not self.result.responded:
                raise RuntimeError("Unexpected ASGI message 'http.response.body' before start")
            self.result.body += message.get("body", b"")
            if not message.get("more_body", False):
                self.complete = True
                self._done.set()
        else:
            raise RuntimeError(f"Unexpected ASGI message {kind!r}")


# WebSockets: the app's side runs on the loop thread; the test talks to it through two queues
# of events: ("text", str), ("bytes", bytes), ("close", code, reason) towards the app, and
# ("accept", subprotocol, headers), ("refuse", status) and the same message events back.
Event = tuple[Any, ...]


class WebSocketDenied(Exception):
    """The app refused the WebSocket handshake with HTTP ``status``."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class _RSGIMessage:
    def __init__(self, kind: int, data: Any) -> None:
        self.kind = kind
        self.data = data


class _RSGIWebSocketProto:
    """Granian's RSGI WebSocket protocol object, with its limits: accept() takes nothing, and
    close() after the handshake sends no code (the client sees 1005)."""

    def __init__(self, to_app: asyncio.Queue[Event], from_app: asyncio.Queue[Event]) -> None:
        self._to_app = to_app
        self._from_app = from_app
        self._accepted = False
        self._closed = False

    async def accept(self) -> _RSGIWebSocketProto:
        self._accepted = True
        await self._from_app.put(("accept", None, []))
        return self

    def close(self, status: int | None = None) -> None:
        if self._closed:
            return
        self._closed = True
        event = ("close", 1005, "") if self._accepted else ("refuse", status or 403)
        self._from_app.put_nowait(event)

    async def receive(self) -> _RSGIMessage:
        if self._closed:
            raise RSGIProtocolClosed("RSGI transport is closed")
        event = await self._to_app.get()
        if event[0] == "close":
            self._closed = True
            return _RSGIMessage(0, None)
        return _RSGIMessage(1 if event[0] == "bytes" else 2, event[1])

    async def send_bytes(self, data: bytes) -> None:
        await self._send(("bytes", bytes(data)))

    async def send_str(self, data: str) -> None:
        await self._send(("text", data))

    async def _send(self, event: Event) -> None:
        if self._closed:
            raise RSGIProtocolClosed("RSGI transport is closed")
        await self._from_app.put(event)


class _RSGIWebSocketScope(_RSGIScope):
    def __init__(self, wire: _Wire) -> None:
        super().__init__(wire)
        self.proto = "ws"


class _ASGIWebSocketChannel:
    """An ASGI server's side of one WebSocket, offering ``websocket.http.response``."""

    def __init__(self, to_app: asyncio.Queue[Event], from_app: asyncio.Queue[Event]) -> None:
        self._to_app = to_app
        self._from_app = from_app
        self._connected = False
        self._accepted = False
        self._closed = False

    async def receive(self) -> dict[str, Any]:
        if not self._connected:
            self._connected = True
            return {"type": "websocket.connect"}
        if self._closed:
            return {"type": "websocket.disconnect", "code": 1006, "reason": ""}
        event = await self._to_app.get()
        if event[0] == "close":
            self._closed = True
            return {"type": "websocket.disconnect", "code": event[1], "reason": event[2]}
        return {"type": "websocket.receive", event[0]: event[1]}

    async def send(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if self._closed:
            raise RuntimeError(f"Unexpected ASGI message {kind!r} after the WebSocket closed")
        if kind == "websocket.accept":
            self._accepted = True
            headers = [(n.decode(), v.decode()) for n, v in message.get("headers", [])]
            await self._from_app.put(("accept", message.get("subprotocol"), headers))
        elif kind == "websocket.send":
            text = message.get("text")
            await self._from_app.put(
                ("text", text) if text is not None else ("bytes", message["bytes"])
            )
        elif kind == "websocket.close":
            self._closed = True
            if self._accepted:
                await self._from_app.put(("close", message["code"], message.get("reason", "")))
            else:
                await self._from_app.put(("refuse", 403))
        elif kind == "websocket.http.response.start":
            await self._from_app.put(("refuse", message["status"]))
        elif kind == "websocket.http.response.body":
            self._closed = True
        else:
            raise RuntimeError(f"Unexpected ASGI message {kind!r}")


async def _awaited(awaitable: Awaitable[None]) -> None:
    await awaitable


class WebSocketSession:
    """A WebSocket to the app, driven from the test's thread (``client.websocket_connect``).

    ``receive_*`` raise ``WebSocketDisconnect`` once the app has closed it.
    """

    __test__ = False

    def __init__(
        self,
        loop_thread: _LoopThread,
        to_app: asyncio.Queue[Event],
        from_app: asyncio.Queue[Event],
        served: Future[None],
    ) -> None:
        self._loop_thread = loop_thread
        self._to_app = to_app
        self._from_app = from_app
        self._served = served
        self._closed = False
        self.accepted_subprotocol: str | None = None
        self.accept_headers: list[tuple[str, str]] = []

    def _handshake(self) -> None:
        event = self._next()
        if event[0] == "refuse":
            self._served.result(10)
            raise WebSocketDenied(event[1])
        assert event[0] == "accept", event
        self.accepted_subprotocol, self.accept_headers = event[1], event[2]

    def _next(self, timeout: float = 10) -> Event:
        return self._loop_thread.run(self._from_app.get(), timeout)

    def _put(self, event: Event) -> None:
        self._loop_thread.run(self._to_app.put(event))

    def send_text(self, data: str) -> None:
        self._put(("text", data))

    def send_bytes(self, data: bytes) -> None:
        self._put(("bytes", data))

    def send_json(self, data: Any) -> None:
        self._put(("text", msgspec.json.encode(data).decode()))

    def receive(self, timeout: float = 10) -> str | bytes:
        event = self._next(timeout)
        if event[0] == "close":
            self._closed = True
            raise WebSocketDisconnect(event[1], event[2])
        data: str | bytes = event[1]
        return data

    def receive_text(self) -> str:
        data = self.receive()
        assert isinstance(data, str), data
        return data

    def receive_bytes(self) -> bytes:
        data = self.receive()
        assert isinstance(data, bytes), data
        return data

    def receive_json(self) -> Any:
        return msgspec.json.decode(self.receive())

    def close(self, code: int = 1000, reason: str = "") -> None:
        """Close from the client's side, and wait for the app's handler to end."""
        if not self._closed:
            self._closed = True
            self._put(("close", code, reason))
        self._served.result(10)

    def __enter__(self) -> WebSocketSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class _Transport(httpx.BaseTransport):
    def __init__(self, driver: _RSGIDriver | _ASGIDriver, loop_thread: _LoopThread) -> None:
        self.driver = driver
        self.loop_thread = loop_thread
        self.started = False
        self._lock = threading.Lock()  # requests may come from several threads at once

    def start(self) -> None:
        with self._lock:
            if not self.started:
                self.loop_thread.run(self.driver.start())
                self.started = True

    def stop(self) -> None:
        with self._lock:
            if self.started:
                self.started = False
                self.loop_thread.run(self.driver.stop())

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.start()
        wire = _Wire(request)
        result = self.loop_thread.run(self.driver.send(wire))
        # As the app sent it: a HEAD response's body is the app's to empty, and a stream
        # (not content=) keeps httpx from adding a Content-Length the app did not send.
        return httpx.Response(
            result.status,
            headers=result.headers,
            stream=httpx.ByteStream(result.body),
            request=request,
        )


class TestClient(httpx.Client):
    """An httpx client wired to ``app`` through its RSGI (default) or ASGI adapter.

    ``root_path`` (ASGI) serves the app as if mounted under that prefix by another app.
    """

    __test__ = False  # not a pytest test class

    def __init__(
        self,
        app: App,
        *,
        interface: Interface = "rsgi",
        base_url: str = "http://testserver",
        root_path: str = "",
        **kwargs: Any,
    ) -> None:
        if interface not in ("rsgi", "asgi"):
            raise ValueError(f"interface must be 'rsgi' or 'asgi', not {interface!r}")
        if root_path and interface != "asgi":
            raise ValueError("root_path is an ASGI notion: give interface='asgi' with it")
        self.app = app
        self.interface = interface
        self._loop_thread = _LoopThread()
        driver = _RSGIDriver(app) if interface == "rsgi" else _ASGIDriver(app, root_path)
        self._driver_transport = _Transport(driver, self._loop_thread)
        super().__init__(transport=self._driver_transport, base_url=base_url, **kwargs)

    def start(self) -> None:
        """Start the app now rather than on the first request."""
        self._driver_transport.start()

    def shutdown(self) -> None:
        """Shut the app down as a server does on SIGTERM, keeping the client usable to see
        what its open WebSockets get."""
        self._driver_transport.stop()

    def websocket_connect(
        self,
        url: str,
        subprotocols: list[str] | None = None,
        headers: dict[str, str] | None = None,
    ) -> WebSocketSession:
        """Open a WebSocket to ``url``; raises WebSocketDenied when the app refuses it."""
        self._driver_transport.start()
        request = self.build_request("GET", url, headers=headers)
        if subprotocols:
            request.headers["sec-websocket-protocol"] = ", ".join(subprotocols)
        wire = _Wire(request)
        loop_thread = self._loop_thread
        to_app: asyncio.Queue[Event] = asyncio.Queue()
        from_app: asyncio.Queue[Event] = asyncio.Queue()
        app = self.app
        if self.interface == "rsgi":
            proto = _RSGIWebSocketProto(to_app, from_app)
            served: Future[None] = asyncio.run_coroutine_threadsafe(
                _awaited(app.__rsgi__(_RSGIWebSocketScope(wire), proto)), loop_thread.loop
            )
        else:
            channel = _ASGIWebSocketChannel(to_app, from_app)
            scope = {
                "type": "websocket",
                "asgi": {"version": "3.0", "spec_version": "2.4"},
                "http_version": "1.1",
                "scheme": "ws",
                "path": unquote(wire.raw_path),
                "raw_path": wire.raw_path.encode("ascii"),
                "query_string": wire.query_string.encode("ascii"),
                "root_path": "",
                "headers": [(n.encode("latin-1"), v.encode("latin-1")) for n, v in wire.headers],
                "client": CLIENT_ADDRESS,
                "server": (wire.host, 80),
                "subprotocols": subprotocols or [],
                "extensions": {"websocket.http.response": {}},
            }
            served = asyncio.run_coroutine_threadsafe(
                app(scope, channel.receive, channel.send),  # type: ignore[arg-type]
                loop_thread.loop,
            )
        session = WebSocketSession(loop_thread, to_app, from_app, served)
        session._handshake()
        return session

    def close(self) -> None:
        """Shut the app down and stop the client's event loop."""
        if self._loop_thread.loop.is_closed():
            return
        try:
            self._driver_transport.stop()
        finally:
            super().close()
            self._loop_thread.stop()

    def __enter__(self) -> TestClient:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
