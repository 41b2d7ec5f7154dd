"""The test's end of a WebSocket: Starlette's ``WebSocketTestSession``, over either adapter."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

import httpx

from hasten._http.websockets import ABNORMAL, WebSocketDisconnect
from hasten.testing.exchange import Message, Pipe
from hasten.testing.loop import LoopThread

__all__ = ["WebSocketDenialResponse", "WebSocketTestSession"]

# How long a handler has to end once the test has closed its WebSocket, before it is
# cancelled (Starlette's cancels it at once; one that is about to end is let finish).
END_GRACE = 1.0
RECEIVE_TIMEOUT = 10.0


class WebSocketDenialResponse(httpx.Response, WebSocketDisconnect):  # type: ignore[misc]
    """The app refused the handshake with an HTTP response (``status_code``, ``headers``,
    ``content``), as Starlette's. As a WebSocketDisconnect its code is 1006, what a browser
    reports for a handshake that failed."""

    def __init__(self, status_code: int, headers: list[tuple[bytes, bytes]], content: bytes):
        httpx.Response.__init__(self, status_code, headers=headers, content=content)
        WebSocketDisconnect.__init__(self, ABNORMAL, "")

    def __str__(self) -> str:
        return f"The app refused the WebSocket with {self.status_code}"


class WebSocketTestSession:
    """A WebSocket to the app, driven from the test (``client.websocket_connect``), as
    Starlette's: ``send_*`` and ``receive_*``, ``receive()`` for the app's next ASGI
    message, ``close()``. ``receive_*`` raise ``WebSocketDisconnect`` once the app has closed
    it. Leaving the ``with`` block closes it (code 1000) and waits for the app's handler
    (a second at most, then it is cancelled); an exception the handler let out is raised
    there (``raise_server_exceptions``)."""

    __test__ = False

    def __init__(
        self,
        loop: LoopThread,
        pipe: Pipe,
        served: asyncio.Task[None],
        failures: list[BaseException],
        raise_server_exceptions: bool,
    ) -> None:
        self._loop = loop
        self._pipe = pipe
        self._served = served
        self._failures = failures
        self._raise_server_exceptions = raise_server_exceptions
        self._accepted = False
        self.accepted_subprotocol: str | None = None
        self.extra_headers: list[tuple[bytes, bytes]] | None = None

    def handshake(self) -> None:
        """Wait for the app to accept; raise what refused it."""
        message = self.receive()
        if message["type"] != "websocket.accept":
            self._end()
            self._raise_failure()
            self._raise_on_close(message)
            raise AssertionError(f"Expected 'websocket.accept', the app sent {message!r}")
        self._accepted = True
        self.accepted_subprotocol = message.get("subprotocol")
        self.extra_headers = message.get("headers")

    # Sending.
    def send(self, message: Message) -> None:
        """Hand the app an ASGI message (``websocket.receive`` or ``websocket.disconnect``)."""
        self._loop.run(self._pipe.to_app.put(message))

    def send_text(self, data: str) -> None:
        self.send({"type": "websocket.receive", "text": data})

    def send_bytes(self, data: bytes) -> None:
        self.send({"type": "websocket.receive", "bytes": data})

    def send_json(self, data: Any, mode: Literal["text", "binary"] = "text") -> None:
        text = json.dumps(data, separators=(",", ":"), ensure_ascii=False)
        if mode == "text":
            self.send({"type": "websocket.receive", "text": text})
        else:
            self.send({"type": "websocket.receive", "bytes": text.encode("utf-8")})

    def close(self, code: int = 1000, reason: str | None = None) -> None:
        """Close from the test's side: the app's next receive gets the close."""
        self.send({"type": "websocket.disconnect", "code": code, "reason": reason})

    # Receiving.
    def receive(self, timeout: float = RECEIVE_TIMEOUT) -> Message:
        """The app's next ASGI message (``websocket.send``, ``websocket.close``, ...); a
        ``websocket.close`` with 1006 once the app has ended without one."""
        return self._loop.run(self._next(), timeout)

    async def _next(self) -> Message:
        from_app = self._pipe.from_app
        if from_app.empty() and not self._served.done():
            getter = asyncio.ensure_future(from_app.get())
            try:
                await asyncio.wait([getter, self._served], return_when=asyncio.FIRST_COMPLETED)
            finally:
                if not getter.done():
                    getter.cancel()  # a getter left waiting would take the next message
            if getter.done():
                return getter.result()
        if not from_app.empty():
            return from_app.get_nowait()
        if self._accepted:  # the connection dropped without a close frame
            return {"type": "websocket.close", "code": ABNORMAL, "reason": ""}
        # An ASGI server answers a handshake the app left unanswered with a 500.
        return {"type": "websocket.http.response.start", "status": 500, "headers": []}

    def receive_text(self) -> str:
        message = self.receive()
        self._raise_on_close(message)
        text: str = message["text"]
        return text

    def receive_bytes(self) -> bytes:
        message = self.receive()
        self._raise_on_close(message)
        data: bytes = message["bytes"]
        return data

    def receive_json(self, mode: Literal["text", "binary"] = "text") -> Any:
        message = self.receive()
        self._raise_on_close(message)
        text = message["text"] if mode == "text" else message["bytes"].decode("utf-8")
        return json.loads(text)

    def _raise_on_close(self, message: Message) -> None:
        if message["type"] == "websocket.close":
            raise WebSocketDisconnect(message.get("code", 1000), message.get("reason") or "")
        if message["type"] == "websocket.http.response.start":
            body = b""
            while self._pipe.from_app.qsize() or not self._served.done():
                part = self.receive()
                if part["type"] != "websocket.http.response.body":
                    break
                body += part.get("body", b"")
                if not part.get("more_body", False):
                    break
            raise WebSocketDenialResponse(message["status"], message["headers"], body)

    # Ending.
    def _end(self, grace: float = END_GRACE) -> None:
        """Wait for the app's side to end (``grace`` seconds at most, then cancel it)."""
        self._loop.run(self._ended(grace))

    async def _ended(self, grace: float) -> None:
        done, _ = await asyncio.wait([self._served], timeout=grace)
        if not done:
            self._served.cancel()
            await asyncio.wait([self._served])

    def _raise_failure(self) -> None:
        if self._failures and self._raise_server_exceptions:
            raise self._failures[0]

    def __enter__(self) -> WebSocketTestSession:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if not self._served.done():
            self.close(1000)
        self._end()
        self._raise_failure()
