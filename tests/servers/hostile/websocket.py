"""WebSocket frames as raw bytes (RFC 6455): what a client library would never send.

``upgrade`` opens a connection and sends a handshake as given; ``frame`` builds one frame;
``Upgraded.frames`` reads what the server sends until it closes or goes quiet.
"""

from __future__ import annotations

import base64
import os
import socket
import struct
from dataclasses import dataclass

from tests.servers.hostile.wire import HOST, Outcome, parse

__all__ = [
    "BINARY",
    "CLOSE",
    "CONTINUATION",
    "PING",
    "TEXT",
    "Frame",
    "Upgraded",
    "close_frame",
    "frame",
    "handshake",
    "upgrade",
]

CONTINUATION, TEXT, BINARY, CLOSE, PING, PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
KEY = base64.b64encode(b"hostile-suite-16").decode()


def handshake(
    path: str = "/ws/echo", *, method: str = "GET", headers: tuple[tuple[str, str], ...] = ()
) -> bytes:
    """An upgrade request: Host, Upgrade, Connection, key and version 13, then ``headers``
    (a header given there replaces the default of that name; an empty value removes it)."""
    fields = {
        "Host": "127.0.0.1",
        "Upgrade": "websocket",
        "Connection": "Upgrade",
        "Sec-WebSocket-Key": KEY,
        "Sec-WebSocket-Version": "13",
    }
    for name, value in headers:
        fields[name] = value
    lines = [f"{method} {path} HTTP/1.1"]
    lines += [f"{name}: {value}" for name, value in fields.items() if value]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


class Upgraded:
    """A connection after its handshake: the server's answer, and what came after it."""

    def __init__(self, sock: socket.socket, outcome: Outcome, buffer: bytes) -> None:
        self.sock = sock
        self.outcome = outcome
        self.buffer = buffer  # bytes the server sent after its answer (frames, after a 101)

    def send(self, data: bytes) -> bool:
        """Send raw bytes; False when the server no longer takes them."""
        try:
            self.sock.sendall(data)
        except OSError:
            return False
        return True

    def frames(self, wait: float = 2.0, limit: int = 100) -> tuple[list[Frame], str]:
        """Frames from the server until it sends a close frame, closes, resets, goes quiet
        for ``wait`` seconds, or ``limit`` frames came; and how that ended."""
        self.sock.settimeout(wait)
        frames: list[Frame] = []
        while len(frames) < limit:
            parsed = _one(self.buffer)
            if parsed is not None:
                found, self.buffer = parsed
                frames.append(found)
                if found.opcode == CLOSE:
                    return frames, "close frame"
                continue
            try:
                chunk = self.sock.recv(65536)
            except TimeoutError:
                return frames, "silent"
            except ConnectionResetError:
                return frames, "reset"
            if not chunk:
                return frames, "closed"
            self.buffer += chunk
        return frames, "enough"

    def ending(self, wait: float = 1.0) -> str:
        """After the closing handshake: "closed" when the server closes the TCP connection
        within ``wait`` seconds (anything it sends meanwhile is dropped), "reset", or "open"."""
        self.sock.settimeout(wait)
        try:
            while self.sock.recv(65536):
                pass
        except TimeoutError:
            return "open"
        except ConnectionResetError:
            return "reset"
        return "closed"

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> Upgraded:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def upgrade(port: int, request: bytes, wait: float = 2.0) -> Upgraded:
    """Send ``request`` on a new connection; the connection, still open, with the server's
    answer. After a 101, it carries frames."""
    sock = socket.create_connection((HOST, port), timeout=wait)
    sock.sendall(request)
    received = b""
    try:
        while b"\r\n\r\n" not in received:
            chunk = sock.recv(4096)
            if not chunk:
                break
            received += chunk
    except TimeoutError:
        return Upgraded(sock, Outcome(None, "silent"), b"")
    except ConnectionResetError:
        return Upgraded(sock, Outcome(None, "reset"), b"")
    head, _, rest = received.partition(b"\r\n\r\n")
    outcome = parse(received, "answered" if head.startswith(b"HTTP/") else "closed")
    if outcome.status == 101:
        return Upgraded(sock, Outcome(101, "answered", outcome.headers), rest)
    return Upgraded(sock, _whole_body(sock, received, outcome), b"")


def _whole_body(sock: socket.socket, received: bytes, outcome: Outcome) -> Outcome:
    length = int(outcome.headers.get("content-length", "0") or 0)
    while len(received.partition(b"\r\n\r\n")[2]) < length:
        try:
            chunk = sock.recv(65536)
        except OSError:
            break
        if not chunk:
            break
        received += chunk
    return parse(received, outcome.ending)


def close_frame(code: int, reason: str = "") -> bytes:
    """A client's close frame with ``code`` and ``reason``."""
    return frame(CLOSE, struct.pack("!H", code) + reason.encode())


def frame(
    opcode: int, payload: bytes = b"", *, fin: bool = True, length: int | None = None
) -> bytes:
    """One masked client frame; ``length`` claims another payload length than the payload's."""
    size = len(payload) if length is None else length
    head = bytes([(0x80 if fin else 0) | opcode])
    if size < 126:
        head += bytes([0x80 | size])
    elif size < 65536:
        head += bytes([0x80 | 126]) + struct.pack("!H", size)
    else:
        head += bytes([0x80 | 127]) + struct.pack("!Q", size)
    mask = os.urandom(4)
    return head + mask + bytes(byte ^ mask[index % 4] for index, byte in enumerate(payload))


@dataclass(frozen=True)
class Frame:
    opcode: int
    payload: bytes

    @property
    def close_code(self) -> int | None:
        """A close frame's code (None: no code in it)."""
        return struct.unpack("!H", self.payload[:2])[0] if len(self.payload) >= 2 else None

    @property
    def close_reason(self) -> str:
        return self.payload[2:].decode(errors="replace")


def _one(buffer: bytes) -> tuple[Frame, bytes] | None:
    if len(buffer) < 2:
        return None
    opcode, size, at = buffer[0] & 0x0F, buffer[1] & 0x7F, 2
    if size == 126:
        if len(buffer) < 4:
            return None
        size, at = struct.unpack("!H", buffer[2:4])[0], 4
    elif size == 127:
        if len(buffer) < 10:
            return None
        size, at = struct.unpack("!Q", buffer[2:10])[0], 10
    if len(buffer) < at + size:
        return None
    return Frame(opcode, buffer[at : at + size]), buffer[at + size :]
