"""Raw bytes over a socket, and what came back: a status, or the way the connection ended.

Every socket operation has a timeout, so that a server that waits for more is seen as
``silent`` rather than hanging the suite.
"""

from __future__ import annotations

import socket
import time
from dataclasses import dataclass, field

__all__ = ["Outcome", "exchange", "parse"]

HOST = "127.0.0.1"
CONNECT_TIMEOUT = 2.0


@dataclass(frozen=True)
class Outcome:
    """What the server did: answered (``status``), closed or reset the connection without an
    answer, or said nothing within the wait (``silent``)."""

    status: int | None
    ending: str  # "answered", "closed", "reset" or "silent"
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    seconds: float = 0.0

    def __str__(self) -> str:
        return str(self.status) if self.status is not None else self.ending


def exchange(port: int, data: bytes, *, half_close: bool = False, wait: float = 2.0) -> Outcome:
    """Send ``data`` on a new connection (then, with ``half_close``, end the client's side) and
    read one response, waiting at most ``wait`` seconds for each read."""
    start = time.monotonic()
    with socket.create_connection((HOST, port), timeout=CONNECT_TIMEOUT) as sock:
        sock.settimeout(wait)
        try:
            sock.sendall(data)
            if half_close:
                sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server stopped reading (and may have answered): read what it sent
        received, ending = _read(sock)
    outcome = parse(received, ending)
    return Outcome(
        outcome.status, outcome.ending, outcome.headers, outcome.body, time.monotonic() - start
    )


def _read(sock: socket.socket) -> tuple[bytes, str]:
    received = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except TimeoutError:
            return received, "silent"
        except ConnectionResetError:
            return received, "reset"
        if not chunk:
            return received, "closed"
        received += chunk
        if _complete(received):
            return received, "answered"


def _complete(received: bytes) -> bool:
    head, found, body = received.partition(b"\r\n\r\n")
    if not found:
        return False
    lowered = head.lower()
    if b"transfer-encoding: chunked" in lowered:
        return body.endswith(b"0\r\n\r\n")
    for line in lowered.split(b"\r\n"):
        if line.startswith(b"content-length:"):
            return len(body) >= int(line.split(b":", 1)[1])
    return True  # no length: a response without a body (304, 204, or a bare 400)


def parse(received: bytes, ending: str) -> Outcome:
    """The first response in ``received``, if there is one."""
    if not received.startswith(b"HTTP/"):
        return Outcome(None, ending)
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return Outcome(int(status_line.split()[1]), "answered", headers, body)
