"""An ASGI server's side, in-process: scopes, ``receive`` and ``send`` as strict as uvicorn's,
and the lifespan protocol that starts and stops the app."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from hasten._http.errors import unhandled_exceptions
from hasten._http.paths import under_root
from hasten._http.websockets import ABNORMAL
from hasten.testing.exchange import Message, Pipe, Result, Wire

if TYPE_CHECKING:
    from hasten._flow.contracts import ASGIApp
    from hasten.app import Starlette

__all__ = ["ASGIDriver", "ASGIMisuse", "HTTPExchange", "WebSocketChannel"]


class ASGIMisuse(RuntimeError, AssertionError):
    """An app broke the ASGI protocol: a RuntimeError, as uvicorn raises it, and an
    AssertionError, as Starlette's test client raises it."""


class HTTPExchange:
    """One request's ``receive`` and ``send``, as strict as uvicorn's: the body comes once,
    then ``receive`` waits until the response is complete (as for a client that stays);
    messages out of order are an error. It offers Starlette's test client's extensions:
    ``http.response.trailers`` (after a start that declares them) and ``http.response.debug``."""

    def __init__(self, chunks: list[bytes], result: Result) -> None:
        self._incoming = iter(
            [
                {"type": "http.request", "body": chunk, "more_body": index < len(chunks) - 1}
                for index, chunk in enumerate(chunks or [b""])
            ]
        )
        self._done = asyncio.Event()
        self.result = result

    async def receive(self) -> Message:
        message = next(self._incoming, None)
        if message is not None:
            return message
        await self._done.wait()
        return {"type": "http.disconnect"}

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if self.result.complete:
            raise ASGIMisuse(f"Unexpected ASGI message {kind!r} after response completed")
        if kind == "http.response.start":
            self._start(message)
        elif kind == "http.response.body":
            await self._take_body(message)
        elif kind == "http.response.trailers":
            self._take_trailers(message)
        elif kind == "http.response.debug":
            self.result.debug = message["info"]
        else:
            raise ASGIMisuse(f"Unexpected ASGI message {kind!r}")

    def _start(self, message: Message) -> None:
        result = self.result
        if result.responded:
            raise ASGIMisuse("Unexpected ASGI message 'http.response.start' sent twice")
        if message.get("trailers", False):
            result.trailers = []
        result.start(
            message["status"],
            [
                (name.decode("latin-1"), value.decode("latin-1"))
                for name, value in message.get("headers", ())
            ],
        )

    async def _take_body(self, message: Message) -> None:
        result = self.result
        if not result.responded:
            raise ASGIMisuse("Unexpected ASGI message 'http.response.body' before start")
        if result.body_complete:
            raise ASGIMisuse("Unexpected ASGI message 'http.response.body' after body completed")
        last = not message.get("more_body", False)
        await result.hand(message.get("body", b""))
        if last:
            if result.trailers is None:
                self._complete()
            else:
                result.end_body()

    def _take_trailers(self, message: Message) -> None:
        trailers = self.result.trailers
        if trailers is None:
            raise ASGIMisuse(
                "Unexpected ASGI message 'http.response.trailers' without declaring trailers"
            )
        if not self.result.body_complete:
            raise ASGIMisuse(
                "Unexpected ASGI message 'http.response.trailers' before body completed"
            )
        trailers.extend(message.get("headers", ()))
        if not message.get("more_trailers", False):
            self._complete()

    def _complete(self) -> None:
        self.result.finish()
        self._done.set()


# What an app may send on a WebSocket in each state, as uvicorn checks it.
_ALLOWED = {
    "connecting": ("websocket.accept", "websocket.close", "websocket.http.response.start"),
    "accepted": ("websocket.send", "websocket.close"),
    "denying": ("websocket.http.response.body",),
    "closed": (),
}
_NEXT_STATE = {
    "websocket.accept": "accepted",
    "websocket.close": "closed",
    "websocket.http.response.start": "denying",
}


class WebSocketChannel:
    """An ASGI server's side of one WebSocket, offering ``websocket.http.response``: it says
    ``websocket.connect`` first, passes the test's messages on, and holds the app to
    uvicorn's order. Once the app has taken the client's close, it may send nothing more."""

    def __init__(self, pipe: Pipe) -> None:
        self._pipe = pipe
        self._connected = False
        self._state = "connecting"

    async def receive(self) -> Message:
        if not self._connected:
            self._connected = True
            return {"type": "websocket.connect"}
        if self._state == "closed":
            return {"type": "websocket.disconnect", "code": ABNORMAL, "reason": ""}
        message = await self._pipe.to_app.get()
        if message["type"] == "websocket.disconnect":
            self._state = "closed"
        return message

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind not in _ALLOWED[self._state]:
            raise RuntimeError(f"Unexpected ASGI message {kind!r} on a {self._state} WebSocket")
        if kind == "websocket.close":
            message = {"code": 1000, "reason": "", **message}
        if kind == "websocket.http.response.body":
            if not message.get("more_body", False):
                self._state = "closed"
        else:
            self._state = _NEXT_STATE.get(kind, self._state)
        await self._pipe.from_app.put(dict(message))


