"""The adapters and their test doubles: the per-instance ASGI callable, mounting under another
ASGI app, reading the body once, and doubles as strict as the servers they stand for."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from granian._granian import RSGIProtocolError
from starlette.applications import Starlette
from starlette.routing import Mount

from hasten import App, FileResponse, Request, Response
from hasten._http.errors import StarletteDeprecationWarning
from hasten._serve.protocols.asgi import FILE_CHUNK_SIZE, ASGIChannel
from hasten.testing import TestClient
from hasten.testing.asgi import ASGIMisuse, HTTPExchange
from hasten.testing.exchange import Result
from hasten.testing.rsgi import HTTPProto
from hasten.types import Receive, Scope, Send
from tests.conftest import ClientFactory


class HeaderAdder:
    """A hand-written ASGI middleware: adds a header to every response it passes on."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def tagged(message: Any) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message["headers"], (b"x-wrapped", b"yes")]
            await send(message)

        await self.app(scope, receive, tagged)


def test_the_asgi_callable_is_the_apps_own_and_can_be_wrapped() -> None:
    app = App()
    app.add_api_route("/", lambda: "hi")
    with TestClient(app, interface="asgi") as client:
        assert "x-wrapped" not in client.get("/").headers
        other = App()
        assert app.asgi is not other.asgi  # per instance, not per class
        app.asgi = HeaderAdder(app.asgi)
        response = client.get("/")
        assert (response.json(), response.headers["x-wrapped"]) == ("hi", "yes")


def test_mounted_under_starlette_the_root_path_is_honoured() -> None:
    app = App()

    @app.get("/items/{n:int}")
    async def item(n: int, request: Request) -> list[Any]:
        return [n, request.path, request.root_path]

    outer = Starlette(routes=[Mount("/api", app=app)])
    import httpx

    async def call() -> tuple[httpx.Response, httpx.Response]:
        async with app.running():
            transport = httpx.ASGITransport(app=outer)
            async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
                return await client.get("/api/items/4"), await client.get("/api/items/4/")

    found, redirect = asyncio.run(call())
    assert (found.status_code, found.json()) == (200, [4, "/items/4", "/api"])
    assert (redirect.status_code, redirect.headers["location"]) == (307, "http://t/api/items/4")


def body_app() -> App:
    app = App()

    @app.post("/stream-then-body")
    async def stream_then_body(request: Request) -> int:
        size = sum([len(chunk) async for chunk in request.stream()])
        await request.body()  # the body is gone: a programming error, not a client's
        return size

    @app.post("/body-then-stream")
    async def body_then_stream(request: Request) -> list[int]:
        whole = await request.body()
        return [len(whole), len(b"".join([chunk async for chunk in request.stream()]))]

    return app


