"""A minimal HTTP/1.1 client connection on asyncio streams: just enough to drive load.

It sends raw requests (from a RequestTable) and reads each response whole: Content-Length,
chunked, or until the server closes. Bodies are read and dropped.
"""

from __future__ import annotations

import asyncio

__all__ = ["FAILURES", "Connection", "ProtocolError"]

_HEAD_END = b"\r\n\r\n"
_NO_BODY = (204, 304)


class ProtocolError(Exception):
    """The server answered something that is not HTTP/1.x."""


# What ends a request as an error: the connection is then dropped and opened again.
FAILURES = (
    OSError,
    ValueError,  # a status, length or chunk size that is not a number
    asyncio.IncompleteReadError,
    asyncio.LimitOverrunError,
    ProtocolError,
)


class Connection:
    """One keep-alive connection; ``exchange`` sends a request and returns the status."""

    __slots__ = ("_reader", "_writer", "reusable")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self.reusable = True

    @classmethod
    async def open(cls, host: str, port: int) -> Connection:
        """Connect to ``host:port``."""
        reader, writer = await asyncio.open_connection(host, port)
        return cls(reader, writer)

    async def exchange(self, raw: bytes) -> int:
        """Send ``raw``, read the whole response, return its status code."""
        self._writer.write(raw)
        head = await self._reader.readuntil(_HEAD_END)
        if not head.startswith(b"HTTP/1.") or len(head) < 12:
            raise ProtocolError(f"not an HTTP/1.x response: {head[:40]!r}")
        status = int(head[9:12])
        lower = head.lower()
        if head.startswith(b"HTTP/1.0") or b"close" in _header(lower, b"connection"):
            self.reusable = False
        if status in _NO_BODY or status < 200 or raw.startswith(b"HEAD "):
            return status
        await self._read_body(lower)
        return status

    async def _read_body(self, lower_head: bytes) -> None:
        if b"chunked" in _header(lower_head, b"transfer-encoding"):
            await self._read_chunks()
            return
        length = _header(lower_head, b"content-length")
        if length:
            await self._reader.readexactly(int(length))
        else:
            await self._reader.read()  # no length: the body ends with the connection
            self.reusable = False

    async def _read_chunks(self) -> None:
        while True:
            size = int((await self._reader.readline()).split(b";", 1)[0], 16)
            if size == 0:
                break
            await self._reader.readexactly(size + 2)
        while (await self._reader.readline()) not in (b"\r\n", b""):
            pass  # trailers

    def close(self) -> None:
        """Close the connection without waiting."""
        self._writer.close()


def _header(lower_head: bytes, name: bytes) -> bytes:
    """The value of header ``name`` in a lower-cased head, or b"" when it is absent."""
    start = lower_head.find(b"\r\n" + name + b":")
    if start < 0:
        return b""
    start += len(name) + 3
    return lower_head[start : lower_head.find(b"\r\n", start)].strip()
