"""What the test client hands a protocol double and gets back: a request and its response, or
a WebSocket's messages."""

from __future__ import annotations

import asyncio
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
        self.port = request.url.port or DEFAULT_PORTS.get(self.scheme, 80)
        self.client = client


class Result:
    """What the app sent; an app that sends nothing gets Granian's empty 500."""

    def __init__(self) -> None:
        self.responded = False
        self.status = 500
        self.headers: list[tuple[str, str]] = []
        self.body = b""
        self.templates: list[tuple[Any, Any]] = []  # each TemplateResponse's, as made
        self.trailers: list[tuple[bytes, bytes]] | None = None  # when the start declares them
        self.debug: dict[str, Any] | None = None  # an http.response.debug message's info


class Pipe:
    """One WebSocket's messages, as ASGI spells them: ``to_app`` carries the test's
    (``websocket.receive``, ``websocket.disconnect``), ``from_app`` the app's
    (``websocket.accept``, ``websocket.send``, ``websocket.close``,
    ``websocket.http.response.*``)."""

    def __init__(self) -> None:
        self.to_app: asyncio.Queue[Message] = asyncio.Queue()
        self.from_app: asyncio.Queue[Message] = asyncio.Queue()
