"""FileResponse: validators, conditional requests, ranges and Content-Disposition, through
both adapters (the wire itself: tests/servers/e2e/test_files.py)."""

from __future__ import annotations

import os
import pathlib
from email.utils import formatdate

import pytest

from hasten import App, FileResponse
from hasten._http.files import content_disposition
from hasten._http.ranges import MalformedRange, requested_spans
from hasten.testing import TestClient
from tests.conftest import ClientFactory

BODY = bytes(range(256)) * 4  # 1,024 bytes


@pytest.fixture
def data_file(tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "data.bin"
    path.write_bytes(BODY)
    os.utime(path, (1_700_000_000, 1_700_000_000))
    return path


@pytest.fixture
def client(serve: ClientFactory, data_file: pathlib.Path, tmp_path: pathlib.Path) -> TestClient:
    app = App()
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")

    @app.get("/file")
    async def file() -> FileResponse:
        return FileResponse(data_file)

    @app.get("/named")
    async def named() -> FileResponse:
        return FileResponse(data_file, filename="résumé 2024.pdf")

    @app.get("/empty")
    async def empty_file() -> FileResponse:
        return FileResponse(empty)

    @app.post("/file")
    async def post_file() -> FileResponse:
        return FileResponse(data_file)

    return serve(app)


def test_a_whole_file_with_its_validators(client: TestClient) -> None:
    response = client.get("/file")
    assert response.status_code == 200
    assert response.content == BODY
    assert response.headers["content-length"] == "1024"
    assert response.headers["content-type"] == "application/octet-stream"
    assert response.headers["accept-ranges"] == "bytes"
    assert response.headers["last-modified"] == formatdate(1_700_000_000, usegmt=True)
    assert response.headers["etag"] == f'"{1_700_000_000_000_000:x}-400"'


def test_head_has_the_headers_and_no_body(client: TestClient) -> None:
    response = client.head("/file")
    assert (response.status_code, response.content) == (200, b"")
    assert response.headers["content-length"] == "1024"


def test_if_none_match_gives_304(client: TestClient) -> None:
    etag = client.get("/file").headers["etag"]
    for value in (etag, f"W/{etag}", f'"other", {etag}', "*"):
        response = client.get("/file", headers={"if-none-match": value})
        assert (response.status_code, response.content) == (304, b""), value
        assert response.headers["etag"] == etag
        assert "content-length" not in response.headers
    assert client.get("/file", headers={"if-none-match": '"other"'}).status_code == 200


def test_if_modified_since(client: TestClient) -> None:
    same = formatdate(1_700_000_000, usegmt=True)
    later = formatdate(1_700_000_100, usegmt=True)
    earlier = formatdate(1_699_999_000, usegmt=True)
    assert client.get("/file", headers={"if-modified-since": same}).status_code == 304
    assert client.get("/file", headers={"if-modified-since": later}).status_code == 304
    assert client.get("/file", headers={"if-modified-since": earlier}).status_code == 200
    assert client.get("/file", headers={"if-modified-since": "garbage"}).status_code == 200
    # If-None-Match wins over If-Modified-Since.
    both = {"if-modified-since": later, "if-none-match": '"other"'}
    assert client.get("/file", headers=both).status_code == 200


def test_if_match_and_if_unmodified_since_give_412(client: TestClient) -> None:
    etag = client.get("/file").headers["etag"]
    assert client.get("/file", headers={"if-match": '"other"'}).status_code == 412
    assert client.get("/file", headers={"if-match": f"W/{etag}"}).status_code == 412
    assert client.get("/file", headers={"if-match": etag}).status_code == 200
    earlier = formatdate(1_699_999_000, usegmt=True)
    assert client.get("/file", headers={"if-unmodified-since": earlier}).status_code == 412
    later = formatdate(1_700_000_100, usegmt=True)
    assert client.get("/file", headers={"if-unmodified-since": later}).status_code == 200


@pytest.mark.parametrize(
    ("header", "start", "end"),
    [
        ("bytes=0-9", 0, 10),
        ("bytes=1000-", 1000, 1024),
        ("bytes=-24", 1000, 1024),
        ("bytes=-5000", 0, 1024),
        ("bytes=1020-9999", 1020, 1024),
        ("bytes=5-5", 5, 6),
        # Past int()'s 4,300 digits: no 500, and no int() of them at all.
        ("bytes=-" + "9" * 5000, 0, 1024),
        ("bytes=1000-" + "9" * 5000, 1000, 1024),
        ("bytes=" + "0" * 5000 + "7-8", 7, 9),
    ],
)
def test_a_single_range_gives_206(client: TestClient, header: str, start: int, end: int) -> None:
    response = client.get("/file", headers={"range": header})
    assert response.status_code == 206
    assert response.content == BODY[start:end]
    assert response.headers["content-range"] == f"bytes {start}-{end - 1}/1024"
    assert response.headers["content-length"] == str(end - start)


@pytest.mark.parametrize(
    "header",
    [
        "bytes=1024-",
        "bytes=2000-3000",
        "bytes=-0",
        "bytes=" + "9" * 5000 + "-",
        "bytes=" + "9" * 5000 + "-5",
        "bytes=1024-1030, -0",
    ],
)
def test_an_unsatisfiable_range_gives_416(client: TestClient, header: str) -> None:
    response = client.get("/file", headers={"range": header})
    assert (response.status_code, response.content) == (416, b"")
    assert response.headers["content-range"] == "bytes */1024"


@pytest.mark.parametrize(
    ("header", "detail"),
    [
        ("bytes=9-3", "Range header: start must be less than end"),
        ("bytes=a-b", "Range header: range must be requested"),
        ("bytes=-", "Range header: range must be requested"),
        ("bytes", "Malformed range header."),
        ("bytes=5", "Range header: range must be requested"),
        ("bytes=7-" + "0" * 5000 + "3", "Range header: start must be less than end"),
    ],
)
def test_a_malformed_range_is_a_400_in_starlettes_words(
    client: TestClient, header: str, detail: str
) -> None:
    response = client.get("/file", headers={"range": header})
    assert (response.status_code, response.text) == (400, detail)


@pytest.mark.parametrize("header", ["items=0-1", "bytes=0-1,400-", "bytes=0-400,600-1000"])
def test_another_unit_or_ranges_over_half_the_file_give_the_whole_file(
    client: TestClient, header: str
) -> None:
    response = client.get("/file", headers={"range": header})
    assert (response.status_code, response.content) == (200, BODY)


def test_a_range_past_the_file_among_others_is_left_out(client: TestClient) -> None:
    response = client.get("/file", headers={"range": "bytes=2000-, 0-1"})
    assert (response.status_code, response.content) == (206, BODY[:2])
    assert response.headers["content-range"] == "bytes 0-1/1024"


def test_too_many_ranges_give_the_whole_file(client: TestClient) -> None:
    at_most = ",".join(f"{n}-{n}" for n in range(0, 200, 2))
    assert client.get("/file", headers={"range": f"bytes={at_most}"}).status_code == 206
    too_many = at_most + ",300-300"
    response = client.get("/file", headers={"range": f"bytes={too_many}"})
    assert (response.status_code, response.content) == (200, BODY)


def test_several_ranges_give_a_multipart_body(client: TestClient) -> None:
    response = client.get("/file", headers={"range": "bytes=100-109, 0-4, 3-7"})
    assert response.status_code == 206
    media_type, _, boundary = response.headers["content-type"].partition("; boundary=")
    assert media_type == "multipart/byteranges"
    assert "content-range" not in response.headers
    head = f"--{boundary}\r\nContent-Type: application/octet-stream\r\n"
    expected = (
        f"{head}Content-Range: bytes 0-7/1024\r\n\r\n".encode()
        + BODY[0:8]
        + b"\r\n"
        + f"{head}Content-Range: bytes 100-109/1024\r\n\r\n".encode()
        + BODY[100:110]
        + b"\r\n"
        + f"--{boundary}--".encode()
    )
    assert response.content == expected
    assert response.headers["content-length"] == str(len(expected))
    head_response = client.head("/file", headers={"range": "bytes=100-109, 0-4"})
    assert head_response.status_code == 206
    assert head_response.content == b""
    assert int(head_response.headers["content-length"]) == len(expected) - 3


def test_overlapping_ranges_merge_into_one(client: TestClient) -> None:
    response = client.get("/file", headers={"range": "bytes=0-500,100-600"})
    assert (response.status_code, response.content) == (206, BODY[:601])
    assert response.headers["content-range"] == "bytes 0-600/1024"


def test_a_file_shorter_than_its_status_fails_its_multipart_body(
    serve: ClientFactory, data_file: pathlib.Path
) -> None:
    app = App()
    info = data_file.stat()

    @app.get("/shrunk")
    async def shrunk() -> FileResponse:
        data_file.write_bytes(BODY[:10])
        return FileResponse(data_file, stat_result=info)

    with (
        serve(app) as client,
        pytest.raises(RuntimeError, match=f"File at path {data_file} is shorter than expected"),
    ):
        client.get("/shrunk", headers={"range": "bytes=0-1,500-501"})


def test_digits_of_other_scripts_are_not_positions() -> None:
    # str.isdigit takes them, int() does not ('\u00b2' is a superscript 2): ignored.
    with pytest.raises(MalformedRange):
        requested_spans("bytes=\u00b2-", 1024)
    assert requested_spans("bytes=0-\u0663, 5-6", 1024) == [(5, 7)]  # an Arabic-Indic 3


def test_a_range_header_beyond_ascii_is_ignored_or_a_400_under_rsgi(
    client: TestClient, interface: str
) -> None:
    # Read as the file is sent: under RSGI, where Granian does not hand the value over,
    # the error path answers before any byte of the file goes out.
    response = client.get("/file", headers={b"range": b"bytes=\xb2-"})
    if interface == "rsgi":
        assert (response.status_code, response.json()) == (
            400,
            {
                "detail": "The range header holds bytes other than visible ASCII, which "
                "Granian's RSGI interface does not hand over to the app"
            },
        )
    else:
        assert (response.status_code, response.text) == (
            400,
            "Range header: range must be requested",
        )


def test_if_range(client: TestClient) -> None:
    first = client.get("/file")
    etag, modified = first.headers["etag"], first.headers["last-modified"]
    for validator in (etag, modified):
        response = client.get("/file", headers={"range": "bytes=0-1", "if-range": validator})
        assert response.status_code == 206, validator
    for stale in ('"old"', f"W/{etag}", formatdate(1_600_000_000, usegmt=True)):
        response = client.get("/file", headers={"range": "bytes=0-1", "if-range": stale})
        assert (response.status_code, response.content) == (200, BODY), stale


def test_head_answers_a_range_and_other_methods_ignore_it(client: TestClient) -> None:
    head = client.head("/file", headers={"range": "bytes=0-1"})
    assert (head.status_code, head.headers["content-length"]) == (206, "2")
    assert (head.headers["content-range"], head.content) == ("bytes 0-1/1024", b"")
    post = client.post("/file", headers={"range": "bytes=0-1", "if-none-match": "*"})
    assert (post.status_code, post.content) == (200, BODY)


def test_an_empty_file(client: TestClient) -> None:
    response = client.get("/empty")
    assert (response.status_code, response.content) == (200, b"")
    assert response.headers["content-length"] == "0"
    assert client.get("/empty", headers={"range": "bytes=0-"}).status_code == 416


def test_filename_gives_a_content_disposition(client: TestClient) -> None:
    response = client.get("/named")
    assert response.headers["content-type"] == "application/pdf"
    assert response.headers["content-disposition"] == (
        "attachment; filename=\"r_sum_ 2024.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9%202024.pdf"
    )


def test_content_disposition_quotes_and_kinds() -> None:
    assert content_disposition("inline", "a.txt") == 'inline; filename="a.txt"'
    # A CR or LF cannot end the header line: it is encoded, as Starlette encodes it.
    assert content_disposition("attachment", "a\r\nSet-Cookie: x=1") == (
        "attachment; filename=\"a__Set-Cookie: x=1\"; filename*=UTF-8''a%0D%0ASet-Cookie%3A%20x%3D1"
    )
    assert content_disposition("attachment", 'say "hi"\\.txt') == (
        'attachment; filename="say \\"hi\\"\\\\.txt"'
    )


def test_a_weak_etag_never_allows_a_range(serve: ClientFactory, data_file: pathlib.Path) -> None:
    app = App()

    @app.get("/weak")
    async def weak() -> FileResponse:
        return FileResponse(data_file, headers={"etag": 'W/"v1"'})

    with serve(app) as client:
        response = client.get("/weak", headers={"range": "bytes=0-1", "if-range": 'W/"v1"'})
    assert (response.status_code, response.content) == (200, BODY)


@pytest.mark.parametrize(
    ("name", "error"), [("missing.txt", "does not exist"), ("", "is not a file")]
)
def test_a_path_that_is_no_file_is_a_500_naming_it(
    serve: ClientFactory, tmp_path: pathlib.Path, name: str, error: str
) -> None:
    app = App()
    path = tmp_path / name

    @app.get("/file")
    async def file() -> FileResponse:
        return FileResponse(path)

    with serve(app) as client, pytest.raises(RuntimeError) as raised:
        client.get("/file")
    assert str(raised.value) == f"File at path {path} {error}."