def test_reading_a_streamed_body_again_is_a_500_that_says_why(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    client = serve(body_app(), raise_server_exceptions=False)
    response = client.post("/stream-then-body", content=b"payload")
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    assert "already read by request.stream(), which does not keep it" in caplog.text
    assert client.post("/body-then-stream", content=b"payload").json() == [7, 7]


# The doubles themselves.
def test_the_rsgi_double_hands_the_body_over_once() -> None:
    proto = HTTPProto([b"ab", b"c"], Result())

    async def read_twice() -> None:
        assert await proto() == b"abc"
        with pytest.raises(RSGIProtocolError):
            await proto()
        with pytest.raises(RSGIProtocolError):
            proto.__aiter__()
        streamed = HTTPProto([b"ab", b"c"], Result())
        iterator = streamed.__aiter__()
        assert iterator is streamed  # as Granian's: iterating it again is a second read
        with pytest.raises(RSGIProtocolError):
            [chunk async for chunk in iterator]

    asyncio.run(read_twice())


def test_the_rsgi_double_adds_nothing_and_answers_once() -> None:
    result = Result()
    proto = HTTPProto([], result)
    proto.response_bytes(200, [("content-type", "text/plain")], b"body")
    assert (result.status, result.headers, result.body) == (
        200,
        [("content-type", "text/plain")],
        b"body",
    )
    with pytest.raises(RSGIProtocolError):
        proto.response_empty(204, [])


def test_an_app_that_does_not_answer_gets_an_empty_500_from_the_rsgi_double() -> None:
    class Silent(App):
        pass

    app = Silent()

    async def silent(scope: Any, proto: Any) -> None:
        return None

    app.__rsgi__ = silent  # type: ignore[method-assign]
    with TestClient(app) as client:
        response = client.get("/")
        assert (response.status_code, response.content) == (500, b"")


@pytest.mark.parametrize(
    ("messages", "error"),
    [
        ([{"type": "http.response.body", "body": b""}], "'http.response.body' before start"),
        (
            [{"type": "http.response.start", "status": 200, "headers": []}] * 2,
            "'http.response.start' sent twice",
        ),
        (
            [
                {"type": "http.response.start", "status": 200, "headers": []},
                {"type": "http.response.body", "body": b""},
                {"type": "http.response.body", "body": b""},
            ],
            "after response completed",
        ),
        ([{"type": "http.response.push"}], "Unexpected ASGI message 'http.response.push'"),
        ([{"type": "http.response.trailers"}], "without declaring trailers"),
        (
            [
                {"type": "http.response.start", "status": 200, "trailers": True},
                {"type": "http.response.trailers"},
            ],
            "before body completed",
        ),
        (
            [
                {"type": "http.response.start", "status": 200, "trailers": True},
                {"type": "http.response.body"},
                {"type": "http.response.body"},
            ],
            "after body completed",
        ),
    ],
)
def test_the_asgi_double_refuses_messages_out_of_order(
    messages: list[dict[str, Any]], error: str
) -> None:
    exchange = HTTPExchange([], Result())

    async def send_all() -> None:
        for message in messages:
            await exchange.send(message)

    with pytest.raises(ASGIMisuse, match=error):
        asyncio.run(send_all())


def test_the_asgi_double_waits_after_the_body_as_a_server_does() -> None:
    exchange = HTTPExchange([b"x"], Result())

    async def receive_past_the_body() -> list[str]:
        first = await exchange.receive()
        waiting = asyncio.ensure_future(exchange.receive())
        await asyncio.sleep(0.01)
        assert not waiting.done()  # a real server waits for the client
        await exchange.send({"type": "http.response.start", "status": 200, "headers": []})
        await exchange.send({"type": "http.response.body", "body": b""})
        return [first["type"], (await waiting)["type"]]

    assert asyncio.run(receive_past_the_body()) == ["http.request", "http.disconnect"]


def test_an_asgi_app_that_does_not_complete_its_response_fails_the_test_client() -> None:
    async def half(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})

    app = App()
    with TestClient(app, interface="asgi") as client:
        client.start()
        app.asgi = half  # after startup, which builds the app's own
        with pytest.raises(RuntimeError, match="returned without completing its response"):
            client.get("/")


def test_the_asgi_double_hands_over_trailers_and_debug_info_as_starlettes_client() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            for _ in ("startup", "shutdown"):
                await send({"type": (await receive())["type"] + ".complete"})
            return
        assert scope["extensions"] == {"http.response.debug": {}, "http.response.trailers": {}}
        await send({"type": "http.response.start", "status": 200, "trailers": True})
        await send({"type": "http.response.debug", "info": {"template": "a.html", "context": {}}})
        await send({"type": "http.response.body", "body": b"hi"})
        await send(
            {"type": "http.response.trailers", "headers": [(b"x-a", b"1")], "more_trailers": True}
        )
        await send({"type": "http.response.trailers", "headers": [(b"x-b", b"2")]})

    with TestClient(app) as client:
        response = client.get("/")
    assert (response.status_code, response.content) == (200, b"hi")
    assert response.extensions["http.response.trailers"] == [(b"x-a", b"1"), (b"x-b", b"2")]
    assert "x-a" not in response.headers
    assert (response.template, response.context) == ("a.html", {})  # type: ignore[attr-defined]


