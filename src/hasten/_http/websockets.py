"""WebSocket: what a WebSocket handler talks to, whichever protocol carried it.

``@app.websocket("/ws/{room}")`` handlers take the same typed path, query, header and cookie
parameters as HTTP handlers (one parameter description, the same extractors), and the
``WebSocket`` itself like a Request. The protocol adapters subclass WebSocket to say how a
message is accepted, received, sent and closed.
"""

from __future__ import annotations

import asyncio
import enum
from collections.abc import AsyncIterator, Awaitable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import anyio
import msgspec

from hasten._http.connection import Connection
from hasten._http.files import FileResponse
from hasten._http.responses import StreamingResponse

if TYPE_CHECKING:
    from hasten._http.responses import Response

__all__ = [
    "ConnectionState",
    "WebSocket",
    "WebSocketDisconnect",
    "WebSocketDisconnected",
    "WebSocketState",
]

ConnectionState = Literal["connecting", "connected", "closed"]
Message = str | bytes


class WebSocketState(enum.Enum):
    """Starlette's states of a WebSocket (``websocket.client_state``,
    ``websocket.application_state``); hasten's own is ``websocket.connection_state``."""

    CONNECTING = 0
    CONNECTED = 1
    DISCONNECTED = 2
    RESPONSE = 3


_STATES = {
    "connecting": WebSocketState.CONNECTING,
    "connected": WebSocketState.CONNECTED,
    "closed": WebSocketState.DISCONNECTED,
}
_CONNECTION_STATES: dict[WebSocketState, ConnectionState] = {
    WebSocketState.CONNECTING: "connecting",
    WebSocketState.CONNECTED: "connected",
    WebSocketState.DISCONNECTED: "closed",
    WebSocketState.RESPONSE: "closed",
}

# RFC 6455 §7.4.1 close codes hasten sends.
NORMAL = 1000
GOING_AWAY = 1001
UNSUPPORTED_DATA = 1003
NO_STATUS = 1005
ABNORMAL = 1006
INVALID_DATA = 1007
POLICY_VIOLATION = 1008
TOO_BIG = 1009
INTERNAL_ERROR = 1011

_json_decode = msgspec.json.decode
_json_encode = msgspec.json.encode


class WebSocketDisconnected(RuntimeError):
    """Sending or receiving on a WebSocket that is not connected (Starlette's name): not
    accepted yet, or closed already."""


class WebSocketDisconnect(Exception):
    """The WebSocket closed: ``code`` and ``reason`` are the close frame's (1005 when the
    server does not tell, as Granian's RSGI does not)."""

    def __init__(self, code: int = NORMAL, reason: str = "") -> None:
        super().__init__(code, reason)
        self.code = code
        self.reason = reason

    def __repr__(self) -> str:
        return f"WebSocketDisconnect({self.code}, {self.reason!r})"


