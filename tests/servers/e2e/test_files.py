"""Files on real servers: Content-Length (never chunked), validators, 304, ranges, 416, HEAD,
Content-Disposition; a mounted Starlette app's FileResponse (pathsend through the bridge)."""

from __future__ import annotations

from email.utils import formatdate

import pytest

from tests.servers.e2e.raw import fetch
from tests.servers.e2e.streams_app import FILE_BODY

pytestmark = pytest.mark.server
SIZE = len(FILE_BODY)


def test_a_whole_file_has_its_length_and_validators(streams_server: str) -> None:
    response = fetch(streams_server, "GET", "/file")
    assert (response.status, response.body) == (200, FILE_BODY)
    assert response.values("content-length") == [str(SIZE)]
    assert response.values("transfer-encoding") == []
    assert response.header("accept-ranges") == "bytes"
    assert response.header("last-modified") == formatdate(1_700_000_000, usegmt=True)
    assert response.header("etag") == f'"{1_700_000_000_000_000:x}-{SIZE:x}"'


def test_head_of_a_file(streams_server: str) -> None:
    response = fetch(streams_server, "HEAD", "/file")
    assert (response.status, response.body) == (200, b"")
    assert response.values("content-length") == [str(SIZE)]


def test_conditional_requests(streams_server: str) -> None:
    etag = fetch(streams_server, "GET", "/file").header("etag")
    assert etag is not None
    not_modified = fetch(streams_server, "GET", "/file", {"If-None-Match": etag})
    assert (not_modified.status, not_modified.body) == (304, b"")
    assert not_modified.values("content-length") == []
    assert not_modified.header("etag") == etag
    since = {"If-Modified-Since": formatdate(1_700_000_000, usegmt=True)}
    assert fetch(streams_server, "GET", "/file", since).status == 304
    earlier = {"If-Modified-Since": formatdate(1_600_000_000, usegmt=True)}
    assert fetch(streams_server, "GET", "/file", earlier).status == 200
    assert fetch(streams_server, "GET", "/file", {"If-Match": '"nope"'}).status == 412


@pytest.mark.parametrize(
    ("header", "start", "end"),
    [("bytes=0-99", 0, 100), ("bytes=102300-", 102300, SIZE), ("bytes=-10", SIZE - 10, SIZE)],
)
def test_a_range(streams_server: str, header: str, start: int, end: int) -> None:
    response = fetch(streams_server, "GET", "/file", {"Range": header})
    assert (response.status, response.body) == (206, FILE_BODY[start:end])
    assert response.header("content-range") == f"bytes {start}-{end - 1}/{SIZE}"
    assert response.values("content-length") == [str(end - start)]
    assert response.values("transfer-encoding") == []


def test_if_range_and_unsatisfiable_and_multiple_ranges(streams_server: str) -> None:
    stale = fetch(streams_server, "GET", "/file", {"Range": "bytes=0-1", "If-Range": '"old"'})
    assert (stale.status, len(stale.body)) == (200, SIZE)
    etag = fetch(streams_server, "HEAD", "/file").header("etag")
    assert etag is not None
    fresh = fetch(streams_server, "GET", "/file", {"Range": "bytes=0-1", "If-Range": etag})
    assert (fresh.status, fresh.body) == (206, FILE_BODY[:2])
    beyond = fetch(streams_server, "GET", "/file", {"Range": f"bytes={SIZE}-"})
    assert (beyond.status, beyond.body) == (416, b"")
    assert beyond.header("content-range") == f"bytes */{SIZE}"
    malformed = fetch(streams_server, "GET", "/file", {"Range": "bytes=5-4"})
    assert (malformed.status, malformed.body) == (400, b"Range header: start must be less than end")


def test_several_ranges_are_one_multipart_body_of_known_length(streams_server: str) -> None:
    # Past one chunk of 64 KiB, so that the body goes out in several writes.
    ranges = {"Range": "bytes=70000-100000, 0-1, 1-5"}
    response = fetch(streams_server, "GET", "/file", ranges)
    assert response.status == 206
    media_type, _, boundary = (response.header("content-type") or "").partition("; boundary=")
    assert media_type == "multipart/byteranges"
    head = f"--{boundary}\r\nContent-Type: application/octet-stream\r\n"
    assert response.body == (
        f"{head}Content-Range: bytes 0-5/{SIZE}\r\n\r\n".encode()
        + FILE_BODY[0:6]
        + f"\r\n{head}Content-Range: bytes 70000-100000/{SIZE}\r\n\r\n".encode()
        + FILE_BODY[70000:100001]
        + f"\r\n--{boundary}--".encode()
    )
    assert response.values("content-length") == [str(len(response.body))]
    assert response.values("transfer-encoding") == []
    assert response.header("content-range") is None


def test_a_download_name_beyond_ascii(streams_server: str) -> None:
    response = fetch(streams_server, "HEAD", "/download")
    assert response.header("content-disposition") == (
        "attachment; filename=\"donn_es.bin\"; filename*=UTF-8''donn%C3%A9es.bin"
    )


def test_a_mounted_starlette_file_response(streams_server: str) -> None:
    response = fetch(streams_server, "GET", "/star/file")
    assert (response.status, response.body) == (200, FILE_BODY)
    assert response.values("content-length") == [str(SIZE)]
