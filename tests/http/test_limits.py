"""The request limits an App enforces itself (query parameters, headers, JSON depth, integer
digits) and the decoding errors that are the client's: each a precise 4xx, through both
adapters. tests/servers/hostile sends the same through real servers."""

from __future__ import annotations

from typing import Any, cast

import msgspec
import pytest

from hasten import App, Header, Request
from hasten._settings import SettingsKeywords
from tests.conftest import ClientFactory

JSON = {"content-type": "application/json"}


class Order(msgspec.Struct):
    id: int
    name: str


def make_app(**settings: Any) -> App:
    app = App(**settings)

    @app.get("/search")
    async def search(q: str = "", limit: int = 10) -> dict[str, Any]:
        return {"q": q, "limit": limit}

    @app.get("/items/{item_id}")
    async def item(item_id: int) -> dict[str, int]:
        return {"id": item_id}

    @app.get("/agent")
    async def agent(user_agent: str = Header("")) -> dict[str, str]:
        return {"agent": user_agent}

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, str]:
        return {"type": type(await request.json()).__name__}

    @app.post("/orders", status=201)
    async def create(order: Order) -> Order:
        return order

    @app.get("/cookies")
    async def cookies(request: Request) -> dict[str, str]:
        return request.cookies

    return app


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def test_query_parameters_up_to_the_limit_are_parsed(serve: ClientFactory) -> None:
    query = "&".join(["q=x", *(f"p{index}=1" for index in range(999))])
    response = serve(make_app()).get("/search?" + query)
    assert (response.status_code, response.content) == (200, b'{"q":"x","limit":10}')


