"""The TestClient itself, through both adapters: what Starlette's does (defaults, server
exceptions raised in the test, the lifespan of a ``with`` block, WebSocket options and closes),
and that a client never closed costs no thread."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import Annotated, Any

import pytest

from hasten import (
    App,
    Cookie,
    Header,
    HTTPError,
    PlainTextResponse,
    Request,
    Response,
    WebSocket,
    WebSocketDisconnect,
)
from hasten._cli.servers import Interface
from hasten.responses import RedirectResponse, StreamingResponse
from hasten.sse import EventSourceResponse
from hasten.testing import TestClient, WebSocketDenialResponse, WebSocketTestSession
from hasten.testing import client as testing_client
from hasten.types import Receive, Scope, Send
from tests.conftest import ClientFactory


def wait_until(condition: Callable[[], bool], limit: float = 30.0) -> None:
    """Poll ``condition`` until it holds; ``limit`` only bounds a hang, it measures nothing."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, "the condition never held"
        time.sleep(0.01)


# Threads.
def new_threads(before: set[threading.Thread]) -> list[str]:
    """The threads started since ``before`` and still alive, but for the idle workers of the
    shared loop's default executor (``asyncio_N``, a bounded pool that stays)."""
    return [
        thread.name
        for thread in threading.enumerate()
        if thread not in before and not thread.name.startswith("asyncio_")
    ]


def test_two_hundred_clients_never_closed_leave_no_thread(interface: Interface) -> None:
    TestClient(App(), interface=interface).close()  # the shared loop's thread, started once
    before = set(threading.enumerate())
    stopped: list[int] = []
    peak = 0
    for number in range(200):
        app = App()
        app.on_shutdown(lambda number=number: stopped.append(number))
        app.add_api_route("/sync", lambda: "on a pool thread")  # each app starts its thread pool
        client = TestClient(app, interface=interface)  # the one before becomes garbage here
        assert client.get("/sync").json() == "on a pool thread"  # unannotated: JSON
        peak = max(peak, len(new_threads(before)))
    # A running app has a pool thread (and the loop a monitor, unless an app of an earlier
    # test still holds the shared loop's); the apps of garbage clients stop in the background,
    # a few at a time at most (a client of its own thread would make it 200+).
    assert 1 <= peak <= 20
    del client, app
    gc.collect()  # an unreachable client stops the app it started, pool and all
    wait_until(lambda: len(stopped) == 200)
    wait_until(lambda: new_threads(before) == [])
    assert sorted(stopped) == list(range(200))


# Starlette's defaults.
def request_app() -> App:
    app = App()

    @app.get("/who")
    async def who(request: Request) -> dict[str, Any]:
        assert request.client is not None
        return {
            "url": str(request.url),
            "client": [request.client.host, request.client.port],
            "agent": request.headers.get("user-agent"),
        }

    @app.get("/moved")
    async def moved() -> RedirectResponse:
        return RedirectResponse("/who?from=moved")

    return app


def test_starlettes_defaults(serve: ClientFactory) -> None:
    client = serve(request_app())
    response = client.get("/moved")
    assert (response.status_code, response.json()) == (
        200,
        {
            "url": "http://testserver/who?from=moved",
            "client": ["testclient", 50000],
            "agent": "testclient",
        },
    )
    assert [(step.status_code, step.headers["location"]) for step in response.history] == [
        (307, "/who?from=moved")
    ]


def test_the_defaults_can_be_changed(serve: ClientFactory) -> None:
    client = serve(
        request_app(),
        base_url="https://example.org:8443",
        client=("203.0.113.9", 4321),
        headers={"user-agent": "probe/1"},
        follow_redirects=False,
    )
    moved = client.get("/moved")
    assert (moved.status_code, moved.headers["location"], moved.content) == (
        307,
        "/who?from=moved",
        b"",
    )
    assert client.get("/who").json() == {
        "url": "https://example.org:8443/who",
        "client": ["203.0.113.9", 4321],
        "agent": "probe/1",
    }


# Server exceptions.
class Broken(Exception):
    pass


def failing_app() -> App:
    app = App()

    @app.get("/fail")
    async def fail() -> None:
        raise Broken("the handler failed")

    @app.exception_handler(KeyError)
    async def misses(request: Request, exc: KeyError) -> Response:
        raise Broken("the exception handler failed too")

    @app.get("/handled-badly")
    async def handled_badly() -> None:
        raise KeyError("x")

    @app.websocket("/ws-fail")
    async def ws_fail(websocket: WebSocket) -> None:
        await websocket.accept()
        raise Broken("the WebSocket handler failed")

    return app


