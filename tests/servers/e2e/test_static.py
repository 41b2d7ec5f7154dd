"""StaticFiles on real servers, with every way out of the directory sent raw: none of them
reaches a file outside the directory, whatever the server does with the path first."""

from __future__ import annotations

import pytest

from tests.servers.e2e.raw import fetch

pytestmark = pytest.mark.server


def test_a_file_an_index_and_a_redirect(streams_server: str) -> None:
    css = fetch(streams_server, "GET", "/static/app.css")
    assert (css.status, css.body) == (200, b"body{}")
    assert css.header("content-type") == "text/css; charset=utf-8"
    index = fetch(streams_server, "GET", "/static/docs/")
    assert (index.status, index.body) == (200, b"<h1>docs</h1>")
    redirect = fetch(streams_server, "GET", "/static/docs")
    assert (redirect.status, redirect.header("location")) == (307, "http://t/static/docs/")
    assert fetch(streams_server, "GET", "/static/missing.txt").status == 404
    post = fetch(streams_server, "POST", "/static/app.css", {"Content-Length": "0"})
    assert (post.status, post.header("allow")) == (405, "GET, HEAD")


def test_a_double_encoded_name_is_a_name(streams_server: str) -> None:
    # %252e%252e is decoded once, to the name "%2e%2e": a file of that very name.
    response = fetch(streams_server, "GET", "/static/%252e%252e")
    assert (response.status, response.body) == (200, b"literally %2e%2e")


TRAVERSALS = [
    "/static/../secret.txt",
    "/static/%2e%2e/secret.txt",
    "/static/%2E%2E/secret.txt",
    "/static/.%2e/secret.txt",
    "/static/..%2fsecret.txt",
    "/static/..%2Fsecret.txt",
    "/static/%252e%252e/secret.txt",
    "/static/%252e%252e%252fsecret.txt",
    "/static/..%5csecret.txt",
    "/static/..\\secret.txt",
    "/static/app.css%00",
    "/static/%00../secret.txt",
    "/static/%c0%ae%c0%ae/secret.txt",  # overlong UTF-8 dots: invalid UTF-8, never a "."
    "/static//etc/passwd",
    "/static/%2fetc%2fpasswd",
    "/static/docs/../../secret.txt",
    "/static/docs/%2e%2e/%2e%2e/secret.txt",
    "/static/outside.txt",
    "/static/linked/secret.txt",
    "/static/./../secret.txt",
    "/static/docs/../app.css",  # would stay inside: refused all the same
]


@pytest.mark.parametrize("target", TRAVERSALS)
def test_no_way_out_of_the_directory(streams_server: str, target: str) -> None:
    response = fetch(streams_server, "GET", target)
    assert b"SECRET" not in response.body
    assert b"root:" not in response.body
    # Measured: Granian (RSGI and ASGI) and uvicorn pass every one of these paths on as sent
    # (decoded once, never normalised), and StaticFiles answers 404 to each.
    assert (response.status, response.body) == (404, b'{"detail":"Not Found"}'), target