def test_who_adds_the_content_length(interface: str) -> None:
    # A response as built goes to an RSGI server without Content-Length (Granian adds it;
    # tests/servers/e2e checks that it does); the ASGI adapter adds it, as an RSGI server would. One
    # whose headers were touched is framed by the core, the same on both.
    app = App()

    @app.get("/plain")
    async def plain() -> Response:
        return Response(b"x", 203, None, "text/csv")

    @app.get("/touched")
    async def touched() -> Response:
        return Response(b"x", 203, {"x-one": "1"}, "text/csv")

    with TestClient(app, interface=interface) as client:  # type: ignore[arg-type]
        csv = ("content-type", "text/csv; charset=utf-8")
        length = [("content-length", "1")] if interface == "asgi" else []
        assert client.get("/plain").headers.multi_items() == [csv, *length]
        touched_headers = client.get("/touched").headers.multi_items()
        assert touched_headers == [csv, ("x-one", "1"), ("content-length", "1")]


def test_files_go_through_both_adapters_whole_and_in_ranges(
    serve: ClientFactory, tmp_path: Any
) -> None:
    path = tmp_path / "data.txt"
    path.write_bytes(b"0123456789" * 10_000)
    app = App()

    @app.get("/file")
    async def file() -> FileResponse:
        return FileResponse(path)

    response = serve(app).get("/file")
    assert (response.status_code, response.content) == (200, path.read_bytes())
    assert response.headers["content-length"] == "100000"


def test_the_asgi_channel_sends_a_file_range() -> None:
    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        raise AssertionError("not called")

    async def range_of(path: str) -> None:
        channel = ASGIChannel(receive, send)
        await channel.response_file_range(206, [("content-range", "x")], path, 2, 5)
        assert channel.finish() is None  # the file went out whole: no stream to end

    import tempfile

    with tempfile.NamedTemporaryFile() as handle:
        handle.write(b"0123456789")
        handle.flush()
        asyncio.run(range_of(handle.name))
    assert sent == [
        {"type": "http.response.start", "status": 206, "headers": [(b"content-range", b"x")]},
        {"type": "http.response.body", "body": b"234", "more_body": False},
    ]


@pytest.mark.parametrize("size", [0, 5, FILE_CHUNK_SIZE, FILE_CHUNK_SIZE + 3])
def test_the_asgi_channels_last_chunk_of_a_file_says_it_is_the_last(
    size: int, tmp_path: Any
) -> None:
    # Not an empty message after it: a client with the whole body sends its next request at
    # once, and uvicorn starts a request that came before the response ended from within the
    # task of the one before, in its context (sentry-sdk then saw the last request's URL).
    path = tmp_path / "data.bin"
    path.write_bytes(b"x" * size)
    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        raise AssertionError("not called")

    async def whole() -> None:
        await ASGIChannel(receive, send).response_file(200, [], str(path))

    asyncio.run(whole())
    bodies = [(len(m["body"]), m["more_body"]) for m in sent[1:]]
    expected = {
        0: [(0, False)],
        5: [(5, False)],
        FILE_CHUNK_SIZE: [(FILE_CHUNK_SIZE, False)],
        FILE_CHUNK_SIZE + 3: [(FILE_CHUNK_SIZE, True), (3, False)],
    }
    assert bodies == expected[size]


def test_a_timeout_given_to_the_test_client_warns_as_starlettes() -> None:
    app = App()

    @app.get("/")
    async def hello() -> str:
        return "hi"

    with TestClient(app) as client:
        with pytest.warns(StarletteDeprecationWarning, match="served in-process"):
            response = client.get("/", timeout=1)
        assert (response.status_code, response.json()) == (200, "hi")