@pytest.mark.parametrize(
    ("path", "message"),
    [("/fail", "the handler failed"), ("/handled-badly", "the exception handler failed too")],
)
def test_an_unhandled_exception_is_raised_in_the_test(
    serve: ClientFactory, path: str, message: str
) -> None:
    client = serve(failing_app())
    with pytest.raises(Broken, match=message):
        client.get(path)
    assert client.get("/nowhere").status_code == 404  # the client goes on serving


def test_or_it_is_the_500_a_client_gets(serve: ClientFactory) -> None:
    client = serve(failing_app(), raise_server_exceptions=False)
    for path in ("/fail", "/handled-badly"):
        response = client.get(path)
        assert (response.status_code, response.text) == (500, "Internal Server Error")


def test_a_websocket_handlers_exception_is_raised_as_the_session_ends(
    serve: ClientFactory,
) -> None:
    client = serve(failing_app())
    with pytest.raises(Broken, match="WebSocket handler failed"):  # noqa: SIM117
        with client.websocket_connect("/ws-fail") as ws:
            closed = ws.receive()
    code = 1011 if client.interface == "asgi" else 1005
    assert closed == {"type": "websocket.close", "code": code, "reason": ""}
    quiet = serve(failing_app(), raise_server_exceptions=False)
    with quiet.websocket_connect("/ws-fail") as ws:
        assert ws.receive()["type"] == "websocket.close"


@pytest.mark.parametrize("key", [Exception, 500])
def test_the_handler_of_last_resort_answers_and_the_exception_is_still_raised(
    serve: ClientFactory, key: type[Exception] | int
) -> None:
    # Starlette's ServerErrorMiddleware: the handler for Exception or 500 answers whatever
    # nothing else handles, and the exception is raised in the test all the same.
    app = App()

    @app.exception_handler(key)
    async def last_resort(request: Request, exc: Exception) -> Response:
        return PlainTextResponse(f"sorry: {exc}", status_code=500)

    @app.get("/fail")
    async def fail() -> None:
        raise Broken("the handler failed")

    @app.get("/missing")
    async def missing() -> None:
        raise HTTPError(404)

    with pytest.raises(Broken, match="the handler failed"):
        serve(app).get("/fail")
    quiet = serve(app, raise_server_exceptions=False)
    response = quiet.get("/fail")
    assert (response.status_code, response.text) == (500, "sorry: the handler failed")
    response = serve(app).get("/missing")  # handled by HTTPError's own: not raised
    assert (response.status_code, response.json()) == (404, {"detail": "Not Found"})


# The lifespan.
def lifespan_app(events: list[str], fail: bool = False) -> App:
    @contextlib.asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[None]:
        if fail:
            raise Broken("startup failed")
        events.append("startup")
        yield
        events.append("shutdown")

    app = App(lifespan=lifespan)
    app.add_api_route("/", lambda: "ok")
    return app


def test_a_with_block_runs_the_lifespan_on_entry_and_exit(interface: Interface) -> None:
    events: list[str] = []
    with TestClient(lifespan_app(events), interface=interface) as client:
        assert events == ["startup"]  # before any request
        assert client.get("/").json() == "ok"
    assert events == ["startup", "shutdown"]


def test_a_startup_that_fails_raises_its_own_exception(interface: Interface) -> None:
    client = TestClient(lifespan_app([], fail=True), interface=interface)
    with pytest.raises(Broken, match="startup failed"), client:
        pass
    client.close()