class WebSocket(Connection):
    """A WebSocket connection: ``await ws.accept()``, then receive and send text, bytes or
    JSON, then ``await ws.close()`` (the serve step closes it if the handler does not).

    ``receive_*`` raise ``WebSocketDisconnect`` when the client has gone; ``iter_*`` end.
    A message over ``websocket_max_size`` closes the socket with 1009, silence past
    ``websocket_idle_timeout`` with 1001.
    """

    connection_state: ConnectionState = "connecting"
    # Starlette's receive() gives the handshake's "websocket.connect" once, before accept().
    _connect_given = False
    # Whether the app has closed it (a second close is an error, as in Starlette; a close
    # after the client left is not).
    _closed_by_app = False
    # A denial response sent as ASGI messages (send()): its status, headers, body so far.
    _denial: tuple[int, list[tuple[str, str]], bytearray] | None = None

    @property
    def client_state(self) -> WebSocketState:
        """The connection's state, in Starlette's terms."""
        return _STATES[self.connection_state]

    @client_state.setter
    def client_state(self, state: WebSocketState) -> None:
        self.connection_state = _CONNECTION_STATES[state]

    application_state = client_state

    def _origin_allowed(self) -> bool:
        """Whether ``websocket_allowed_origins`` lets this handshake's Origin in (a client
        that sends none is not a browser: no other site's page can have opened it). Over an
        ASGI scope no hasten app serves (Starlette's ``WebSocket(scope, receive, send)`` in an
        app of its own), no app's setting holds."""
        settings = getattr(self.app, "settings", None)
        allowed = getattr(settings, "websocket_allowed_origins", None)
        if allowed is None:
            return True
        origin = self._header("origin")
        return origin is None or _origin(origin) in {_origin(item) for item in allowed}

    # The protocol adapters implement these.
    async def _accept(self, subprotocol: str | None, headers: list[tuple[str, str]]) -> None:
        raise NotImplementedError

    async def _connect(self) -> None:
        """Take the server's opening of the handshake, where it sends one (ASGI)."""

    async def _receive(self) -> Message:
        """The next message; raises WebSocketDisconnect when the client closed."""
        raise NotImplementedError

    def _send_text(self, data: str) -> Awaitable[None]:
        raise NotImplementedError

    def _send_bytes(self, data: bytes) -> Awaitable[None]:
        raise NotImplementedError

    async def _close(self, code: int, reason: str) -> None:
        raise NotImplementedError

    async def _refuse(
        self, status: int, headers: Sequence[tuple[str, str]] = (), body: bytes = b""
    ) -> None:
        """Refuse the handshake: with HTTP ``status`` (and ``headers`` and ``body``) where the
        server allows it, else 403."""
        raise NotImplementedError

    async def _close_unaccepted(self, code: int, reason: str) -> None:
        """``close()`` before ``accept()``: the handshake refused (403)."""
        await self._refuse(403)

    @property
    def subprotocols(self) -> list[str]:
        """The subprotocols the client offered, in its order of preference."""
        offered = self.headers.get_all("sec-websocket-protocol")
        return [item.strip() for value in offered for item in value.split(",") if item.strip()]

    async def accept(
        self,
        subprotocol: str | None = None,
        headers: Mapping[str, str] | Iterable[tuple[str | bytes, str | bytes]] | None = None,
    ) -> None:
        """Complete the handshake, choosing ``subprotocol`` (one the client offered) and
        adding ``headers`` to the 101 response (ASGI only: Granian's RSGI cannot send either).

        With ``websocket_allowed_origins``, a browser's handshake from another origin is
        refused with 403 instead, and ``WebSocketDisconnect(1008)`` raised.
        """
        if self.connection_state != "connecting":
            raise RuntimeError(f"Cannot accept a WebSocket that is {self.connection_state}")
        if subprotocol is not None and subprotocol not in self.subprotocols:
            raise ValueError(
                f"Subprotocol {subprotocol!r} was not offered by the client "
                f"(it offered {self.subprotocols})"
            )
        if not self._origin_allowed():
            await self.refuse(403)
            raise WebSocketDisconnect(POLICY_VIOLATION, "origin not allowed")
        await self._accept(subprotocol, _header_items(headers))
        self.connection_state = "connected"
        self._connect_given = True  # the handshake is over: receive() gives no connect

    async def receive(self) -> dict[str, Any]:
        """The next ASGI message, as Starlette's: ``{"type": "websocket.connect"}`` once
        before ``accept()``, then ``{"type": "websocket.receive", "text": ...}`` (or
        ``"bytes"``), and ``{"type": "websocket.disconnect", "code": ...}`` when the client
        has gone (not raised, as ``receive_text`` and the others raise it)."""
        if self.connection_state == "connecting" and not self._connect_given:
            self._connect_given = True
            try:
                await self._connect()
            except WebSocketDisconnect as gone:  # the client left during the handshake
                self.connection_state = "closed"
                return {"type": "websocket.disconnect", "code": gone.code, "reason": gone.reason}
            return {"type": "websocket.connect"}
        if self.connection_state == "closed":
            raise WebSocketDisconnected(
                'Cannot call "receive" once a disconnect message has been received.'
            )
        try:
            data = await self._receive_data()
        except WebSocketDisconnect as gone:
            return {"type": "websocket.disconnect", "code": gone.code, "reason": gone.reason}
        kind = "text" if isinstance(data, str) else "bytes"
        return {"type": "websocket.receive", kind: data}

    async def _receive_data(self) -> Message:
        """The next message's text (str) or bytes."""
        if self.connection_state != "connected":
            raise WebSocketDisconnected(
                f"Cannot receive on a WebSocket that is {self.connection_state}: accept it"
            )
        try:
            context = self.context
            if context.websocket_idle_timeout is None:
                message = await self._receive()
            elif context.on_asyncio:
                async with asyncio.timeout(context.websocket_idle_timeout):
                    message = await self._receive()
            else:  # another event loop than asyncio's (trio)
                with anyio.fail_after(context.websocket_idle_timeout):
                    message = await self._receive()
        except WebSocketDisconnect:
            self.connection_state = "closed"
            raise
        except TimeoutError:
            await self._fail(GOING_AWAY, "idle timeout")
        if len(message) > self.context.websocket_max_size:
            await self._fail(TOO_BIG, f"message over {self.context.websocket_max_size} bytes")
        return message

    async def receive_text(self) -> str:
        message = await self._receive_data()
        if not isinstance(message, str):
            await self._fail(UNSUPPORTED_DATA, "expected a text message")
        return message

    async def receive_bytes(self) -> bytes:
        message = await self._receive_data()
        if not isinstance(message, bytes):
            await self._fail(UNSUPPORTED_DATA, "expected a binary message")
        return message

    async def receive_json(self, mode: Literal["text", "binary"] | None = None) -> Any:
        """The next message decoded as JSON: a text or a binary one, or the one ``mode``
        says (Starlette's keyword); invalid JSON closes with 1007."""
        if mode is None:
            message: Message = await self._receive_data()
        elif mode == "text":
            message = await self.receive_text()
        elif mode == "binary":
            message = await self.receive_bytes()
        else:
            raise RuntimeError('The "mode" argument should be "text" or "binary".')
        try:
            return _json_decode(message)
        except msgspec.DecodeError:
            await self._fail(INVALID_DATA, "invalid JSON")

    # perf: the loops of iter_text and iter_bytes, and send_text and send_bytes as plain
    # methods, save a coroutine per message each (benchmarks/streams.py --only websocket).
    async def iter_text(self) -> AsyncIterator[str]:
        """Text messages until the client closes."""
        receive = self._receive_data
        try:
            while True:
                message = await receive()
                if type(message) is not str:
                    await self._fail(UNSUPPORTED_DATA, "expected a text message")
                yield message
        except WebSocketDisconnect:
            return

    async def iter_bytes(self) -> AsyncIterator[bytes]:
        """Binary messages until the client closes."""
        receive = self._receive_data
        try:
            while True:
                message = await receive()
                if type(message) is not bytes:
                    await self._fail(UNSUPPORTED_DATA, "expected a binary message")
                yield message
        except WebSocketDisconnect:
            return

    async def iter_json(self) -> AsyncIterator[Any]:
        """JSON messages until the client closes."""
        try:
            while True:
                yield await self.receive_json()
        except WebSocketDisconnect:
            return

    def send_text(self, data: str) -> Awaitable[None]:
        """Send a text message."""
        if self.connection_state != "connected":
            self._not_connected()
        return self._send_text(data)

    def send_bytes(self, data: bytes) -> Awaitable[None]:
        """Send a binary message."""
        if self.connection_state != "connected":
            self._not_connected()
        return self._send_bytes(data)

    def send_json(self, data: Any, mode: Literal["text", "binary"] = "text") -> Awaitable[None]:
        """``data`` encoded as JSON (msgspec), in a text message or a binary one."""
        if mode not in ("text", "binary"):
            raise RuntimeError('The "mode" argument should be "text" or "binary".')
        encoded = _json_encode(data)
        return self.send_text(encoded.decode()) if mode == "text" else self.send_bytes(encoded)

    async def send(self, message: Mapping[str, Any]) -> None:
        """Send an ASGI message, as Starlette's: ``websocket.accept``, ``websocket.send``,
        ``websocket.close``, or a denial response's ``websocket.http.response.start`` and
        ``.body`` messages before accepting."""
        kind = message.get("type")
        if kind == "websocket.accept":
            await self.accept(message.get("subprotocol"), message.get("headers"))
        elif kind == "websocket.send":
            text, data = message.get("text"), message.get("bytes")
            await (self.send_text(text) if text is not None else self.send_bytes(data or b""))
        elif kind == "websocket.close":
            await self.close(message.get("code", NORMAL), message.get("reason") or "")
        elif kind == "websocket.http.response.start" and self._denial is None:
            if self.connection_state != "connecting":
                raise RuntimeError(f"Cannot deny a WebSocket that is {self.connection_state}")
            self._denial = (message["status"], _header_items(message.get("headers")), bytearray())
        elif (
            kind == "websocket.http.response.body"
            and self._denial is not None
            and self.connection_state == "connecting"
        ):
            status, headers, body = self._denial
            body += message.get("body", b"")
            if not message.get("more_body", False):
                self.connection_state = "closed"
                self._denial = None
                await self._refuse(status, headers, bytes(body))
        elif self._denial is not None:
            raise RuntimeError(
                f'Expected ASGI message "websocket.http.response.body", but got {kind!r}'
            )
        else:
            raise RuntimeError(
                f"Unexpected ASGI message {kind!r} on a WebSocket that is {self.connection_state}"
            )

    def _not_connected(self) -> NoReturn:
        raise WebSocketDisconnected(f"Cannot send on a WebSocket that is {self.connection_state}")

    async def close(self, code: int = NORMAL, reason: str = "") -> None:
        """Close the connection (before ``accept()``: refuse the handshake with 403). After
        the client has left it does nothing; a second close is an error (Starlette's)."""
        if self._closed_by_app:
            raise WebSocketDisconnected('Cannot call "send" once a close message has been sent.')
        self._closed_by_app = True
        await self.shut(code, reason)

    async def shut(self, code: int = NORMAL, reason: str = "") -> None:
        """Close the connection unless it is closed: hasten's own close (a failure, a
        shutdown), which leaves the app's one ``close()`` to come."""
        if self.connection_state == "closed":
            return
        if self.connection_state == "connecting":
            self.connection_state = "closed"
            await self._close_unaccepted(code, reason)
            return
        self.connection_state = "closed"
        await self._close(code, reason)

    async def refuse(self, status: int = 403) -> None:
        """Refuse the handshake with HTTP ``status`` (403 where the server cannot say more)."""
        if self.connection_state != "connecting":
            raise RuntimeError(f"Cannot refuse a WebSocket that is {self.connection_state}")
        self.connection_state = "closed"
        await self._refuse(status)

    async def send_denial_response(self, response: Response) -> None:
        """Refuse the handshake with ``response`` (Starlette's): its status, headers and body
        where the server offers ASGI's ``websocket.http.response``; Granian's RSGI sends the
        status alone."""
        if self.connection_state != "connecting":
            raise RuntimeError(f"Cannot deny a WebSocket that is {self.connection_state}")
        self.connection_state = "closed"
        await self._deny(response)

    async def _deny(self, response: Response) -> None:
        """Send the denial: its status, headers and body, as far as the server takes them (a
        stream's or a file's body only where the adapter sends it in parts)."""
        body = b"" if isinstance(response, (StreamingResponse, FileResponse)) else response.body
        await self._refuse(response.status, response.wire_headers, bytes(body))

    async def _fail(self, code: int, reason: str) -> NoReturn:
        await self.shut(code, reason)
        raise WebSocketDisconnect(code, reason)

    def __repr__(self) -> str:
        return f"<WebSocket {self.path} {self.connection_state}>"


def _origin(value: str) -> str:
    """An origin as compared: case-insensitive, without a trailing slash."""
    return value.strip().rstrip("/").lower()


def _header_items(
    headers: Mapping[str, str] | Iterable[tuple[str | bytes, str | bytes]] | None,
) -> list[tuple[str, str]]:
    """Headers given as a mapping or as (name, value) pairs, bytes (ASGI's) or text:
    lower-case names and text values."""
    pairs = headers.items() if isinstance(headers, Mapping) else headers or ()
    return [(_text(name).lower(), _text(value)) for name, value in pairs]


def _text(value: str | bytes) -> str:
    return value.decode("latin-1") if isinstance(value, bytes) else value
