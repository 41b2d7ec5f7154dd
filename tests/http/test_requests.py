"""What a handler sees of the request, through both adapters."""

from __future__ import annotations

from typing import Any

import pytest

from hasten import App, Request
from tests.conftest import ClientFactory


def make_app() -> App:
    app = App()

    @app.route("/echo/{name}", methods=["GET", "POST"])
    async def echo(request: Request) -> dict[str, Any]:
        body = await request.body()
        again = await request.body()  # cached: the body is read once
        chunks = [chunk async for chunk in request.stream()]  # replays the cached body
        return {
            "method": request.method,
            "path": request.path,
            "path_params": request.path_params,
            "query_string": request.query_string,
            "query": dict(request.query),
            "tags": request.query.get_all("tag"),
            "header": request.headers.get("x-token"),
            "header_case": request.headers["X-TOKEN"] if "X-Token" in request.headers else None,
            "accept_all": request.headers.get_all("accept"),
            "cookies": request.cookies,
            "client": list(request.client) if request.client else None,
            "scheme": request.scheme,
            "url": request.url,
            "content_type": request.content_type,
            "body": body.decode(),
            "same": body == again == b"".join(chunks),
            "repr": repr(request),
        }

    return app


def test_request_attributes(serve: ClientFactory) -> None:
    response = serve(make_app()).post(
        "/echo/ada?tag=a&tag=b&x=%2F",
        content=b"payload",
        headers=[
            ("X-Token", "t0k"),
            ("Accept", "text/html"),
            ("Accept", "application/json"),
            ("Cookie", 'session=abc; theme="dark"'),
            ("Content-Type", "Text/Plain; charset=utf-8"),
        ],
    )
    assert response.json() == {
        "method": "POST",
        "path": "/echo/ada",
        "path_params": {"name": "ada"},
        "query_string": "tag=a&tag=b&x=%2F",
        "query": {"tag": "b", "x": "/"},  # the last value of a repeated name, as Starlette
        "tags": ["a", "b"],
        "header": "t0k",
        "header_case": "t0k",
        "accept_all": ["text/html", "application/json"],
        "cookies": {"session": "abc", "theme": "dark"},
        "client": ["testclient", 50000],
        "scheme": "http",
        "url": "http://testserver/echo/ada?tag=a&tag=b&x=%2F",
        "content_type": "text/plain",
        "body": "payload",
        "same": True,
        "repr": "<Request POST /echo/ada>",
    }


def test_cookies_are_read_as_starlette_reads_them(serve: ClientFactory) -> None:
    # A quoted value is unquoted by Python's rules (what set_cookie writes for a comma); a
    # pair without "=" is the empty name's, as browsers send it.
    cookie = 'greeting="Hello\\054 cookies!"; unnamed; a=b; "; c = d ; ;'
    response = serve(make_app()).get("/echo/x", headers={"Cookie": cookie})
    expected = {"greeting": "Hello, cookies!", "": '"', "a": "b", "c": "d"}
    assert response.json()["cookies"] == expected


def test_request_without_body_or_query(serve: ClientFactory) -> None:
    body = serve(make_app()).get("/echo/x").json()
    assert body["body"] == ""
    assert body["query"] == {}
    assert body["cookies"] == {}
    assert body["content_type"] == ""
    assert body["url"] == "http://testserver/echo/x"


def test_a_request_made_by_hand_outside_an_app_maps_its_scope_as_given() -> None:
    scope = {"type": "http", "method": "POST", "path": "/abc/"}
    assert dict(Request(scope)) == scope
    assert len(Request(scope)) == 3


def test_url_for_outside_any_app_says_so() -> None:
    request = Request({"type": "http", "method": "GET", "path": "/", "headers": []})
    with pytest.raises(RuntimeError, match="can only be used inside a Starlette application"):
        request.url_for("index")
