"""Starlette's class-based endpoints, through both adapters: HTTPEndpoint answers each
method with the method of its name (HEAD with get, 405 with Allow for the others), a sync one
on the thread pool; WebSocketEndpoint's callbacks see the connection, each message decoded by
its ``encoding``, and the close code."""

from __future__ import annotations

import threading
from typing import Any

from hasten import App, Request, WebSocket
from hasten.endpoints import HTTPEndpoint, WebSocketEndpoint
from hasten.responses import JSONResponse, PlainTextResponse, Response
from tests.conftest import ClientFactory

LOOP_THREADS: set[str] = set()


class Users(HTTPEndpoint):
    async def get(self, request: Request) -> Response:
        return JSONResponse({"users": [], "thread": threading.current_thread().name != "x"})

    def post(self, request: Request) -> Response:
        on_loop = threading.current_thread().name in LOOP_THREADS
        return PlainTextResponse(f"created, on the loop: {on_loop}", status_code=201)


closes: list[int] = []


class Echo(WebSocketEndpoint):
    encoding = "json"

    async def on_receive(self, websocket: WebSocket, data: Any) -> None:
        await websocket.send_json({"echo": data})

    async def on_disconnect(self, websocket: WebSocket, close_code: int) -> None:
        closes.append(close_code)


def test_an_http_endpoint_answers_each_method_by_name(serve: ClientFactory) -> None:
    app = App()
    app.add_route("/users", Users)

    @app.get("/loop")
    async def loop() -> None:
        LOOP_THREADS.add(threading.current_thread().name)

    client = serve(app)
    client.get("/loop")
    answers = [client.get("/users"), client.post("/users"), client.head("/users")]
    assert [(r.status_code, r.content) for r in answers] == [
        (200, b'{"users":[],"thread":true}'),
        (201, b"created, on the loop: False"),
        (200, b""),
    ]
    refused = client.delete("/users")
    assert (refused.status_code, refused.headers["allow"]) == (405, "GET, HEAD, POST")


class Search(HTTPEndpoint):
    async def query(self, request: Request) -> Response:
        return PlainTextResponse(f"searched for {(await request.body()).decode()}")

    async def _purge(self, request: Request) -> Response:
        raise AssertionError("a helper is no HTTP method")  # pragma: no cover


def test_an_http_endpoint_answers_query_and_no_other_name(serve: ClientFactory) -> None:
    app = App()
    app.add_route("/search", Search)
    client = serve(app)
    found = client.request("QUERY", "/search", content=b"hasten")
    assert (found.status_code, found.text) == (200, "searched for hasten")
    for method in ("_PURGE", "PROPFIND"):
        refused = client.request(method, "/search")
        assert (refused.status_code, refused.text, refused.headers["allow"]) == (
            405,
            '{"detail":"Method Not Allowed"}',
            "QUERY",
        )


def test_a_websocket_endpoint_gets_each_message_decoded(
    serve: ClientFactory, interface: str
) -> None:
    app = App()
    app.add_websocket_route("/echo", Echo)
    closes.clear()
    with serve(app).websocket_connect("/echo") as websocket:
        websocket.send_text('{"a": 1}')
        assert websocket.receive_json() == {"echo": {"a": 1}}
        websocket.close(code=1001)
    # Granian's RSGI hands no close code over (1005, "none given"); ASGI does.
    assert closes == [1005 if interface == "rsgi" else 1001]


def test_an_endpoints_methods_are_read_in_any_case(serve: ClientFactory) -> None:
    app = App()
    app.add_route("/users", Users, methods=["get"])
    client = serve(app)
    assert client.get("/users").status_code == 200
    assert client.post("/users").status_code == 405  # not given: the route refuses it
