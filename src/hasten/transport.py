"""Transport: where a response goes, in words that do not depend on the protocol.

The words are RSGI's, hasten's native protocol: under Granian the transport *is* the server's
protocol object, so a response costs no object of ours to send; the ASGI adapter implements
the same calls over ``send`` and ``receive``. The server frames what it is given: it adds
Content-Length to a whole body unless the headers carry one, and ends a stream when the
request's serve step returns. Everything else on the wire (HEAD, 204/304, one Content-Length)
is decided before the transport is called, by ``hasten.wire``.
"""

from __future__ import annotations

from collections.abc import Awaitable
from typing import Protocol

from granian._granian import RSGIProtocolClosed

from .wire import HeaderList

__all__ = ["CLIENT_GONE", "Sending", "StreamWriter", "Transport"]

# What sending to a client that left raises: OSError from ASGI servers (ASGI 2.4), Granian's
# RSGIProtocolClosed under RSGI.
CLIENT_GONE = (OSError, RSGIProtocolClosed)

# An RSGI server takes a whole body at once and returns None; an ASGI send must be awaited.
Sending = Awaitable[None] | None


class StreamWriter(Protocol):
    """A response body sent in chunks, after its status and headers."""

    async def send_bytes(self, data: bytes) -> None: ...


class Transport(Protocol):
    """How a Response reaches the client, and how the serve step learns that it left."""

    def response_bytes(self, status: int, headers: HeaderList, body: bytes) -> Sending: ...

    def response_stream(self, status: int, headers: HeaderList) -> StreamWriter: ...

    def response_file(self, status: int, headers: HeaderList, file: str) -> Sending: ...

    def response_file_range(
        self, status: int, headers: HeaderList, file: str, start: int, end: int
    ) -> Sending: ...

    def client_disconnect(self) -> Awaitable[None]:
        """Done when the client has gone away (an awaitable, created on each call)."""
        ...