def test_query_parameters_past_the_limit_are_a_414(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/search?" + "&".join(f"p{n}" for n in range(1001)))
    assert response.status_code == 414
    assert response.content == b'{"detail":"The query string has more than 1000 parameters"}'


def test_empty_query_parts_do_not_count(serve: ClientFactory) -> None:
    response = serve(make_app(max_query_params=2)).get("/search?q=a&&&&limit=3")
    assert (response.status_code, response.content) == (200, b'{"q":"a","limit":3}')


def test_headers_up_to_the_limit_are_read(serve: ClientFactory) -> None:
    headers = {f"x-h{index}": "v" for index in range(95)} | {"user-agent": "ua"}
    client = serve(make_app())
    assert len(client.build_request("GET", "/agent", headers=headers).headers) == 100
    response = client.get("/agent", headers=headers)
    assert (response.status_code, response.content) == (200, b'{"agent":"ua"}')


def test_headers_past_the_limit_are_a_431(serve: ClientFactory) -> None:
    headers = {f"x-h{index}": "v" for index in range(100)}
    response = serve(make_app()).get("/agent", headers=headers)
    assert response.status_code == 431
    assert response.content == b'{"detail":"The request has more than 100 headers"}'


def test_a_route_that_reads_no_header_does_not_count_them(serve: ClientFactory) -> None:
    headers = {f"x-h{index}": "v" for index in range(100)}
    response = serve(make_app()).get("/search", headers=headers)
    assert (response.status_code, response.content) == (200, b'{"q":"","limit":10}')


def test_content_length_with_transfer_encoding_is_a_400_that_closes(
    serve: ClientFactory, interface: str
) -> None:
    # h11 hands both over, and the app refuses them. Granian drops the Content-Length itself
    # and reads the chunked body (tests/servers/hostile/test_granian.py): the app cannot tell.
    headers = {**JSON, "content-length": "22", "transfer-encoding": "chunked"}
    response = serve(make_app()).post("/orders", content=b'{"id": 1, "name": "x"}', headers=headers)
    if interface == "rsgi":
        assert (response.status_code, response.json()) == (201, {"id": 1, "name": "x"})
        return
    assert (response.status_code, response.headers["connection"]) == (400, "close")
    assert response.json() == {
        "detail": "The request has both Content-Length and Transfer-Encoding"
    }


# A value beyond visible ASCII: ASGI servers hand it over (read as latin-1, as Starlette
# reads it); Granian's RSGI does not, and the app says so rather than read a default.
UTF8 = "café".encode()
UNREADABLE = (
    b" header holds bytes other than visible ASCII, which Granian's RSGI interface does not "
    b"hand over to the app"
)


def test_a_header_value_beyond_ascii_is_read_or_refused_never_dropped(
    serve: ClientFactory, interface: str
) -> None:
    client = serve(make_app())
    agent = client.get("/agent", headers={b"user-agent": UTF8})
    cookies = client.get("/cookies", headers={b"cookie": b"a=1; b=" + UTF8})
    # A route that reads neither is not refused for them.
    other = client.get("/search", headers={b"cookie": UTF8, b"x-note": UTF8})
    assert (other.status_code, other.content) == (200, b'{"q":"","limit":10}')
    if interface == "rsgi":
        assert (agent.status_code, agent.content) == (
            400,
            b'{"detail":"The user-agent' + UNREADABLE + b'"}',
        )
        assert (cookies.status_code, cookies.content) == (
            400,
            b'{"detail":"The cookie' + UNREADABLE + b'"}',
        )
    else:
        assert (agent.status_code, agent.json()) == (200, {"agent": UTF8.decode("latin-1")})
        assert (cookies.status_code, cookies.json()) == (
            200,
            {"a": "1", "b": UTF8.decode("latin-1")},
        )


def test_json_at_the_depth_limit_is_decoded(serve: ClientFactory) -> None:
    client = serve(make_app())
    # Short enough to skip the measure, and with more brackets than the limit.
    for body in (nested(64), b"[" * 63 + b"[1], [2]" + b"]" * 63):
        response = client.post("/echo", content=body, headers=JSON)
        assert (response.status_code, response.content) == (200, b'{"type":"list"}')


@pytest.mark.parametrize("path", ["/echo", "/orders"])
def test_json_past_the_depth_limit_is_a_400(serve: ClientFactory, path: str) -> None:
    response = serve(make_app()).post(path, content=nested(65), headers=JSON)
    assert response.status_code == 400
    assert response.content == b'{"detail":"JSON body nested deeper than 64 levels"}'


def test_brackets_inside_strings_do_not_nest(serve: ClientFactory) -> None:
    body = b'["' + b"[{" * 100 + b'\\"[", {"a": "]]]"}]'
    response = serve(make_app()).post("/echo", content=body, headers=JSON)
    assert (response.status_code, response.content) == (200, b'{"type":"list"}')


def test_many_shallow_brackets_are_not_deep(serve: ClientFactory) -> None:
    body = b"[" + b",".join(b'{"a": [1]}' for _ in range(1000)) + b"]"
    response = serve(make_app()).post("/echo", content=body, headers=JSON)
    assert (response.status_code, response.content) == (200, b'{"type":"list"}')


def keys(count: int) -> bytes:
    """A JSON object of ``count`` distinct keys: the costliest document to decode per byte."""
    return b"{" + b",".join(b'"%d":0' % index for index in range(count)) + b"}"


@pytest.mark.parametrize("path", ["/echo", "/orders"])
def test_json_up_to_max_json_size_is_decoded(serve: ClientFactory, path: str) -> None:
    body = b'{"id": 1, "name": "x", "pad": "' + b"p" * 967 + b'"}'
    assert len(body) == 1000
    response = serve(make_app(max_json_size=1000)).post(path, content=body, headers=JSON)
    assert response.status_code in (200, 201)


@pytest.mark.parametrize("path", ["/echo", "/orders"])
def test_json_past_max_json_size_is_a_413_even_under_a_larger_body_limit(
    serve: ClientFactory, path: str
) -> None:
    client = serve(make_app(max_body_size=16 * 1024 * 1024))
    response = client.post(path, content=keys(120_000), headers=JSON)  # 1.2 MB
    assert response.status_code == 413
    assert response.content == b'{"detail":"JSON body exceeds 1048576 bytes (max_json_size)"}'


def test_the_deepest_limit_holds_past_the_interpreters_recursion_limit(
    serve: ClientFactory,
) -> None:
    client = serve(make_app(max_json_depth=256))
    response = client.post("/echo", content=nested(100_000), headers=JSON)
    assert response.status_code == 400
    assert response.content == b'{"detail":"JSON body nested deeper than 256 levels"}'
    response = client.post("/echo", content=nested(256), headers=JSON)
    assert response.status_code == 200


def test_a_depth_limit_msgspec_cannot_decode_to_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^max_json_depth must be at most 256, got 257$"):
        make_app(max_json_depth=257)


@pytest.mark.parametrize("path", ["/echo", "/orders"])
def test_invalid_utf8_in_a_json_string_is_a_400(serve: ClientFactory, path: str) -> None:
    response = serve(make_app()).post(path, content=b'{"name": "\xff\xfe"}', headers=JSON)
    assert response.status_code == 400
    assert response.content == b'{"detail":"Malformed JSON body: invalid UTF-8"}'


@pytest.mark.parametrize("path", ["/echo", "/orders"])
def test_a_lone_surrogate_escape_is_a_400_that_says_so(serve: ClientFactory, path: str) -> None:
    response = serve(make_app()).post(path, content=b'{"name": "\\ud800"}', headers=JSON)
    assert response.status_code == 400
    assert response.content == b'{"detail":"Malformed JSON body: invalid surrogate escape"}'


def test_a_surrogate_pair_and_an_escaped_backslash_are_fine(serve: ClientFactory) -> None:
    body = b'{"id": 1, "name": "\\ud83d\\ude00 \\\\ud800"}'
    response = serve(make_app()).post("/orders", content=body, headers=JSON)
    assert response.status_code == 201
    assert response.content == '{"id":1,"name":"\U0001f600 \\\\ud800"}'.encode()


def test_a_truncated_json_body_still_says_truncated(serve: ClientFactory) -> None:
    response = serve(make_app()).post("/echo", content=b'{"a": "abc', headers=JSON)
    assert response.status_code == 400
    assert response.content == b'{"detail":"Malformed JSON body: Input data was truncated"}'


def out_of_range(source: str, name: str, digits: str) -> dict[str, Any]:
    """pydantic's answer (FastAPI's) to an integer past Python's 4,300 digits."""
    return {
        "detail": [
            {
                "type": "int_parsing_size",
                "loc": [source, name],
                "msg": "Unable to parse input string as an integer, exceeded maximum size",
                "input": digits,
            }
        ]
    }


def test_an_int_past_4300_digits_in_the_path_is_a_422(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/items/" + "9" * 4301)
    assert (response.status_code, response.json()) == (
        422,
        out_of_range("path", "item_id", "9" * 4301),
    )


def test_an_int_past_4300_digits_in_the_query_is_a_422(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/search?limit=-" + "9" * 4301)
    assert (response.status_code, response.json()) == (
        422,
        out_of_range("query", "limit", "-" + "9" * 4301),
    )


def test_an_int_past_4300_digits_in_json_is_a_400(serve: ClientFactory) -> None:
    # Python's json module refuses it too: FastAPI's 400, here saying why.
    client = serve(make_app())
    big = b"9" * 4301
    for path, body in (("/orders", b'{"id": %s, "name": "x"}' % big), ("/echo", b"[%s]" % big)):
        response = client.post(path, content=body, headers=JSON)
        assert response.status_code == 400
        assert response.json()["detail"].startswith("Malformed JSON body: Integer value out of")


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("max_query_params", 0),
        ("max_headers", 0),
        ("max_json_depth", 0),
        ("max_json_size", 0),
        ("body_timeout", 0),
    ],
)
def test_limits_must_be_positive(name: str, value: int) -> None:
    with pytest.raises(ValueError, match=name):
        App(**cast(SettingsKeywords, {name: value}))
