"""What the test client hands a protocol double and gets back: a request and its response, or
a WebSocket's messages."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

import httpx

__all__ = ["DEFAULT_PORTS", "Message", "Pipe", "Result", "Wire"]

# A WebSocket message as ASGI spells it, whichever protocol the app speaks.
Message = dict[str, Any]

DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


class Wire:
    """The parts of an httpx request the doubles need, in the forms the servers deliver,
    and the client address the servers report."""

    def __init__(self, request: httpx.Request, client: tuple[str, int]) -> None:
        raw_path, _, query = request.url.raw_path.decode("ascii").partition("?")
        self.method = request.method
        self.raw_path = raw_path
        self.query_string = query
        # Bytes read as latin-1, as servers deliver them (httpx would try UTF-8 first).
        self.headers = [
            (name.decode("latin-1").lower(), value.decode("latin-1"))
            for name, value in request.headers.raw
        ]
        # A server hands over no empty piece of a body (an empty chunk ends a chunked one):
        # httpx yields one for an empty multipart part.
        self.chunks = [bytes(chunk) for chunk in request.stream if chunk]  # type: ignore[union-attr]
        self.host = request.url.host
        self.scheme = request.url.scheme
        port = request.url.port
        self.port = DEFAULT_PORTS.get(self.scheme, 80) if port is None else port
        self.client = client


class Result:
    """What the app sent; an app that sends nothing gets Granian's empty 500.

    Buffered (the default, for a test that drives a double itself), the body collects in
    ``body``. Streamed (the TestClient's), each part waits until the client reads it, as over
    a socket whose reader is slow: the response is the client's once its head is sent, and
    the app runs no further than the client has read.
    """

    def __init__(self, *, streamed: bool = False) -> None:
        self.responded = False
        self.status = 500
        self.headers: list[tuple[str, str]] = []
        self.body = b""
        self.templates: list[tuple[Any, Any]] = []  # each TemplateResponse's, as made
        self.trailers: list[tuple[bytes, bytes]] | None = None  # when the start declares them
        self.debug: dict[str, Any] | None = None  # an http.response.debug message's info
        self.streamed = streamed
        self.body_complete = False  # no part of the body will come
        self.complete = False  # nothing will come: the body and any trailers are sent
        self.ended = False  # the app has returned
        self.started = asyncio.Event()  # the head is sent, or the app has returned
        self._parts: deque[tuple[bytes, asyncio.Future[None] | None]] = deque()
        self._changed = asyncio.Event()

    def start(self, status: int, headers: list[tuple[str, str]]) -> None:
        self.responded = True
        self.status = status
        self.headers = headers
        self.started.set()

    def add(self, data: bytes) -> None:
        """A part the app has handed over whole (a file, a body sent at once)."""
        if self.streamed:
            self._parts.append((data, None))
            self._changed.set()
        else:
            self.body += data

    async def hand(self, data: bytes) -> None:
        """A streamed part, copied (the app may reuse its buffer); streamed, it returns once
        the client has read it."""
        if not self.streamed:
            self.body += data
            return
        taken = asyncio.get_running_loop().create_future()
        self._parts.append((bytes(data), taken))
        self._changed.set()
        await taken

    def end_body(self) -> None:
        """The body is complete (trailers may follow)."""
        self.body_complete = True
        self.started.set()
        self._changed.set()

    def finish(self) -> None:
        """The response is complete."""
        self.complete = True
        self.end_body()

    def end(self) -> None:
        """The app has returned: what it did not send will not come."""
        self.ended = True
        self.end_body()

    async def take(self) -> bytes | None:
        """The client reads the next part; None once the response is complete (its trailers
        too, where it declared them) or the app has returned."""
        while not self._parts:
            if self.complete or self.ended:
                return None
            self._changed.clear()
            await self._changed.wait()
        data, taken = self._parts.popleft()
        if taken is not None and not taken.done():
            taken.set_result(None)
        return data


class Pipe:
    """One WebSocket's messages, as ASGI spells them: ``to_app`` carries the test's
    (``websocket.receive``, ``websocket.disconnect``), ``from_app`` the app's
    (``websocket.accept``, ``websocket.send``, ``websocket.close``,
    ``websocket.http.response.*``)."""

    def __init__(self) -> None:
        self.to_app: asyncio.Queue[Message] = asyncio.Queue()
        self.from_app: asyncio.Queue[Message] = asyncio.Queue()