class _Lifespan:
    """One run of the app's ASGI lifespan scope, as a server holds it from startup to
    shutdown; a failure raises the app's own exception, as Starlette's TestClient does."""

    def __init__(self, app: Starlette | ASGIApp) -> None:
        self._to_app: asyncio.Queue[Message] = asyncio.Queue()
        self._from_app: asyncio.Queue[Message] = asyncio.Queue()
        self._failures: list[BaseException] = []
        scope = {"type": "lifespan", "asgi": {"version": "3.0", "spec_version": "2.0"}}
        self.task = asyncio.create_task(self._run(app, scope))

    async def _run(self, app: Starlette | ASGIApp, scope: Message) -> None:
        unhandled_exceptions.set(self._failures)  # this task's context only
        await app(scope, self._to_app.get, self._from_app.put)  # type: ignore[arg-type]

    async def phase(self, phase: str) -> None:
        await self._to_app.put({"type": f"lifespan.{phase}"})
        answer = asyncio.ensure_future(self._from_app.get())
        await asyncio.wait((answer, self.task), return_when=asyncio.FIRST_COMPLETED)
        if not answer.done():  # the app returned, or raised, without answering
            answer.cancel()
            await self.task
            raise RuntimeError(f"The app's lifespan ended without answering lifespan.{phase}")
        message = answer.result()
        if message["type"] != f"lifespan.{phase}.complete":
            await self.task
            if self._failures:
                raise self._failures[0]
            raise RuntimeError(f"lifespan {phase} failed: {message.get('message')}")
        if phase == "shutdown":
            await self.task

    async def cancel(self) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task


class ASGIDriver:
    """Serves an app as uvicorn does: the lifespan scope starts and stops it, and each
    connection gets a scope, ``receive`` and ``send``. Under ``root_path`` the app is served
    as if mounted there by another app (the prefix in both the path and ``root_path``); a
    request may name the path with the prefix or without."""

    def __init__(self, app: Starlette | ASGIApp, root_path: str) -> None:
        self.app = app if _speaks_asgi3(app) else _asgi2_served(app)
        self.root_path = root_path
        self._lifespan: _Lifespan | None = None

    async def start(self) -> None:
        if self._lifespan is not None:  # of a run someone else has stopped
            await self._lifespan.cancel()
        self._lifespan = _Lifespan(self.app)
        try:
            await self._lifespan.phase("startup")
        except BaseException:
            self._lifespan = None
            raise

    async def stop(self, current: bool) -> None:
        lifespan, self._lifespan = self._lifespan, None
        if lifespan is None:
            shutdown = getattr(self.app, "shutdown", None)  # a hasten app started otherwise
            if current and shutdown is not None:
                await shutdown()
        elif current:
            await lifespan.phase("shutdown")
        else:
            await lifespan.cancel()  # its run is over: another run must not be shut down

    def _scope(self, kind: str, wire: Wire) -> dict[str, Any]:
        # A path given under the root path already (Starlette's TestClient takes it so) is
        # sent as it is; any other is sent under it, as a server with a root path does.
        raw_path = wire.raw_path
        if under_root(raw_path, self.root_path) == raw_path:
            raw_path = self.root_path + raw_path
        return {
            "type": kind,
            "asgi": {"version": "3.0", "spec_version": "2.4"},
            "http_version": "1.1",
            "scheme": wire.scheme,
            "path": unquote(raw_path),
            "raw_path": raw_path.encode("ascii"),
            "query_string": wire.query_string.encode("ascii"),
            "root_path": self.root_path,
            "headers": [(n.encode("latin-1"), v.encode("latin-1")) for n, v in wire.headers],
            "client": wire.client,
            "server": (wire.host, wire.port),
        }

    async def send(self, wire: Wire, result: Result) -> None:
        scope = self._scope("http", wire)
        scope["method"] = wire.method
        # Starlette's test client's: no push, no early hints, no pathsend.
        scope["extensions"] = {"http.response.debug": {}, "http.response.trailers": {}}
        exchange = HTTPExchange(wire.chunks, result)
        await self.app(scope, exchange.receive, exchange.send)  # type: ignore[arg-type]
        # Trailers left unfinished end the response as it is, as in Starlette's test client.
        if not result.body_complete:
            raise ASGIMisuse(
                "TestClient did not receive any response: the app returned without "
                "completing its response"
                if not result.responded
                else "The app returned without completing its response"
            )

    async def websocket(self, wire: Wire, pipe: Pipe) -> None:
        scope = self._scope("websocket", wire)
        offered = [
            item.strip()
            for name, value in wire.headers
            if name == "sec-websocket-protocol"
            for item in value.split(",")
        ]
        scope["subprotocols"] = offered
        scope["extensions"] = {"websocket.http.response": {}}
        channel = WebSocketChannel(pipe)
        await self.app(scope, channel.receive, channel.send)  # type: ignore[arg-type]


def _speaks_asgi3(app: Any) -> bool:
    """Whether ``app`` is an ASGI 3 app, by uvicorn's rule: a class with ``__await__``, a
    coroutine function, or an object whose ``__call__`` is one; else it is ASGI 2's
    ``app(scope)`` giving an ``instance(receive, send)``."""
    if inspect.isclass(app):
        return hasattr(app, "__await__")
    # The object's own __call__, as uvicorn reads it: an instance may set its own
    # (sentry-sdk's middleware picks its ASGI 2 or 3 call when it is made).
    call = app.__call__
    return inspect.iscoroutinefunction(app) or inspect.iscoroutinefunction(call)


def _asgi2_served(app: Any) -> ASGIApp:
    async def asgi3(scope: Any, receive: Any, send: Any) -> None:
        await app(scope)(receive, send)

    return asgi3