# WebSockets.
def websocket_app() -> App:
    app = App()

    @app.websocket("/echo")
    async def echo(
        websocket: WebSocket,
        room: str,
        token: Annotated[str, Cookie()] = "none",
        x_trace: Annotated[str, Header()] = "none",
    ) -> None:
        await websocket.accept()
        await websocket.send_json({"room": room, "token": token, "trace": x_trace})
        await websocket.close(4000, "bye")

    @app.websocket("/offer")
    async def offer(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_json(websocket.headers.get("sec-websocket-protocol"))
        await websocket.close()

    @app.websocket("/loop")
    async def loop(websocket: WebSocket) -> None:
        await websocket.accept()
        while True:  # FastAPI's tutorial: the client's close ends it with WebSocketDisconnect
            text = await websocket.receive_text()
            await websocket.send_text(f"got {text}")

    @app.websocket("/refuse")
    async def refuse(websocket: WebSocket) -> None:
        await websocket.close()

    return app


def test_a_websocket_close_is_raised_as_websocketdisconnect(serve: ClientFactory) -> None:
    client = serve(websocket_app())
    options: dict[str, Any] = {
        "params": {"room": "r1"},
        "cookies": {"token": "t0k"},
        "headers": {"x-trace": "abc"},
    }
    with client.websocket_connect("/echo", **options) as ws:
        assert ws.receive_json() == {"room": "r1", "token": "t0k", "trace": "abc"}
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
    # Granian's RSGI sends no close code: the client sees 1005.
    expected = (4000, "bye") if client.interface == "asgi" else (1005, "")
    assert (closed.value.code, closed.value.reason) == expected


def test_leaving_the_block_raises_the_disconnect_a_looping_handler_lets_out(
    serve: ClientFactory,
) -> None:
    # As Starlette's (FastAPI's websockets tutorial test asks for it): the block's close
    # reaches the handler's receive_text(), and what the handler lets out, the test gets.
    client = serve(websocket_app())
    replies: list[str] = []
    with pytest.raises(WebSocketDisconnect) as let_out, client.websocket_connect("/loop") as ws:
        replies.append(send_and_receive(ws, "a"))
    assert replies == ["got a"]
    assert let_out.value.code == (1000 if client.interface == "asgi" else 1005)


def send_and_receive(ws: WebSocketTestSession, text: str) -> str:
    ws.send_text(text)
    return ws.receive_text()


def test_websocket_subprotocols_are_offered(serve: ClientFactory) -> None:
    client = serve(websocket_app())
    with client.websocket_connect("/offer", subprotocols=["v1", "v2"]) as ws:
        assert ws.receive_json() == "v1, v2"


def test_a_websocket_refused_before_the_handshake(serve: ClientFactory) -> None:
    client = serve(websocket_app())
    with pytest.raises(WebSocketDenialResponse) as refused:
        client.websocket_connect("/refuse")
    assert (refused.value.status_code, refused.value.content) == (403, b"")


def test_any_asgi_callable_is_served_as_starlettes_client_serves_it() -> None:
    # An ASGI middleware written as a function around a hasten app: the test client serves
    # it over ASGI, the lifespan only within ``with`` (as Starlette's TestClient).
    app = App()
    seen: list[str] = []

    @app.get("/")
    async def scheme(request: Request) -> str:
        return request.url.scheme

    async def asgi(scope: Any, receive: Any, send: Any) -> None:
        seen.append(scope["type"])
        if scope["type"] != "lifespan":
            scope["scheme"] = "https"
        await app(scope, receive, send)

    client = TestClient(asgi)
    assert client.interface == "asgi"
    assert (client.get("/").status_code, client.get("/").json()) == (200, "https")
    assert seen == ["http", "http"]
    with TestClient(asgi) as entered:
        assert entered.get("/").json() == "https"
    assert seen == ["http", "http", "lifespan", "http"]
    with pytest.raises(ValueError, match="over ASGI only"):
        TestClient(asgi, interface="rsgi")
    client.close()


def closing_app() -> App:
    """An app whose WebSocket refuses a login with 4001, beside an HTTP route; and one mounted
    under /sub with a WebSocket route of its own."""
    app, sub = App(), App()

    @app.get("/hello")
    async def hello() -> str:
        return "hello"

    @app.websocket("/login")
    async def login(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.close(4001, "bad token")

    @sub.websocket("/ws")
    async def nested(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.close(1008)

    app.mount("/sub", sub)
    return app


def test_an_app_with_websocket_routes_is_served_over_asgi_where_close_codes_reach_the_test(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Granian's RSGI sends no close code: over it FastAPI's tests of 1008 and 1002 saw 1005
    (issue 33, point 7). The TestClient serves such an app over ASGI unless told to use RSGI,
    and says why once."""
    testing_client._say_once.cache_clear()  # said once per process: this test's process
    with caplog.at_level(logging.INFO, logger="hasten"):
        client, again = TestClient(closing_app()), TestClient(closing_app())
    with client.websocket_connect("/login") as ws, pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_text()
    with client.websocket_connect("/sub/ws") as ws, pytest.raises(WebSocketDisconnect) as nested:
        ws.receive_text()
    over_rsgi = TestClient(closing_app(), interface="rsgi")
    with over_rsgi.websocket_connect("/login") as ws, pytest.raises(WebSocketDisconnect) as bare:
        ws.receive_text()

    assert (client.interface, again.interface, over_rsgi.interface) == ("asgi", "asgi", "rsgi")
    assert (closed.value.code, closed.value.reason) == (4001, "bad token")
    assert nested.value.code == 1008
    assert (bare.value.code, bare.value.reason) == (1005, "")
    assert client.get("/hello").json() == "hello"
    assert [record.getMessage() for record in caplog.records if record.name == "hasten"] == [
        "TestClient: an app with WebSocket routes is served over ASGI, since Granian's RSGI "
        "sends no WebSocket close code; TestClient(app, interface='rsgi') serves it over RSGI"
    ]
    for each in (client, again, over_rsgi):
        each.close()


def test_an_app_without_websocket_routes_is_served_over_rsgi() -> None:
    app = App()

    @app.get("/hello")
    async def hello() -> str:
        return "hello"

    client = TestClient(app)
    assert (client.interface, client.get("/hello").json()) == ("rsgi", "hello")
    client.close()


# Streamed responses: the test reads them as a client over a socket does.
def endless_app(events: dict[str, threading.Event]) -> App:
    app = App()

    @app.get("/events")
    async def feed() -> EventSourceResponse:
        async def ticks() -> AsyncIterator[str]:
            number = 0
            try:
                while True:
                    number += 1
                    if number == 3:
                        events["third"].set()  # the app has gone past what was read
                    yield str(number)
            finally:
                events["left"].set()

        return EventSourceResponse(ticks(), ping=None)

    @app.get("/late-failure")
    async def late_failure() -> StreamingResponse:
        async def body() -> AsyncIterator[bytes]:
            yield b"part"
            raise Broken("failed after the head")

        return StreamingResponse(body())

    return app


def test_an_endless_stream_is_read_in_part_and_left(serve: ClientFactory) -> None:
    events = {"third": threading.Event(), "left": threading.Event()}
    client = serve(endless_app(events))
    with client.stream("GET", "/events") as response:
        assert response.status_code == 200
        lines = response.iter_lines()
        assert [next(lines) for _ in range(5)] == ["data: 1", "", "data: 2", "", "data: 3"]
    # The app went no further than one part past what the client read, and leaving the block
    # cancelled it, as a client that leaves does.
    assert events["third"].is_set()
    assert events["left"].is_set()


def test_an_app_goes_no_further_than_the_client_has_read(serve: ClientFactory) -> None:
    events = {"third": threading.Event(), "left": threading.Event()}
    client = serve(endless_app(events))
    with client.stream("GET", "/events") as response:
        parts = response.iter_raw()
        assert next(parts) == b"data: 1\n\n"
        assert not events["third"].is_set()


def test_closing_the_client_cancels_a_response_left_open(serve: ClientFactory) -> None:
    events = {"third": threading.Event(), "left": threading.Event()}
    client = serve(endless_app(events))
    response = client.send(client.build_request("GET", "/events"), stream=True)
    assert next(response.iter_raw()) == b"data: 1\n\n"
    client.close()
    assert events["left"].is_set()


def test_a_failure_after_the_head_is_raised_when_the_response_is_read(
    serve: ClientFactory,
) -> None:
    client = serve(endless_app({}))
    with pytest.raises(Broken, match="failed after the head"):
        client.get("/late-failure")
    with client.stream("GET", "/late-failure") as response:
        assert response.status_code == 200
        with pytest.raises(Broken, match="failed after the head"):
            response.read()


def test_a_head_response_carries_no_body_even_if_the_app_sends_one() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"body"})

    response = TestClient(app).head("/")
    assert (response.status_code, response.content) == (200, b"")


@pytest.mark.parametrize(
    ("base_url", "server"),
    [
        ("http://[::1]:8000", ["::1", 8000]),
        ("http://10.0.0.1", ["10.0.0.1", 80]),
        ("http://testserver:0", ["testserver", 0]),
    ],
)
def test_the_server_address_is_the_one_the_base_url_reaches(
    serve: ClientFactory, base_url: str, server: list[Any]
) -> None:
    app = App()

    @app.get("/")
    async def where(request: Request) -> Any:
        return request.scope["server"]

    client = serve(app, base_url=base_url)
    # Over RSGI, a name reaches Granian's loopback socket; an address, a socket on that one.
    named = client.interface == "rsgi" and server[0] == "testserver"
    expected = ["127.0.0.1", server[1]] if named else server
    assert client.get("/").json() == expected


def test_trailers_sent_after_a_pause_reach_the_test() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "trailers": True})
        await send({"type": "http.response.body", "body": b"hello"})
        await asyncio.sleep(0.01)  # the body is whole; the response is not
        await send({"type": "http.response.trailers", "headers": [(b"x-sum", b"1")]})

    client = TestClient(app)
    response = client.get("/")
    client.close()
    assert (response.text, response.extensions["http.response.trailers"]) == (
        "hello",
        [(b"x-sum", b"1")],
    )
