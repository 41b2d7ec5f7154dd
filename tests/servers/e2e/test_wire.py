"""Raw HTTP/1.1 on a plain socket: exact chunked framing, a malformed request, the peer address."""

from __future__ import annotations

import json
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

import pytest

from tests.servers.e2e.app import MAX_BODY_SIZE
from tests.servers.e2e.conftest import local_client

pytestmark = pytest.mark.server


@dataclass(frozen=True)
class RawResponse:
    status: int
    headers: dict[str, str]
    body: bytes


def connect(base_url: str) -> socket.socket:
    url = urlsplit(base_url)
    assert url.hostname == "127.0.0.1"
    assert url.port is not None
    return socket.create_connection((url.hostname, url.port), timeout=5.0)


def read_response(sock: socket.socket) -> RawResponse:
    """Read one response: its head, then Content-Length bytes of body (or up to EOF)."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = sock.recv(65536)
        assert chunk, f"connection closed mid-response: {received!r}"
        received += chunk
    head, _, body = received.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in header_lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    length = int(headers.get("content-length", -1))
    while length < 0 or len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return RawResponse(int(status_line.split()[1]), headers, body)


def exchange(base_url: str, data: bytes) -> RawResponse:
    with connect(base_url) as sock:
        sock.sendall(data)
        return read_response(sock)


CHUNKED_HEAD = (
    b"POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
)


def chunk_frames(body: bytes, chunk_size: int = 300) -> bytes:
    chunks = [body[start : start + chunk_size] for start in range(0, len(body), chunk_size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(chunk), chunk) for chunk in chunks)


def order_json(name_length: int) -> bytes:
    return json.dumps({"id": 9, "name": "n" * name_length}, separators=(",", ":")).encode()


def test_chunked_body_under_the_limit_is_read_whole(server: str) -> None:
    body = order_json(700)
    response = exchange(server, CHUNKED_HEAD + chunk_frames(body) + b"0\r\n\r\n")
    assert response.status == 201
    assert json.loads(response.body) == {"id": 9, "name": "n" * 700, "tags": []}


def test_chunked_body_over_the_limit_is_refused_before_it_ends(server: str) -> None:
    with connect(server) as sock:
        # No last chunk: the 413 must come from counting, not from waiting for the end.
        sock.sendall(CHUNKED_HEAD + chunk_frames(order_json(2 * MAX_BODY_SIZE)))
        response = read_response(sock)
    assert response.status == 413
    assert "detail" in json.loads(response.body)
    with local_client(server) as http:
        assert http.get("/hello").status_code == 200


def test_huge_declared_length_is_refused_before_the_body_arrives(server: str) -> None:
    head = (
        "POST /orders HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {1000 * MAX_BODY_SIZE}\r\nConnection: close\r\n\r\n"
    ).encode()
    with connect(server) as sock:
        sock.sendall(head + b'{"id": 1')
        response = read_response(sock)
    assert response.status == 413
    assert "detail" in json.loads(response.body)


def test_malformed_request_line_is_400_and_server_survives(server: str) -> None:
    response = exchange(server, b"THIS IS NOT HTTP\r\n\r\n")
    assert response.status == 400
    with local_client(server) as http:
        assert http.get("/hello").status_code == 200


def test_client_address_is_the_connecting_socket(server: str) -> None:
    with connect(server) as sock:
        host, port = sock.getsockname()
        sock.sendall(b"GET /inspect HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        response = read_response(sock)
    assert response.status == 200
    assert json.loads(response.body)["client"] == [host, port]
