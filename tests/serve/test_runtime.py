"""The request path (the serve steps, hasten._serve.steps) through both adapters: what it
sends, when it lets go of the in-flight slot, and how it answers a handler or middleware that
misbehaves."""

from __future__ import annotations

import asyncio
import functools
import logging
import threading
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
import pytest

from hasten import App, Request, Response, StreamingResponse
from hasten._cli.servers import Interface
from hasten.testing import TestClient
from hasten.types import CallNext
from tests.asgi_calls import asgi_get
from tests.conftest import ClientFactory


class Item(msgspec.Struct):
    name: str


def build(middleware: bool) -> App:
    app = App(max_body_size=16)

    @app.get("/json")
    async def json_result() -> dict[str, int]:
        return {"a": 1}

    @app.get("/text")
    async def text() -> str:
        return "text"

    @app.get("/any/{n:int}")
    async def any_result(n: int) -> Any:
        return [n] if n else b"\x00"

    @app.post("/items", status=201)
    async def create(item: Item) -> Item:
        return item

    @app.get("/empty", status=204)
    async def empty() -> None: ...

    @app.get("/boom")
    async def boom() -> dict[str, str]:
        raise RuntimeError("secret")

    if middleware:

        @app.middleware
        async def untouched(request: Request, call_next: CallNext) -> Response:
            return await call_next(request)

    return app


REQUESTS: list[tuple[str, str, dict[str, Any]]] = [
    ("GET", "/json", {}),
    ("HEAD", "/json", {}),
    ("GET", "/text", {}),
    ("GET", "/any/3", {}),
    ("GET", "/any/0", {}),
    ("POST", "/items", {"json": {"name": "pen"}}),
    ("GET", "/empty", {}),
    ("GET", "/missing", {}),  # 404
    ("DELETE", "/json", {}),  # 405
    ("POST", "/items", {"content": b'{"name": "far too long"}'}),  # 413
    ("POST", "/items", {"json": {"name": 1}}),  # 422
    ("GET", "/boom", {}),  # 500
    ("GET", "/json/", {}),  # 307
]


