"""``request.scope`` and ``request.receive`` through both adapters, a Request subclass made
from them (Starlette's ``GzipRequest(request.scope, request.receive)``), and ``root_path``."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from typing import Any

import pytest

from hasten import App, Body, Request, Response, Route
from hasten.errors import FastAPIDeprecationWarning
from hasten.types import Handler
from tests.conftest import ClientFactory


def test_scope_is_the_asgi_scope_read_only(serve: ClientFactory) -> None:
    app = App()
    seen: dict[str, Any] = {}

    @app.get("/items/{item_id}")
    async def read(item_id: str, request: Request) -> dict[str, Any]:
        scope = request.scope
        seen["app"] = scope["app"]
        with pytest.raises(TypeError):
            scope["path"] = "/elsewhere"  # type: ignore[index]
        return {
            key: scope[key]
            for key in ("type", "method", "scheme", "path", "root_path", "path_params")
        } | {
            "query_string": scope["query_string"].decode(),
            "host": dict(scope["headers"])[b"host"].decode(),
            "http_version": scope["http_version"] in ("1.1", "2"),
            "client": scope["client"] is not None,
        }

    response = serve(app).get("/items/7?q=1")
    assert response.status_code == 200
    assert response.json() == {
        "type": "http",
        "method": "GET",
        "scheme": "http",
        "path": "/items/7",
        "root_path": "",
        "path_params": {"item_id": "7"},
        "query_string": "q=1",
        "host": "testserver",
        "http_version": True,
        "client": True,
    }
    assert seen["app"] is app


class GzipRequest(Request):
    async def body(self) -> bytes:
        if not hasattr(self, "_body"):
            body = await super().body()
            if "gzip" in self.headers.getlist("Content-Encoding"):
                body = gzip.decompress(body)
            self._body = body
        return self._body


class GzipRoute(Route):
    def get_route_handler(self) -> Handler:
        original: Callable[[Request], Any] = super().get_route_handler()

        async def handler(request: Request) -> Response:
            response: Response = await original(GzipRequest(request.scope, request.receive))
            return response

        return handler


def gzip_app() -> App:
    app = App()
    app.router.route_class = GzipRoute

    @app.post("/sum")
    async def sum_numbers(numbers: list[int] = Body()) -> dict[str, int]:
        return {"sum": sum(numbers)}

    @app.get("/class")
    async def request_class(request: Request) -> dict[str, Any]:
        return {"class": type(request).__name__, "view": isinstance(request, GzipRequest)}

    return app


def test_a_request_subclass_made_from_scope_and_receive_views_the_request(
    serve: ClientFactory,
) -> None:
    client = serve(gzip_app())
    body = gzip.compress(b"[1, 2, 3]")
    headers = {"content-encoding": "gzip", "content-type": "application/json"}
    response = client.post("/sum", content=body, headers=headers)
    assert (response.status_code, response.json()) == (200, {"sum": 6})
    response = client.post("/sum", content=b"[4, 5]", headers={"content-type": "application/json"})
    assert (response.status_code, response.json()) == (200, {"sum": 9})
    response = client.get("/class")
    assert (response.status_code, response.json()) == (200, {"class": "GzipRequest", "view": True})


def test_receive_hands_over_the_whole_body_once(serve: ClientFactory) -> None:
    app = App()

    @app.post("/echo")
    async def echo(request: Request) -> dict[str, Any]:
        message = await request.receive()
        return {"type": message["type"], "body": message["body"].decode()}

    response = serve(app).post("/echo", content=b"hello")
    assert (response.status_code, response.json()) == (
        200,
        {"type": "http.request", "body": "hello"},
    )


def test_a_request_subclass_needs_a_hasten_requests_scope() -> None:
    with pytest.raises(TypeError, match=r"takes a hasten request's scope \(request.scope\)"):
        GzipRequest({"type": "http"}, None)


def root_path_app() -> App:
    with pytest.warns(FastAPIDeprecationWarning, match="fastapi run --root-path"):
        app = App(root_path="/api/v1")

    @app.get("/app")
    async def read_main(request: Request) -> dict[str, Any]:
        return {"root_path": request.scope.get("root_path"), "url": str(request.url)}

    return app


def test_root_path_of_the_app_is_each_requests(serve: ClientFactory) -> None:
    client = serve(root_path_app())
    response = client.get("/app")
    assert (response.status_code, response.json()) == (
        200,
        {"root_path": "/api/v1", "url": "http://testserver/api/v1/app"},
    )
    response = client.get("/api/v1/app")  # a proxy that did not strip the prefix
    assert (response.status_code, response.json()["root_path"]) == (200, "/api/v1")
    document = client.get("/openapi.json").json()
    assert document["servers"] == [{"url": "/api/v1"}]
    assert '"url": "/api/v1/openapi.json"' in client.get("/docs").text


def test_root_path_stays_out_of_the_servers_when_asked(serve: ClientFactory) -> None:
    with pytest.warns(FastAPIDeprecationWarning):
        app = App(
            root_path="/api/v1",
            root_path_in_servers=False,
            servers=[{"url": "https://stag.example.com"}],
        )
    response = serve(app).get("/openapi.json")
    assert (response.status_code, response.json()["servers"]) == (
        200,
        [{"url": "https://stag.example.com"}],
    )
