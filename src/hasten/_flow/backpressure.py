"""Back-pressure for Granian RSGI's streams, which have none of their own.

Granian (2.8) hands a stream's chunks to the connection through an unbounded channel, and
``send_bytes`` returns at once: a source faster than its client fills the server's memory
(50 MiB for a client that reads nothing, measured). RSGI says nothing of what the client took,
but the kernel does: the connection's socket is in this process, and its ``TCP_INFO`` counts
the bytes the client acknowledged, ``SIOCOUTQ`` those still in the kernel's send queue. What
is neither is waiting in the server, and a stream waits while that is more than ``AHEAD``.

Linux only, on TCP (elsewhere a stream goes unpaced, as before). The socket is looked up,
on a thread, once a stream has sent ``AHEAD``: shorter streams never pay for it. On HTTP/2 the
streams of one connection share its socket, so each is held to the connection's progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import logging
import os
import socket
import struct
import sys
import termios
from collections.abc import Iterator

from hasten._flow.transport import StreamWriter

__all__ = ["AHEAD", "paced"]

logger = logging.getLogger("hasten.error")

AHEAD = 1024 * 1024  # bytes of a stream that may wait in the server for its client
CHECK_EVERY = 64 * 1024  # bytes sent between two looks at the socket
LONGEST_PAUSE = 0.1  # seconds between two looks while the client reads nothing
_BYTES_ACKED = struct.Struct("=Q")  # tcp_info's tcpi_bytes_acked (Linux 4.1)
_BYTES_ACKED_AT = 120
_TCP_INFO_SIZE = 192

Address = tuple[str, int]


def paced(writer: StreamWriter, client: str, server: str) -> StreamWriter:
    """``writer``, held back while more than ``AHEAD`` of what it sent waits in the server;
    ``client`` and ``server`` are RSGI's ``host:port`` of the connection."""
    peer, local = _address(client), _address(server)
    if sys.platform != "linux" or peer is None or local is None:
        return writer
    return _Paced(writer, peer, local[1])


class _Paced:
    """A stream writer that waits for its client, as an ASGI server's ``send`` does."""

    __slots__ = ("_baseline", "_fd", "_handed", "_local_port", "_next_look", "_peer", "writer")

    def __init__(self, writer: StreamWriter, peer: Address, local_port: int) -> None:
        self.writer = writer
        self._peer = peer
        self._local_port = local_port
        self._handed = 0
        self._next_look = AHEAD
        self._fd: int | None = None
        self._baseline: tuple[int, int] | None = None  # (handed, written) when first seen

    async def send_bytes(self, data: bytes) -> None:
        await self.writer.send_bytes(data)
        self._handed += len(data)
        if self._handed >= self._next_look:
            await self._wait_for_client()

    async def _wait_for_client(self) -> None:
        if self._baseline is None:
            self._fd = await asyncio.to_thread(_find_socket, self._peer, self._local_port)
            written = None if self._fd is None else _written(self._fd, self._peer)
            if written is None:
                self._give_up()
                return
            self._baseline = (self._handed, written)
        pause = 0.005
        while True:
            assert self._fd is not None
            written = _written(self._fd, self._peer)
            if written is None:  # the connection is gone: the serve step sees it too
                self._give_up()
                return
            handed, written_then = self._baseline
            waiting = (self._handed - handed) - (written - written_then)
            if waiting <= AHEAD:
                self._next_look = self._handed + CHECK_EVERY
                return
            await asyncio.sleep(pause)
            pause = min(pause * 2, LONGEST_PAUSE)

    def _give_up(self) -> None:
        """Send the rest unpaced: the socket is not to be found (or not ours any more)."""
        self._next_look = sys.maxsize
        if self._fd is None:
            logger.warning(
                "A stream's connection (client %s:%d) was not found: it is sent without "
                "back-pressure",
                *self._peer,
            )

    def __getattr__(self, name: str) -> object:
        return getattr(self.writer, name)


def _address(value: str) -> Address | None:
    host, _, port = value.rpartition(":")
    return (host.strip("[]"), int(port)) if port.isdigit() else None


def _find_socket(peer: Address, local_port: int) -> int | None:
    """The descriptor of this process's TCP socket from ``peer`` to ``local_port``."""
    for fd in _socket_descriptors():
        with contextlib.suppress(OSError):  # closed meanwhile, or not connected (a listener)
            if _matches(fd, peer, local_port):
                return fd
    return None


def _socket_descriptors() -> Iterator[int]:
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError, ValueError):
                if os.readlink(f"/proc/self/fd/{name}").startswith("socket:"):
                    yield int(name)


def _matches(fd: int, peer: Address, local_port: int) -> bool:
    with _borrowed(fd) as sock:
        if sock.family not in (socket.AF_INET, socket.AF_INET6):
            return False
        if sock.type != socket.SOCK_STREAM:
            return False
        return tuple(sock.getpeername()[:2]) == peer and sock.getsockname()[1] == local_port


def _written(fd: int, peer: Address) -> int | None:
    """Bytes the connection handed to the kernel so far (acknowledged by the client, or in
    the send queue); None when ``fd`` is no longer the connection to ``peer``."""
    try:
        with _borrowed(fd) as sock:
            if tuple(sock.getpeername()[:2]) != peer:
                return None
            info = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_SIZE)
            queued = fcntl.ioctl(fd, termios.TIOCOUTQ, b"\0\0\0\0")
    except OSError:
        return None
    if len(info) < _BYTES_ACKED_AT + _BYTES_ACKED.size:
        return None  # a kernel before 4.1
    acked: int = _BYTES_ACKED.unpack_from(info, _BYTES_ACKED_AT)[0]
    in_queue: int = struct.unpack("i", queued)[0]
    return acked + in_queue


@contextlib.contextmanager
def _borrowed(fd: int) -> Iterator[socket.socket]:
    """The server's socket ``fd`` as a socket object, given back (never closed) after."""
    sock = socket.socket(fileno=fd)
    try:
        yield sock
    finally:
        sock.detach()
