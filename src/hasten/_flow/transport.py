"""Transports: what a request's body comes in through, and what its response goes out through.

The words are RSGI's, hasten's native protocol, so that under Granian both transports *are*
the server's protocol object and a request costs no object of ours to read or answer. The
ASGI adapter implements the same words over ``receive`` and ``send``.

A whole body or a file is handed over in one call: an RSGI server takes it at once (the call
returns None), the ASGI transport returns what sends it, and ``Response.send``, the only
caller, awaits that (``Sent``). A stream is written chunk by chunk through the
``StreamWriter`` it starts. The server frames what it is given: it adds
Content-Length to a whole body unless the headers carry one, and ends a stream when the serve
step returns. Everything else on the wire (HEAD, 204/304, one Content-Length) is decided
before the transport is called, by ``hasten._http.wire``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable
from typing import Any, Protocol

from granian.rsgi import ProtocolClosed

from hasten._http.wire import HeaderList

__all__ = ["CLIENT_GONE", "Inbound", "Outbound", "Reading", "Sent", "StreamWriter"]

# What writing to a client that has left raises: OSError from ASGI servers (ASGI 2.4),
# Granian's ProtocolClosed under RSGI.
CLIENT_GONE: tuple[type[BaseException], ...] = (OSError, ProtocolClosed)

# What handing over a whole body returns: None from an RSGI server, which took it; from the
# ASGI transport, what sends it.
Sent = Awaitable[None] | None


class Reading(Awaitable[bytes], Protocol):
    """A read of a whole body under way: a future, which the body timeout may cancel."""

    def cancel(self, msg: Any = None) -> bool: ...


class Inbound(Protocol):
    """Where a request's body comes from, and how the serve step learns the client left.

    The body is handed over once: either whole (``__call__``) or in chunks (``__aiter__``).
    """

    def __call__(self) -> Reading:
        """The whole body of a request with a Content-Length, in one read (a future, so that
        the body timeout can cancel it)."""
        ...

    def __aiter__(self) -> AsyncIterator[bytes]:
        """The body in chunks as they arrive; an empty chunk ends it."""
        ...

    def client_disconnect(self) -> Awaitable[None]:
        """Done when the client has gone away (an awaitable, created on each call)."""
        ...


class StreamWriter(Protocol):
    """A response body sent in chunks, after its status and headers."""

    async def send_bytes(self, data: bytes) -> None: ...


class Outbound(Protocol):
    """Where a response goes: its status, headers and body, in one of four forms."""

    def response_bytes(self, status: int, headers: HeaderList, body: bytes) -> Sent: ...

    def response_file(self, status: int, headers: HeaderList, file: str) -> Sent: ...

    def response_file_range(
        self, status: int, headers: HeaderList, file: str, start: int, end: int
    ) -> Sent: ...

    def response_stream(self, status: int, headers: HeaderList) -> StreamWriter: ...
