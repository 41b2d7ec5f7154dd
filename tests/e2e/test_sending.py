"""What each real server puts on the wire for what the core sends: Content-Length once and
right, none on 204/304, HEAD without a body, streams and files (raw HTTP/1.1 on a socket, so
that nothing is merged or hidden)."""

from __future__ import annotations

import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest

from tests.e2e.bare_app import FILE_BODY

pytestmark = pytest.mark.server


@dataclass(frozen=True)
class Raw:
    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def values(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name]


def request(base_url: str, method: str, path: str, body: bytes = b"") -> Raw:
    """One request on a fresh connection, read to the end of its response."""
    url = urlsplit(base_url)
    assert url.hostname == "127.0.0.1"
    assert url.port is not None
    head = f"{method} {path} HTTP/1.1\r\nHost: t\r\nConnection: close\r\n"
    if body:
        head += f"Content-Length: {len(body)}\r\n"
    with socket.create_connection((url.hostname, url.port), timeout=5.0) as sock:
        sock.sendall(head.encode() + b"\r\n" + body)
        received = b""
        while chunk := sock.recv(65536):
            received += chunk
    head_bytes, _, rest = received.partition(b"\r\n\r\n")
    status_line, *lines = head_bytes.decode("latin-1").split("\r\n")
    headers = [(n.strip().lower(), v.strip()) for n, _, v in (x.partition(":") for x in lines)]
    if ("transfer-encoding", "chunked") in headers and method != "HEAD":
        rest = dechunk(rest)
    return Raw(int(status_line.split()[1]), headers, rest)


def dechunk(data: bytes) -> bytes:
    body = b""
    while True:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if size == 0:
            return body
        body, data = body + data[:size], data[size + 2 :]


def test_a_whole_body_has_one_right_content_length(bare_server: str) -> None:
    response = request(bare_server, "GET", "/hello")
    assert (response.status, response.body) == (200, b'{"message":"hello"}')
    assert response.values("content-length") == ["19"]


def test_head_has_the_get_length_and_no_body(bare_server: str) -> None:
    response = request(bare_server, "HEAD", "/hello")
    assert (response.status, response.body) == (200, b"")
    assert response.values("content-length") == ["19"]


@pytest.mark.parametrize(("path", "status"), [("/no-content", 204), ("/not-modified", 304)])
def test_no_content_length_where_there_is_no_body(bare_server: str, path: str, status: int) -> None:
    response = request(bare_server, "GET", path)
    assert (response.status, response.body) == (status, b"")
    assert response.values("content-length") == []
    assert response.values("transfer-encoding") == []


@pytest.mark.parametrize("declared", [3, 99])
def test_a_content_length_set_by_hand_goes_out_once_and_right(
    bare_server: str, declared: int
) -> None:
    response = request(bare_server, "GET", f"/length/{declared}")
    assert (response.status, response.body) == (200, b"abc")
    assert response.values("content-length") == ["3"]


def test_a_stream_arrives_whole(bare_server: str) -> None:
    response = request(bare_server, "GET", "/stream")
    assert (response.status, response.body) == (200, b"one two three")
    assert response.values("content-type") == ["text/plain; charset=utf-8"]
    assert response.values("content-length") == []
    head = request(bare_server, "HEAD", "/stream")
    assert (head.status, head.body) == (200, b"")


def test_a_file_arrives_whole_and_head_gives_its_size(bare_server: str) -> None:
    response = request(bare_server, "GET", "/file")
    assert (response.status, response.body) == (200, FILE_BODY)
    head = request(bare_server, "HEAD", "/file")
    assert (head.status, head.body) == (200, b"")
    assert head.values("content-length") == [str(len(FILE_BODY))]


def test_reading_a_streamed_body_twice_is_a_500_not_a_400(bare_server: str) -> None:
    response = request(bare_server, "POST", "/stream-then-body", b"payload")
    assert (response.status, response.body) == (500, b'{"detail":"Internal Server Error"}')
