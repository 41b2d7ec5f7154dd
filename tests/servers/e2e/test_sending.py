"""What each real server puts on the wire for what the core sends: Content-Length once and
right, none on 204/304, HEAD without a body, streams and files (raw HTTP/1.1 on a socket, so
that nothing is merged or hidden)."""

from __future__ import annotations

import pytest

from tests.servers.e2e.bare_app import FILE_BODY
from tests.servers.e2e.raw import Raw, fetch

pytestmark = pytest.mark.server


def request(base_url: str, method: str, path: str, body: bytes = b"") -> Raw:
    """One request on a fresh connection, read to the end of its response."""
    return fetch(base_url, method, path, body=body)


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
    assert (response.status, response.body) == (500, b"Internal Server Error")
