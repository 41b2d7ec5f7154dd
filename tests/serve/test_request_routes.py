"""Starlette's routes on hasten, through both adapters: an endpoint given the request (or the
WebSocket) as it is, sync or async, or an ASGI app; ``add_route`` and
``add_websocket_route`` register them, as in Starlette and FastAPI."""

from __future__ import annotations

import pytest

from hasten import App, Request, WebSocket
from hasten.app import Starlette
from hasten.responses import JSONResponse, PlainTextResponse, Response
from hasten.routing import RequestRoute, WebSocketSessionRoute
from hasten.types import Receive, Scope, Send
from tests.conftest import ClientFactory


def homepage(request):  # type: ignore[no-untyped-def]  # Starlette's endpoint, as written
    return PlainTextResponse(f"hello {request.query_params.get('who', 'world')}")


async def user(request: Request) -> Response:
    return JSONResponse({"user": request.path_params["name"], "method": request.method})


class Echo:
    """An ASGI app as an endpoint: it answers every method itself."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        body = f"{scope['method']} {scope['path']}".encode()
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": body})


async def session(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.send_text(f"hi {websocket.path_params['room']}")
    await websocket.close()


def starlette_app() -> Starlette:
    return Starlette(
        routes=[
            RequestRoute("/", homepage),
            RequestRoute("/users/{name}", user, methods=["GET", "POST"], name="user"),
            RequestRoute("/echo", Echo()),
            WebSocketSessionRoute("/rooms/{room}", session),
        ]
    )


def test_a_starlette_app_serves_its_endpoints(serve: ClientFactory) -> None:
    client = serve(starlette_app())
    answers = [
        client.get("/", params={"who": "you"}),
        client.get("/users/ada"),
        client.post("/users/ada"),
        client.delete("/users/ada"),
        client.put("/echo"),
        client.get("/docs"),  # a Starlette app has no docs pages
    ]
    assert [(r.status_code, r.content) for r in answers] == [
        (200, b"hello you"),
        (200, b'{"user":"ada","method":"GET"}'),
        (200, b'{"user":"ada","method":"POST"}'),
        (405, b"Method Not Allowed"),  # Starlette's text, plain in a Starlette app
        (200, b"PUT /echo"),
        (404, b"Not Found"),  # a Starlette app's errors are plain text
    ]
    with client.websocket_connect("/rooms/lobby") as websocket:
        assert websocket.receive_text() == "hi lobby"


def test_routes_keep_their_endpoint_and_name() -> None:
    app = starlette_app()
    first, second, *_ = app.routes
    assert isinstance(first, RequestRoute)
    assert isinstance(second, RequestRoute)
    assert (first.endpoint, first.name, second.name) == (homepage, "homepage", "user")
    assert app.url_path_for("user", name="ada") == "/users/ada"


def test_add_route_takes_a_starlette_endpoint_and_keeps_it_out_of_openapi(
    serve: ClientFactory,
) -> None:
    app = App()
    app.add_route("/", homepage)
    app.add_websocket_route("/rooms/{room}", session)

    @app.websocket_route("/decorated/{room}")
    async def decorated(websocket: WebSocket) -> None:
        await session(websocket)

    client = serve(app)
    assert (client.get("/").status_code, client.get("/").content) == (200, b"hello world")
    with client.websocket_connect("/decorated/x") as websocket:
        assert websocket.receive_text() == "hi x"
    assert client.get("/openapi.json").json()["paths"] == {}


def test_add_route_refuses_a_handler_whose_parameters_are_read() -> None:
    async def item(item_id: int) -> dict[str, int]:
        return {"id": item_id}

    with pytest.raises(TypeError, match=r"add_route\('/items/\{item_id\}', .*add_api_route"):
        App().add_route("/items/{item_id}", item)
