"""Raw HTTP/1.1 on a socket, so that nothing between the test and the server merges, decodes
or hides anything: the request target goes out byte for byte as written."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class Raw:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name]

    def header(self, name: str) -> str | None:
        found = self.values(name)
        return found[0] if found else None


def address(base_url: str) -> tuple[str, int]:
    url = urlsplit(base_url)
    assert url.hostname == "127.0.0.1"
    assert url.port is not None
    return url.hostname, url.port


def request_bytes(
    method: str, target: str, headers: dict[str, str] | None = None, body: bytes = b""
) -> bytes:
    head = f"{method} {target} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
    if body:
        head += f"Content-Length: {len(body)}\r\n"
    for name, value in (headers or {}).items():
        head += f"{name}: {value}\r\n"
    return head.encode("latin-1") + b"\r\n" + body


def fetch(
    base_url: str,
    method: str,
    target: str,
    headers: dict[str, str] | None = None,
    body: bytes = b"",
) -> Raw:
    """One request on a fresh connection, read to the end of its response."""
    with socket.create_connection(address(base_url), timeout=10.0) as sock:
        sock.sendall(request_bytes(method, target, headers, body))
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    return parse(received, method)


def parse(received: bytes, method: str = "GET") -> Raw:
    head_bytes, _, rest = received.partition(b"\r\n\r\n")
    status_line, *lines = head_bytes.decode("latin-1").split("\r\n")
    headers = [(n.strip().lower(), v.strip()) for n, _, v in (x.partition(":") for x in lines)]
    if ("transfer-encoding", "chunked") in headers and method != "HEAD":
        rest = dechunk(rest)
    return Raw(int(status_line.split()[1]), headers, rest)


def dechunk(data: bytes) -> bytes:
    body = b""
    while data:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return body
        body, data = body + data[:size], data[size + 2 :]
    return body
