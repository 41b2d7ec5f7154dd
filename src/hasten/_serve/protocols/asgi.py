"""The ASGI 3 adapter: HTTP, WebSocket and lifespan scopes in, the serve step out, and a
channel that speaks RSGI's words over ``receive`` and ``send``."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections import deque
from collections.abc import AsyncIterator, Awaitable, Generator, Sequence
from concurrent.futures import Executor
from typing import TYPE_CHECKING, Any

from hasten._flow.context import UNSERVED
from hasten._flow.contracts import Message, Receive, Scope, Send
from hasten._flow.transport import Reading
from hasten._http.background import run_tasks
from hasten._http.connection import NO_PATH_PARAMS, ASGICallable, Connection, PathParams
from hasten._http.datastructures import Address
from hasten._http.errors import report_unhandled
from hasten._http.files import FileResponse
from hasten._http.paths import under_root
from hasten._http.requests import ClientDisconnected, Request
from hasten._http.responses import Response, StreamingResponse, close_chunks, sender
from hasten._http.websockets import ABNORMAL, NO_STATUS, WebSocket, WebSocketDisconnect
from hasten._http.websockets import Message as WebSocketMessage
from hasten._http.wire import BODY_STATUSES, HeaderList, allows_body
from hasten._running.threads import submit

if TYPE_CHECKING:
    from hasten._serve.protocols import Served
    from hasten._serve.runtime import Runtime

__all__ = [
    "ASGIAdapter",
    "ASGIChannel",
    "ASGIRequest",
    "ASGIWebSocket",
    "PortableASGIAdapter",
    "PortableChannel",
    "route_path",
    "serve",
]

_new = object.__new__
FILE_CHUNK_SIZE = 256 * 1024  # files read on threads under ASGI without pathsend


def route_path(scope: Scope) -> str:
    """The path the app routes on: the scope's path without the ``root_path`` it is mounted
    under (ASGI servers and mounting apps put the prefix in both)."""
    root = scope.get("root_path")
    return under_root(scope["path"], root) if root else scope["path"]


def _decoded(scope: Scope) -> list[tuple[str, str]]:
    return [
        (name.decode("latin-1"), value.decode("latin-1"))
        for name, value in scope.get("headers", ())
    ]


def _peer(scope: Scope) -> Address | None:
    client = scope.get("client")
    # int(): Granian's ASGI scope carries the port as a string.
    return Address(client[0], int(client[1])) if client else None


class ASGIScope:
    """What a connection reads of its ASGI scope, for its Request and its WebSocket alike."""

    _scope: Scope

    def _query_string(self) -> str:
        # A scope made by hand (Starlette's ``Request({"type": "http", ...})``, in tests)
        # may lack it, or hold it as text.
        query = self._scope.get("query_string", b"")
        return query if isinstance(query, str) else str(query.decode("latin-1"))

    def _raw_headers(self) -> list[tuple[str, str]]:
        return _decoded(self._scope)

    def _peer(self) -> Address | None:
        return _peer(self._scope)

    def _asgi_scope(self) -> Scope:
        return self._scope


class ASGIRequest(ASGIScope, Request):
    """A Request read from an ASGI scope; its body comes through an ASGIChannel."""

    _channel: ASGIChannel
    # Whether the app mounted at its route left a route of its own in the scope (then this
    # request's app leaves that one to an ASGI middleware around it).
    _route_left = False

    async def call_asgi(
        self, app: ASGICallable, root_path: str, headers: list[tuple[str, str]], outbound: Any
    ) -> None:
        scope = dict(self._scope)
        scope["root_path"] = root_path
        scope["app"] = self.app  # as in Starlette: the app that mounts it
        send = outbound.send if not headers else _adding(outbound.send, headers)
        before = scope.get("route")
        try:
            await app(scope, self._channel.receive, send)
        finally:
            if scope.get("route") is not before:  # the mounted app's route matched
                outer = self._scope
                for key in _LEFT_BY_ROUTER:
                    if key in scope:
                        outer[key] = scope[key]
                self._route_left = True

    def _scheme(self) -> str:
        return str(self._scope.get("scheme", "http"))

    def _cut_short(self) -> None:
        self._channel._stream = None  # not ended: the server drops the connection

    @property
    def root_path(self) -> str:
        return str(self._scope.get("root_path", ""))

    async def send_push_promise(self, path: str) -> None:
        """Push ``path`` to the client (HTTP/2), where the server offers it (ASGI's
        ``http.response.push``); else nothing."""
        if "http.response.push" in self._scope.get("extensions", {}):
            pushed = [
                (name, value) for name in _PUSHED_HEADERS for value in self.headers.getlist(name)
            ]
            headers = _encoded(pushed)
            await self._channel.send(
                {"type": "http.response.push", "path": path, "headers": headers}
            )

    async def send_early_hints(self, link: str, /, *links: str) -> None:
        """A 103 Early Hints response with these ``Link`` values, where the server offers it
        (ASGI's ``http.response.early_hint``); else nothing."""
        if "http.response.early_hint" in self._scope.get("extensions", {}):
            raw = [value.encode("latin-1") for value in (link, *links)]
            await self._channel.send({"type": "http.response.early_hint", "links": raw})


# The request's headers a pushed request takes (ASGI's http.response.push).
_PUSHED_HEADERS = ("accept", "accept-encoding", "accept-language", "cache-control", "user-agent")


def _encoded(headers: Sequence[tuple[str, str]]) -> list[tuple[bytes, bytes]]:
    return [(name.encode("latin-1"), value.encode("latin-1")) for name, value in headers]


def _adding(send: Send, headers: HeaderList) -> Send:
    """``send`` that adds ``headers`` to the response's start."""
    extra = _encoded(headers)

    async def send_with_headers(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return send_with_headers


class ASGIChannel:
    """One ASGI request's ``receive`` and ``send``, in the words of hasten's transports.

    Inbound: the body whole (a task reading every ``http.request``) or in chunks, and the
    client's departure (``http.disconnect``, listened for once asked about; from then on the
    body's messages reach ``receive()`` through the listener). Outbound: a whole body or a
    file, and a stream, which ``finish()`` ends when the serve step returns, as an RSGI
    server does. As an RSGI server does too, it adds Content-Length to a whole body unless
    the headers carry one. A file goes out as ``http.response.pathsend`` where the server
    offers that extension, else in chunks read on ``threads``.
    """

    __slots__ = (
        "_inbox",
        "_listener",
        "_pathsend",
        "_receive",
        "_responded",
        "_stream",
        "_threads",
        "send",
    )

    def __init__(
        self, receive: Receive, send: Send, pathsend: bool = False, threads: Executor | None = None
    ) -> None:
        self._receive = receive
        self.send = send
        self._pathsend = pathsend
        self._threads = threads
        self._stream: ASGIStreamWriter | None = None
        self._responded = False
        self._inbox: asyncio.Queue[Message] | None = None
        self._listener: asyncio.Task[None] | None = None

    # Inbound.
    async def receive(self) -> Message:
        """The client's next message: the body's, then ``http.disconnect``."""
        inbox = self._inbox
        if inbox is None:
            return await self._receive()
        assert self._listener is not None
        if inbox.empty() and self._listener.done():
            return {"type": "http.disconnect"}
        return await inbox.get()

    def __call__(self) -> Reading:
        # A task, as Granian's read is a future: the body timeout cancels it.
        return asyncio.ensure_future(self._whole())

    async def _whole(self) -> bytes:
        return b"".join([chunk async for chunk in self])

    async def __aiter__(self) -> AsyncIterator[bytes]:
        more_body = True
        while more_body:
            message = await self.receive()
            if message["type"] == "http.disconnect":
                raise ClientDisconnected
            more_body = message.get("more_body", False)
            chunk = message.get("body", b"")
            if chunk:
                yield chunk

    def client_disconnect(self) -> Awaitable[None]:
        if self._listener is None:
            self._inbox = asyncio.Queue()
            self._listener = asyncio.ensure_future(self._listen(self._inbox))
        return asyncio.shield(self._listener)

    async def _listen(self, inbox: asyncio.Queue[Message]) -> None:
        while True:
            message = await self._receive()
            inbox.put_nowait(message)
            if message["type"] == "http.disconnect":
                return

    # Outbound: each call hands back what sends it (the serve step awaits it).
    def _respond(self) -> None:
        if self._responded:
            raise RuntimeError("A response was already sent for this request")
        self._responded = True

    def response_bytes(self, status: int, headers: HeaderList, body: bytes) -> Awaitable[None]:
        self._respond()
        return self._send_whole(status, headers, body)

    async def _send_whole(self, status: int, headers: HeaderList, body: bytes) -> None:
        # perf: one pass encodes the headers and looks for a Content-Length, which is added
        # (as an RSGI server adds it) where the headers carry none and the status has a body.
        add_length = status in BODY_STATUSES or allows_body(status)
        encoded = []
        for name, value in headers:
            if name == "content-length":
                add_length = False
            encoded.append((name.encode("latin-1"), value.encode("latin-1")))
        if add_length:
            encoded.append((b"content-length", str(len(body)).encode()))
        await self.send({"type": "http.response.start", "status": status, "headers": encoded})
        await self.send({"type": "http.response.body", "body": body})

    async def _start(self, status: int, headers: HeaderList) -> None:
        await self.send(
            {"type": "http.response.start", "status": status, "headers": _encoded(headers)}
        )

    def response_stream(self, status: int, headers: HeaderList) -> ASGIStreamWriter:
        self._respond()
        self._stream = ASGIStreamWriter(self.send, status, headers)
        return self._stream

    def response_file(self, status: int, headers: HeaderList, file: str) -> Awaitable[None]:
        self._respond()
        if self._pathsend:
            return self._path_send(status, headers, file)
        return self._send_file(status, headers, file, 0, None)

    def response_file_range(
        self, status: int, headers: HeaderList, file: str, start: int, end: int
    ) -> Awaitable[None]:
        self._respond()
        return self._send_file(status, headers, file, start, end)

    async def _path_send(self, status: int, headers: HeaderList, file: str) -> None:
        await self._start(status, headers)
        # abspath asks the process's directory (a system call) only for a relative path.
        path = file if os.path.isabs(file) else os.path.abspath(file)
        await self.send({"type": "http.response.pathsend", "path": path})

    async def _send_file(
        self, status: int, headers: HeaderList, file: str, start: int, end: int | None
    ) -> None:
        writer = ASGIStreamWriter(self.send, status, headers)
        with open(file, "rb") as handle:  # reads go to the thread pool below
            handle.seek(start)
            left = (os.fstat(handle.fileno()).st_size if end is None else end) - start
            # The last chunk says it is the last: a client that has the whole body may send
            # its next request at once, and uvicorn starts the task for a request that came
            # before the response ended from within this one, in this request's context.
            while left > 0:
                chunk = await submit(self._threads, handle.read, min(FILE_CHUNK_SIZE, left))
                if not chunk:  # the file shrank since its headers were made
                    break
                left -= len(chunk)
                if left <= 0:
                    await writer.send_bytes(chunk, last=True)
                    return
                await writer.send_bytes(chunk)
        await writer.close()

    def finish(self) -> Awaitable[None] | None:
        """Stop listening for a disconnect, and end a stream the response started (RSGI
        servers do it when the app returns): what ends it, to await, or None when there is
        no stream (a plain function, as most responses have none)."""
        if self._listener is not None:
            self._listener.cancel()
        return None if self._stream is None else self._end_stream(self._stream)

    @staticmethod
    async def _end_stream(stream: ASGIStreamWriter) -> None:
        with contextlib.suppress(OSError):  # the client left mid-stream
            await stream.close()


class PortableChannel(ASGIChannel):
    """An ASGIChannel on another event loop than asyncio's (trio, through AnyIO): the whole
    body read in the request's own task, the client's departure watched by whoever asks, in
    their task (there is no body timeout to cancel a read, nor a task to listen apart)."""

    # Messages the departure's watch read before the body's reader asked for them, and
    # whether it saw the departure (no slots: a subclass's own, with these defaults).
    _held: deque[Message] | None = None
    _gone = False

    def __call__(self) -> Reading:
        return _WholeBody(self)

    async def receive(self) -> Message:
        held = self._held
        if held:
            return held.popleft()
        if self._gone:
            return {"type": "http.disconnect"}
        return await self._receive()

    async def client_disconnect(self) -> None:
        """Return when the client has gone away, keeping the body's messages it reads."""
        while not self._gone:
            message = await self._receive()
            if message["type"] == "http.disconnect":
                self._gone = True
                return
            if self._held is None:
                self._held = deque()
            self._held.append(message)


class _WholeBody:
    """A PortableChannel's read of a whole body: nothing cancels it (no body timeout)."""

    __slots__ = ("_channel",)

    def __init__(self, channel: PortableChannel) -> None:
        self._channel = channel

    def __await__(self) -> Generator[Any, None, bytes]:
        return self._channel._whole().__await__()

    def cancel(self, msg: Any = None) -> bool:
        return False


class ASGIStreamWriter:
    """A streamed ASGI body: the response starts with the first chunk, or at the end."""

    __slots__ = ("_headers", "_send", "_started", "_status")

    def __init__(self, send: Send, status: int, headers: HeaderList) -> None:
        self._send = send
        self._status = status
        self._headers = headers
        self._started = False

    async def _start(self) -> None:
        self._started = True
        await self._send(
            {
                "type": "http.response.start",
                "status": self._status,
                "headers": _encoded(self._headers),
            }
        )

    async def send_bytes(self, data: bytes, last: bool = False) -> None:
        if not self._started:
            await self._start()
        await self._send({"type": "http.response.body", "body": data, "more_body": not last})

    async def close(self) -> None:
        if not self._started:
            await self._start()
        await self._send({"type": "http.response.body", "body": b"", "more_body": False})


class ASGIWebSocket(ASGIScope, WebSocket):
    """A WebSocket over ASGI: ``websocket.*`` messages. A refusal carries its HTTP status
    where the server offers ``websocket.http.response``, else the server answers 403.

    Its channel is the ASGI ``(receive, send)`` pair.
    """

    _channel: tuple[Receive, Send]
    _connected = False
    _made_by_hand = False  # by an ASGI app of its own (``connection_over``), not by a route

    def _scheme(self) -> str:
        return str(self._scope.get("scheme", "ws"))

    @property
    def root_path(self) -> str:
        return str(self._scope.get("root_path", ""))

    async def call_asgi(
        self, app: ASGICallable, root_path: str, headers: list[tuple[str, str]], outbound: Any
    ) -> None:
        scope = dict(self._scope)
        scope["root_path"] = root_path
        scope["app"] = self.app  # as in Starlette: the app that mounts it
        receive, send = self._channel
        await app(scope, receive, send)

    async def _connect(self) -> None:
        """Take the server's ``websocket.connect``, which comes before anything else."""
        if not self._connected:
            message = await self._channel[0]()
            if message["type"] == "websocket.disconnect":
                raise WebSocketDisconnect(message.get("code", NO_STATUS))
            self._connected = True

    async def _accept(self, subprotocol: str | None, headers: list[tuple[str, str]]) -> None:
        await self._connect()
        await self._channel[1](
            {"type": "websocket.accept", "subprotocol": subprotocol, "headers": _encoded(headers)}
        )

    async def _receive(self) -> WebSocketMessage:
        message = await self._channel[0]()
        kind = message["type"]
        if kind == "websocket.receive":
            text: str | None = message.get("text")
            return text if text is not None else bytes(message["bytes"])
        if kind != "websocket.disconnect":
            raise RuntimeError(
                'Expected ASGI message "websocket.receive" or "websocket.disconnect", '
                f"but got {kind!r}"
            )
        raise WebSocketDisconnect(message.get("code", NO_STATUS), message.get("reason") or "")

    # perf: plain methods handing back _send's coroutine, one coroutine per message.
    def _send_text(self, data: str) -> Awaitable[None]:
        return self._send({"type": "websocket.send", "text": data})

    def _send_bytes(self, data: bytes) -> Awaitable[None]:
        return self._send({"type": "websocket.send", "bytes": data})

    async def _send(self, message: Message) -> None:
        try:
            await self._channel[1](message)
        except OSError:
            self.connection_state = "closed"
            raise WebSocketDisconnect(ABNORMAL) from None

    async def _close(self, code: int, reason: str) -> None:
        await self._channel[1]({"type": "websocket.close", "code": code, "reason": reason})

    async def _close_unaccepted(self, code: int, reason: str) -> None:
        if not self._made_by_hand:
            await self._refuse(403)
            return
        # Starlette's WebSocket(scope, receive, send): the close message itself, as there
        # (a server answers it with a 403; Starlette's test client raises its code).
        await self._channel[1]({"type": "websocket.close", "code": code, "reason": reason})

    async def _deny(self, response: Response) -> None:
        if not isinstance(response, (StreamingResponse, FileResponse)) or (
            "websocket.http.response" not in self._scope.get("extensions", {})
        ):
            await WebSocket._deny(self, response)
            return
        # A stream's or a file's body goes out as it is read, in parts: never whole in memory.
        await self._connect()
        send = self._channel[1]
        start = {"type": "websocket.http.response.start", "status": response.status}
        await send({**start, "headers": _encoded(response.wire_headers)})
        chunks = (
            response.body_iterator
            if isinstance(response, StreamingResponse)
            else _file_chunks(response.path, self.context.threads)
        )
        try:
            async for chunk in chunks:
                data = chunk.encode() if isinstance(chunk, str) else bytes(chunk)
                await send(
                    {"type": "websocket.http.response.body", "body": data, "more_body": True}
                )
        finally:
            await close_chunks(chunks)
        await send({"type": "websocket.http.response.body", "body": b""})

    async def _refuse(
        self, status: int, headers: Sequence[tuple[str, str]] = (), body: bytes = b""
    ) -> None:
        await self._connect()
        send = self._channel[1]
        if "websocket.http.response" in self._scope.get("extensions", {}):
            encoded = _encoded(headers)
            if not any(name == "content-length" for name, _ in headers):
                encoded.append((b"content-length", str(len(body)).encode()))
            start = {"type": "websocket.http.response.start", "status": status}
            await send({**start, "headers": encoded})
            await send({"type": "websocket.http.response.body", "body": body})
        else:
            await send({"type": "websocket.close", "code": 1000, "reason": ""})


async def serve(  # noqa: PLR0917 - perf: request_type positional, see serve_under_path_params
    served: Served,
    scope: Scope,
    receive: Receive,
    send: Send,
    under_middleware: bool = False,
    request_type: type[ASGIRequest] = ASGIRequest,
    *,
    channel_type: type[ASGIChannel] = ASGIChannel,
) -> None:
    """``App.__call__``, the app's ASGI 3 entry, and the innermost link of any ASGI
    middleware around it (``under_middleware``): one connection served. Off asyncio's loop
    (trio) the app's innermost link is a PortableASGIAdapter, which serves with
    ``channel_type`` PortableChannel. Under a mount's path parameters the request is a
    ``request_type`` MountedASGIRequest (``serve_under_path_params``).

    perf: the App calls it as its own ``__call__``, so that a request under an ASGI server
    runs in one coroutine of ours before the serve step, not one for the App and one for the
    adapter."""
    if not under_middleware:
        if served.root_path:  # App(root_path=...), FastAPI's deprecated keyword
            scope["root_path"] = served.root_path
        handler = served.asgi
        # ASGI middleware around the app, or tooling that replaced ``app.asgi``.
        if type(handler) is not ASGIAdapter or handler.served is not served:
            scope["app"] = served  # as Starlette's: Request(scope).app in a middleware
            await handler(scope, receive, send)
            return
    if scope["type"] != "http":
        await _serve_other(served, scope, receive, send)
        return
    path = route_path(scope)
    runtime: Runtime | Response | None = served.runtime
    if runtime is None:  # the first connection, before any startup
        runtime, channel_type = await _start(served, path)
    extensions = scope.get("extensions")
    pathsend = extensions is not None and "http.response.pathsend" in extensions
    if isinstance(runtime, Response):  # the app failed to start: every request gets its 500
        await _refuse(served, runtime, scope, channel_type(receive, send, pathsend), path)
        return
    # perf: ``ASGIChannel(receive, send, pathsend, runtime.context.threads)`` and
    # ``ASGIRequest(runtime.context, served, scope, channel, scope["method"], path)``
    # with their ``__init__``s written out, as the RSGI adapter makes its request
    # (each ``__init__`` would run in an interpreter frame of its own).
    # tests/project/test_perf_copies.py holds them equal.
    channel = _new(channel_type)
    channel._receive = receive
    channel.send = send
    channel._pathsend = pathsend
    channel._threads = runtime.context.threads
    channel._stream = None
    channel._responded = False
    channel._inbox = None
    channel._listener = None
    request = _new(request_type)
    request.context = runtime.context
    request.app = served
    request.method = scope["method"]
    request.path = path
    request._scope = scope
    request._channel = channel
    request._cleanup = None
    request._sub_response = None
    serve = runtime.serve  # an attribute of the runtime's, read specialized (not a method)
    try:
        await serve(request, channel)
    finally:
        # Under ASGI middleware, or mounted (the app that mounts it named in the scope; a
        # server's scope names none): what matched, even when the app failed.
        if under_middleware or "app" in scope:
            _leave_in_scope(served, request, scope)
    ending = channel.finish()
    if ending is not None:
        await ending
    if request._unhandled is not None:
        # What the app did not handle (it became a 500, which names nothing outside debug
        # mode, or failed after the response) is raised to the server once the response is
        # sent, as Starlette's ServerErrorMiddleware does: the server, an ASGI middleware
        # around the app or a test transport sees it.
        raise request._unhandled


async def _serve_other(served: Served, scope: Scope, receive: Receive, send: Send) -> None:
    """A connection that is not HTTP: a WebSocket, or the lifespan."""
    kind = scope["type"]
    if kind == "websocket":
        await _serve_websocket(served, scope, receive, send)
    elif kind == "lifespan":
        await _serve_lifespan(served, receive, send)


async def _refuse(
    served: Served, refusal: Response, scope: Scope, channel: ASGIChannel, path: str
) -> None:
    """Answer a request with ``refusal``, the app having failed to start."""
    await refusal.send(
        channel, ASGIRequest(UNSERVED, served, scope, channel, scope["method"], path)
    )
    ending = channel.finish()
    if ending is not None:
        await ending


# What a route that matched leaves in its scope, for an ASGI middleware around its app.
_LEFT_BY_ROUTER = ("route", "endpoint", "path_params", "root_path")


class MountedASGIRequest(ASGIRequest):
    """A request to a hasten app mounted where the path or host gave values (``Host(
    "{tenant}.example.org", app)``): its path parameters are those and its route's, as
    Starlette's router merges them (``serve_under_path_params``)."""

    _own: PathParams = NO_PATH_PARAMS

    @property
    def path_params(self) -> PathParams:
        return {**self._scope.get("path_params", {}), **self._own}

    @path_params.setter
    def path_params(self, values: PathParams) -> None:
        self._own = values


async def serve_under_path_params(
    served: Served, scope: Scope, receive: Receive, send: Send
) -> None:
    """``serve`` for an app mounted under path parameters (in ``scope["path_params"]``): its
    requests' ``path_params`` hold them too. Only such a mount pays for it."""
    # perf: positional, as a keyword's default would cost every request a dict lookup.
    await serve(served, scope, receive, send, False, MountedASGIRequest)


def _leave_in_scope(served: Served, request: ASGIRequest, scope: Scope) -> None:
    """What Starlette's router leaves in a middleware's scope, for an ASGI middleware that
    reads it after the app (starlette-exporter): each value made when the route compiled
    (the app is its own router)."""
    scope.setdefault("router", served)  # as Starlette's routers: where none is set yet
    target = request._target
    if target is None or target.scope_items is None or request._route_left:
        return
    scope.update(target.scope_items)
    scope["path_params"] = request.path_params


async def _start(served: Served, path: str) -> tuple[Runtime | Response, type[ASGIChannel]]:
    """Start the app for the first connection: its runtime (or the response refusing the
    connection), and the channel the connection takes on the loop that runs it."""
    runtime = await served.start_for(path)
    on_asyncio = isinstance(runtime, Response) or runtime.on_asyncio
    return runtime, ASGIChannel if on_asyncio else PortableChannel


class ASGIAdapter:
    """The app's ASGI callable under its ASGI middleware (``app.asgi``): the innermost link,
    which serves the connection."""

    __slots__ = ("served",)

    def __init__(self, served: Served) -> None:
        self.served = served

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await serve(self.served, scope, receive, send, under_middleware=True)


class PortableASGIAdapter(ASGIAdapter):
    """The innermost link on another event loop than asyncio's (trio): the same serve step,
    with PortableChannels. (A class of its own: ``serve`` then comes through it.)"""

    __slots__ = ()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await serve(self.served, scope, receive, send, True, channel_type=PortableChannel)


async def _serve_websocket(served: Served, scope: Scope, receive: Receive, send: Send) -> None:
    path = route_path(scope)
    runtime = served.runtime or await served.start_for(path)
    if isinstance(runtime, Response):
        websocket = ASGIWebSocket(UNSERVED, served, scope, (receive, send), "GET", path)
        await websocket.refuse(runtime.status)
        return
    websocket = ASGIWebSocket(runtime.context, served, scope, (receive, send), "GET", path)
    await runtime.serve_websocket(websocket)


async def _serve_lifespan(served: Served, receive: Receive, send: Send) -> None:
    steps = {"lifespan.startup": served.startup, "lifespan.shutdown": served.shutdown}
    while True:
        kind = (await receive())["type"]
        step = steps.get(kind)
        if step is None:
            continue
        try:
            await step()
        except Exception as exc:
            report_unhandled(exc)  # a TestClient raises it, as Starlette's does
            await send({"type": f"{kind}.failed", "message": repr(exc)})
            return
        await send({"type": f"{kind}.complete"})
        if kind == "lifespan.shutdown":
            return


async def _file_chunks(path: str, threads: Any) -> AsyncIterator[bytes]:
    """A file's bytes, read on the thread pool ``FILE_CHUNK_SIZE`` at a time."""
    with open(path, "rb") as handle:
        while chunk := await submit(threads, handle.read, FILE_CHUNK_SIZE):
            yield chunk


async def _nothing_received() -> Message:
    raise RuntimeError("Receive channel has not been made available")


async def _nothing_sent(message: Message) -> None:
    raise RuntimeError("Send channel has not been made available")


def connection_over(
    scope: Scope, receive: Receive | None = None, send: Send | None = None
) -> ASGIRequest | ASGIWebSocket:
    """Starlette's ``Request(scope, receive)`` and ``WebSocket(scope, receive, send)`` in an
    ASGI middleware: hasten's ASGI connection over that scope, read as the app (``scope
    ["app"]``) reads it, or by hasten's defaults outside one."""
    if scope["type"] not in ("http", "websocket"):
        raise ValueError(
            f"A connection is made over an http or websocket scope, not {scope['type']!r}"
        )
    served = scope.get("app")
    runtime = getattr(served, "runtime", None)
    context = UNSERVED if runtime is None else runtime.context
    # A scope made by hand may hold no more than its type, as Starlette's Request takes it.
    path = route_path(scope) if "path" in scope else ""
    pair = (receive or _nothing_received, send or _nothing_sent)
    connection: ASGIRequest | ASGIWebSocket
    if scope["type"] == "websocket":
        connection = ASGIWebSocket(context, served, scope, pair, "GET", path)
        connection._made_by_hand = True
    else:
        channel = ASGIChannel(*pair, threads=context.threads)
        connection = ASGIRequest(context, served, scope, channel, scope.get("method", "GET"), path)
    path_params = scope.get("path_params")
    if path_params:  # those of the route that matched, as Starlette's router leaves them
        connection.path_params = path_params
    return connection


Connection.made_over_asgi.update(
    {Connection: connection_over, Request: connection_over, WebSocket: connection_over}
)


async def send_over(response: Response, scope: Scope, receive: Receive, send: Send) -> None:
    """Starlette's ``await response(scope, receive, send)``: ``response`` sent over an ASGI
    scope (an ASGI middleware's), then its background task run, as Starlette's does. Over
    a WebSocket's scope it is the handshake's denial (``websocket.http.response``)."""
    if scope["type"] == "websocket":  # the messages of an HTTP response, named for a denial
        scope, receive, send = (
            {**scope, "type": "http", "method": "GET"},
            _no_disconnect,
            _denial(send),
        )
    elif scope["type"] != "http":
        raise ValueError(
            f"A Response is sent over an http or websocket scope, not {scope['type']!r}"
        )
    request = connection_over(scope, receive, send)
    assert isinstance(request, ASGIRequest)
    channel = request._channel
    try:
        await sender(response)(channel, request)
    finally:
        ending = channel.finish()
        if ending is not None:
            await ending
    if response.background is not None:
        await run_tasks(response.background, request.context.threads)


def _denial(send: Send) -> Send:
    async def deny(message: Message) -> None:
        await send({**message, "type": f"websocket.{message['type']}"})

    return deny


async def _no_disconnect() -> Message:
    # A denial's client sends nothing to listen for: its response is sent whole.
    await asyncio.Event().wait()
    raise AssertionError("unreachable")  # pragma: no cover


Response.sent_over_asgi = send_over