def wire(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    return response.status_code, response.headers.multi_items(), response.content


def test_with_or_without_middleware_every_byte_is_the_same(interface: Interface) -> None:
    # Without middleware a result goes to the transport without a Response object: that
    # shortcut must put on the wire exactly what the Response would.
    # As a server puts them on the wire: no exception raised in the test, no redirect followed.
    as_sent = functools.partial(
        TestClient, interface=interface, raise_server_exceptions=False, follow_redirects=False
    )
    with (
        as_sent(build(middleware=False)) as direct,
        as_sent(build(middleware=True)) as through,
    ):
        for method, path, options in REQUESTS:
            expected = wire(through.request(method, path, **options))
            assert wire(direct.request(method, path, **options)) == expected, (method, path)
        statuses = [through.request(m, p, **o).status_code for m, p, o in REQUESTS]
        assert statuses == [200, 200, 200, 200, 200, 201, 204, 404, 405, 413, 422, 500, 307]
        for client in (direct, through):
            assert isinstance(client.app, App)
            assert client.app.runtime is not None
            client.app.runtime.in_flight.close()
        assert wire(direct.get("/json")) == wire(through.get("/json"))
        assert direct.get("/json").status_code == 503


def test_the_in_flight_slot_is_held_until_the_body_is_sent(serve: ClientFactory) -> None:
    app = App()
    release = threading.Event()
    seen: list[int] = []

    @app.get("/stream")
    async def stream() -> StreamingResponse:
        async def chunks() -> AsyncIterator[bytes]:
            yield b"first"
            await asyncio.to_thread(release.wait)
            yield b"last"

        return StreamingResponse(chunks())

    @app.get("/count")
    async def count() -> int:
        return int(app.stats()["in_flight"])

    client = serve(app)
    assert client.get("/count").json() == 1  # itself
    sender = threading.Thread(target=lambda: seen.append(client.get("/stream").status_code))
    sender.start()
    try:
        for _ in range(200):
            if client.get("/count").json() == 2:
                break
            threading.Event().wait(0.01)
        assert client.get("/count").json() == 2  # the stream is still being sent
    finally:
        release.set()
        sender.join(10)
    assert seen == [200]
    assert client.get("/count").json() == 1


def test_a_result_that_contradicts_the_annotation_is_a_500_middleware_sees(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()
    seen: list[int] = []

    @app.middleware
    async def observe(request: Request, call_next: CallNext) -> Response:
        response = await call_next(request)
        seen.append(response.status)
        return response

    @app.get("/wrong")
    async def wrong() -> str:
        return 42  # type: ignore[return-value]

    response = serve(app, raise_server_exceptions=False).get("/wrong")
    assert response.status_code == 500
    assert response.text == "Internal Server Error"
    assert seen == [500]
    # FastAPI's ResponseValidationError, naming the handler.
    assert "'type': 'string_type', 'loc': ('response',)" in caplog.text
    assert "in wrong" in caplog.text


def test_the_same_mistake_without_middleware_is_a_500_too(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    @app.get("/wrong")
    async def wrong() -> int:
        return "text"  # type: ignore[return-value]

    response = serve(app, raise_server_exceptions=False).get("/wrong")
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    assert "'type': 'int_parsing', 'loc': ('response',)" in caplog.text


def test_a_response_annotation_with_another_result_is_rendered_by_its_type(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.get("/dict")
    async def dictionary() -> Response:
        return {"a": 1}  # type: ignore[return-value]

    response = serve(app).get("/dict")
    assert (response.status_code, response.json()) == (200, {"a": 1})


def test_a_middleware_that_returns_nothing_is_a_500_naming_it(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    @app.middleware
    async def forgetful(request: Request, call_next: CallNext) -> Response:  # type: ignore[return]
        await call_next(request)  # and no return

    app.add_api_route("/", lambda: "x")
    response = serve(app, raise_server_exceptions=False).get("/")
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    assert "Middleware tests.serve.test_runtime" in caplog.text
    assert "forgetful returned NoneType None, not a Response" in caplog.text


def test_a_chain_whose_middleware_returns_nothing_is_a_500_naming_the_chain(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    @app.middleware
    async def outer(request: Request, call_next: CallNext) -> Response:
        return await call_next(request)

    @app.middleware
    async def inner(request: Request, call_next: CallNext) -> Response:  # type: ignore[return]
        await call_next(request)  # and no return

    app.add_api_route("/", lambda: "x")
    response = serve(app, raise_server_exceptions=False).get("/")
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    assert "Middleware chain tests.serve.test_runtime" in caplog.text
    assert ".outer, tests.serve.test_runtime" in caplog.text
    assert ".inner returned NoneType None, not a Response" in caplog.text


def test_a_failed_startup_on_the_first_request_answers_500_and_is_not_retried(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # A server without lifespan: the first request starts the app.
    app = App()
    attempts: list[int] = []

    @app.on_startup
    def broken() -> None:
        attempts.append(1)
        raise RuntimeError("database unreachable")

    app.add_api_route("/", lambda: "x")

    async def three_requests() -> list[tuple[int, bytes]]:
        return [await asgi_get(app, "/") for _ in range(3)]

    answers = asyncio.run(three_requests())
    assert answers == [(500, b"Internal Server Error")] * 3
    assert attempts == [1]
    assert caplog.text.count("The app failed to start") == 1
    assert not app.started


def test_an_error_while_logging_the_request_path_is_bounded(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    @app.get("/{rest:path}")
    async def fail(rest: str) -> None:
        raise RuntimeError("x")

    serve(app, raise_server_exceptions=False).get("/" + "a" * 5000)
    (record,) = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(record.getMessage()) < 300
