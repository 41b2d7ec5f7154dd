"""Mounts through both adapters: StaticFiles, and real Starlette and FastAPI apps under a
prefix (root_path, streaming, files, WebSockets); ASGI middleware around the app."""

from __future__ import annotations

import os
import pathlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import fastapi
import pytest
from starlette.applications import Starlette
from starlette.middleware.gzip import GZipMiddleware as StarletteGZip
from starlette.requests import Request as StarletteRequest
from starlette.responses import FileResponse as StarletteFile
from starlette.responses import JSONResponse as StarletteJSON
from starlette.responses import StreamingResponse as StarletteStream
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket as StarletteWebSocket

from hasten import App, Request, Router, StaticFiles, WebSocket, WebSocketDisconnect
from hasten.testing import WebSocketDenialResponse
from tests.conftest import ClientFactory
from tests.servers.e2e.mounted_app import (
    STARTED,
    STOPPED,
    lifecycle_app,
    mounting_apps,
    routing_apps,
)


@pytest.fixture
def site(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "site"
    (root / "docs").mkdir(parents=True)
    (root / "app.css").write_text("body{}")
    (root / "docs" / "index.html").write_text("<h1>docs</h1>")
    (root / "404.html").write_text("<h1>missing</h1>")
    (root / "%2e%2e").write_text("a file named %2e%2e")
    (tmp_path / "secret.txt").write_text("secret")
    os.symlink(tmp_path / "secret.txt", root / "outside.txt")
    os.symlink(root / "app.css", root / "inside.css")
    os.symlink(tmp_path, root / "linked")  # a directory outside, through a link
    os.symlink(root / "docs", root / "docs-link")  # a directory inside, through a link
    return root


def static_app(site: pathlib.Path, **options: Any) -> App:
    app = App()
    app.mount("/static", StaticFiles(directory=site, **options))

    @app.get("/static/override")
    async def override() -> str:
        return "the app's own route wins"

    return app


def test_static_files(serve: ClientFactory, site: pathlib.Path) -> None:
    client = serve(static_app(site))
    response = client.get("/static/app.css")
    assert (response.status_code, response.text) == (200, "body{}")
    assert response.headers["content-type"] == "text/css; charset=utf-8"
    assert response.headers["content-length"] == "6"
    etag = response.headers["etag"]
    assert client.get("/static/app.css", headers={"if-none-match": etag}).status_code == 304
    ranged = client.get("/static/app.css", headers={"range": "bytes=0-3"})
    assert (ranged.status_code, ranged.text) == (206, "body")
    assert client.head("/static/app.css").headers["content-length"] == "6"
    assert client.get("/static/inside.css").text == "body{}"
    assert client.get("/static/linked/secret.txt").status_code == 404
    assert client.get("/static/docs-link/index.html").text == "<h1>docs</h1>"
    assert client.get("/static/override").json() == "the app's own route wins"
    assert client.get("/static/%252e%252e").text == "a file named %2e%2e"


@pytest.mark.parametrize(
    "path", ["/static/missing.css", "/static/docs", "/static/", "/static", "/static/outside.txt"]
)
def test_static_not_found(serve: ClientFactory, site: pathlib.Path, path: str) -> None:
    response = serve(static_app(site)).get(path)
    assert (response.status_code, response.json()) == (404, {"detail": "Not Found"})


def test_static_methods(serve: ClientFactory, site: pathlib.Path) -> None:
    response = serve(static_app(site)).post("/static/app.css")
    assert response.status_code == 405
    assert response.headers["allow"] == "GET, HEAD"


def test_static_html_mode(serve: ClientFactory, site: pathlib.Path) -> None:
    client = serve(static_app(site, html=True, headers={"cache-control": "max-age=60"}))
    index = client.get("/static/docs/")
    assert (index.status_code, index.text) == (200, "<h1>docs</h1>")
    assert index.headers["content-type"] == "text/html; charset=utf-8"
    assert index.headers["cache-control"] == "max-age=60"
    redirect = client.get("/static/docs?x=1", follow_redirects=False)
    assert (redirect.status_code, redirect.headers["location"]) == (
        307,
        "http://testserver/static/docs/?x=1",
    )
    missing = client.get("/static/nothing.html")
    assert (missing.status_code, missing.text) == (404, "<h1>missing</h1>")
    # A directory without an index.html is not served (Starlette's): no redirect to it.
    root = client.get("/static", follow_redirects=False)
    assert (root.status_code, root.text) == (404, "<h1>missing</h1>")


def test_static_follow_symlinks(serve: ClientFactory, site: pathlib.Path) -> None:
    assert serve(static_app(site, follow_symlinks=True)).get("/static/outside.txt").text == (
        "secret"
    )


@pytest.mark.parametrize(
    "path",
    [
        "../secret.txt",
        "docs/../../secret.txt",
        "..",
        "./app.css",
        "..\\secret.txt",
        "app.css\0",
        "/../secret.txt",
        "outside.txt",
        "docs/..",
        "linked/secret.txt",
    ],
)
def test_static_paths_that_try_to_leave_find_nothing(site: pathlib.Path, path: str) -> None:
    # As the server delivers them (decoded once): tests/servers/e2e/test_static.py sends them raw.
    static = StaticFiles(site)
    assert static._find(path) is None


def test_static_checks_its_directory(tmp_path: pathlib.Path) -> None:
    with pytest.raises(RuntimeError, match="does not exist"):
        StaticFiles(tmp_path / "nope")
    assert StaticFiles(tmp_path / "nope", check_dir=False).directory.endswith("nope")


def test_mount_prefixes_are_checked(site: pathlib.Path) -> None:
    app = App()
    for prefix in ("", "static", "/static/"):
        with pytest.raises(ValueError, match="Mount prefix"):
            app.mount(prefix, StaticFiles(site))
    with pytest.raises(TypeError, match="neither an ASGI app"):
        app.mount("/x", object())


def test_a_prefix_with_parameters(serve: ClientFactory, site: pathlib.Path) -> None:
    # Starlette's Mount("/tenants/{tenant}", ...): the mounted app gets the prefix's values
    # in its scope's path_params, and the matched prefix as its root_path.
    async def star_item(request: StarletteRequest) -> StarletteJSON:
        scope = request.scope
        return StarletteJSON([request.path_params, scope["root_path"], request.url.path])

    star = Starlette(routes=[Route("/items/{item}", star_item)])
    child = App()

    @child.get("/items/{item}")
    async def item(request: Request, item: int) -> list[Any]:
        return [item, request.scope["path_params"], request.scope["root_path"]]

    @child.websocket("/rooms/{room}")
    async def room(websocket: WebSocket, room: str) -> None:
        await websocket.accept()
        await websocket.send_text(f"{websocket.scope['path_params']['tenant']} {room}")
        await websocket.close()

    app = App()
    app.mount("/star/{tenant}", star)
    app.mount("/tenants/{tenant}", child, name="tenants")
    app.mount("/files/{tenant}", StaticFiles(site))
    client = serve(app)
    response = client.get("/star/acme/items/3")
    assert (response.status_code, response.json()) == (
        200,
        [{"tenant": "acme", "item": "3"}, "/star/acme", "/star/acme/items/3"],
    )
    response = client.get("/tenants/acme/items/3")
    assert (response.status_code, response.json()) == (
        200,
        [3, {"tenant": "acme", "item": "3"}, "/tenants/acme"],
    )
    response = client.get("/files/acme/app.css")
    assert (response.status_code, response.text) == (200, "body{}")
    with client.websocket_connect("/tenants/acme/rooms/lobby") as websocket:
        assert websocket.receive_text() == "acme lobby"
    assert app.url_path_for("tenants", tenant="acme", path="/items/3") == "/tenants/acme/items/3"


def test_a_mounted_apps_body_is_held_to_the_limit(serve: ClientFactory) -> None:
    # An ASGI app mounted here reads bodies within the limit of the routers it is included
    # through, else the app's (FastAPI's); a hasten app mounted holds them to its own.
    async def length(request: StarletteRequest) -> StarletteJSON:
        return StarletteJSON(len(await request.body()))

    star = Starlette(routes=[Route("/", length, methods=["POST"])])
    child = App(max_body_size=20)

    @child.post("/")
    async def child_length(request: Request) -> int:
        return len(await request.body())

    router = Router()
    router.mount("/star", star)
    app = App(max_body_size=10)
    app.mount("/star", star)
    app.mount("/child", child)
    app.include_router(router, prefix="/small", max_body_size=5)
    client = serve(app)

    def chunked(size: int) -> Iterator[bytes]:
        yield b"x" * size

    for path, limit in (("/star/", 10), ("/small/star/", 5)):
        for body in (b"x" * limit, chunked(limit)):
            response = client.post(path, content=body)
            assert (response.status_code, response.json()) == (200, limit)
        response = client.post(path, content=b"x" * (limit + 1))
        assert (response.status_code, response.json()) == (
            413,
            {"detail": f"Request body of {limit + 1} bytes exceeds the limit of {limit} bytes"},
        )
        response = client.post(path, content=chunked(limit + 1))
        assert (response.status_code, response.json()) == (
            413,
            {"detail": f"Request body exceeds the limit of {limit} bytes"},
        )
    response = client.post("/child/", content=b"x" * 15)
    assert (response.status_code, response.json()) == (200, 15)


# Real ASGI apps under a prefix.
def starlette_app(tmp_path: pathlib.Path) -> Starlette:
    data = tmp_path / "star.txt"
    data.write_text("from starlette")

    async def hello(request: StarletteRequest) -> StarletteJSON:
        return StarletteJSON(
            {
                "path": request.url.path,
                "root_path": request.scope["root_path"],
                "url_for": str(request.url_for("hello")),
                "body": (await request.body()).decode(),
            }
        )

    async def stream(request: StarletteRequest) -> StarletteStream:
        async def chunks() -> AsyncIterator[bytes]:
            for chunk in (b"one ", b"two"):
                yield chunk

        return StarletteStream(chunks())

    async def file(request: StarletteRequest) -> StarletteFile:
        return StarletteFile(data)

    async def echo(websocket: StarletteWebSocket) -> None:
        await websocket.accept()
        text = await websocket.receive_text()
        await websocket.send_text(f"starlette: {text}")
        await websocket.close()

    return Starlette(
        routes=[
            Route("/hello", hello, methods=["GET", "POST"]),
            Route("/stream", stream),
            Route("/file", file),
            WebSocketRoute("/ws", echo),
        ]
    )


def fastapi_app() -> fastapi.FastAPI:
    api = fastapi.FastAPI()

    @api.get("/items/{item_id}")
    async def item(item_id: int, request: fastapi.Request) -> dict[str, Any]:
        return {"id": item_id, "root_path": request.scope["root_path"]}

    return api


def mounting_app(tmp_path: pathlib.Path) -> App:
    app = App()
    app.mount("/star", starlette_app(tmp_path))
    app.mount("/fast", fastapi_app())

    @app.get("/hello")
    async def hello() -> str:
        return "hasten"

    return app


def test_a_mounted_starlette_app(serve: ClientFactory, tmp_path: pathlib.Path) -> None:
    client = serve(mounting_app(tmp_path))
    response = client.post("/star/hello", content=b"payload")
    assert response.json() == {
        "path": "/star/hello",
        "root_path": "/star",
        "url_for": "http://testserver/star/hello",
        "body": "payload",
    }
    assert client.get("/star/stream").text == "one two"
    file = client.get("/star/file")
    assert (file.text, file.headers["content-length"]) == ("from starlette", "14")
    assert client.get("/star/nothing").status_code == 404
    assert client.get("/hello").json() == "hasten"
    with client.websocket_connect("/star/ws") as ws:
        ws.send_text("hi")
        assert ws.receive_text() == "starlette: hi"


def test_a_mounted_fastapi_app(serve: ClientFactory, tmp_path: pathlib.Path) -> None:
    client = serve(mounting_app(tmp_path))
    assert client.get("/fast/items/3").json() == {"id": 3, "root_path": "/fast"}
    assert client.get("/fast/items/x").status_code == 422
    docs = client.get("/fast/openapi.json")
    assert docs.json()["paths"]["/items/{item_id}"]["get"]


def test_hasten_middleware_sees_a_mounted_response(
    serve: ClientFactory, tmp_path: pathlib.Path
) -> None:
    app = mounting_app(tmp_path)

    @app.middleware
    async def tag(request: Any, call_next: Any) -> Any:
        response = await call_next(request)
        response.headers["x-tag"] = "1"
        return response

    response = serve(app).get("/star/hello")
    assert response.headers["x-tag"] == "1"
    assert response.json()["root_path"] == "/star"


def test_a_websocket_to_a_mount_that_refuses(serve: ClientFactory, tmp_path: pathlib.Path) -> None:
    # Starlette closes it before the handshake: over ASGI the test sees that close, as with
    # Starlette's TestClient; Granian's RSGI refuses the handshake with a 403 for it.
    client = serve(mounting_app(tmp_path))
    with pytest.raises(WebSocketDisconnect) as refused:
        client.websocket_connect("/star/hello")
    if client.interface == "asgi":
        assert (type(refused.value), refused.value.code) == (WebSocketDisconnect, 1000)
    else:
        assert isinstance(refused.value, WebSocketDenialResponse)
        assert refused.value.status_code == 403


# Third-party ASGI middleware around the whole app.
@pytest.mark.parametrize("add", ["add_asgi_middleware", "add_middleware"])
def test_starlette_gzip_middleware_around_the_app(serve: ClientFactory, add: str) -> None:
    """Starlette's ``app.add_middleware(cls, **options)`` takes an ASGI middleware class: its
    first parameter is the app it wraps."""
    app = App()
    getattr(app, add)(StarletteGZip, minimum_size=10)

    @app.get("/big")
    async def big() -> str:
        return "x" * 1000

    client = serve(app)
    response = client.get("/big", headers={"accept-encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"
    assert response.json() == "x" * 1000
    assert int(response.headers["content-length"]) < 100


def test_opentelemetry_asgi_middleware_records_spans(serve: ClientFactory) -> None:
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    app = App()
    app.add_asgi_middleware(OpenTelemetryMiddleware, tracer_provider=provider)

    @app.get("/traced/{n}")
    async def traced(n: int) -> dict[str, int]:
        return {"n": n}

    response = serve(app).get("/traced/7")
    assert response.json() == {"n": 7}
    spans = [span for span in exporter.get_finished_spans() if span.kind.name == "SERVER"]
    assert len(spans) == 1
    attributes = dict(spans[0].attributes or {})
    assert attributes.get("http.status_code", attributes.get("http.response.status_code")) == 200
    assert spans[0].name.startswith("GET")


def test_asgi_middleware_order_and_registration_after_start(serve: ClientFactory) -> None:
    order: list[str] = []

    def tagging(name: str) -> Any:
        class Tag:
            def __init__(self, app: Any) -> None:
                self.app = app

            async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
                if scope["type"] == "http":
                    order.append(name)
                await self.app(scope, receive, send)

        return Tag

    app = App()
    app.add_asgi_middleware(tagging("outer"))
    app.add_asgi_middleware(tagging("inner"))

    @app.get("/x")
    async def x() -> str:
        return "x"

    client = serve(app)
    assert client.get("/x").json() == "x"
    assert order == ["outer", "inner"]
    with pytest.raises(RuntimeError, match="has started"):
        app.add_asgi_middleware(tagging("late"))


def test_a_mount_inside_an_app_that_is_itself_mounted(tmp_path: pathlib.Path) -> None:
    from hasten.testing import TestClient

    with TestClient(mounting_app(tmp_path), interface="asgi", root_path="/outer") as client:
        response = client.get("/star/hello")
    assert response.json()["root_path"] == "/outer/star"
    assert response.json()["path"] == "/outer/star/hello"
    assert response.json()["url_for"] == "http://testserver/outer/star/hello"


def static_site(tmp_path: pathlib.Path) -> App:
    (tmp_path / "styles.css").write_text("a { color: green; }")
    site = App()
    site.mount("/static", StaticFiles(directory=tmp_path), name="static")

    @site.get("/items/{id}")
    async def item(id: str, request: Request) -> dict[str, str]:
        return {
            "item": str(request.url_for("item", id=id)),
            "css": str(request.url_for("static", path="styles.css")),
        }

    return site


@pytest.mark.parametrize("mount_path", ["", "/subapp"])
@pytest.mark.parametrize("root_path", ["", "/api/v1"])
def test_url_for_in_a_mounted_app_under_a_root_path(
    tmp_path: pathlib.Path, root_path: str, mount_path: str
) -> None:
    from hasten.testing import TestClient

    app = site = static_site(tmp_path)
    if mount_path:
        app = App()
        app.mount(mount_path, site)
    prefix = root_path + mount_path
    with TestClient(app, interface="asgi", root_path=root_path) as client:
        response = client.get(f"{prefix}/items/42")  # the path as the client sent it
        assert (response.status_code, response.json()) == (
            200,
            {
                "item": f"http://testserver{prefix}/items/42",
                "css": f"http://testserver{prefix}/static/styles.css",
            },
        )
        response = client.get(f"{mount_path}/static/styles.css")  # or as a proxy strips it
        assert (response.status_code, response.text) == (200, "a { color: green; }")


def test_a_mounted_hasten_app_starts_and_stops_with_the_app(serve: ClientFactory) -> None:
    outer, inner, events = mounting_apps()
    with serve(outer) as client:
        assert client.get("/events").json() == STARTED  # before the first request to it
        assert client.get("/inner/events").json() == STARTED
        assert client.get("/again/events").json() == STARTED
    assert events == STARTED + STOPPED
    assert not inner.started


def test_an_app_a_route_serves_through_its_middleware_starts_and_stops_with_the_app(
    serve: ClientFactory,
) -> None:
    outer, inner, events = routing_apps()
    with serve(outer) as client:
        response = client.get("/routed")
        assert (response.status_code, response.headers["x-routed"]) == (200, "yes")
        assert response.json() == {"events": STARTED, "ticker alive": True}
    assert events == STARTED + STOPPED
    assert not inner.started


def test_a_mounted_app_that_fails_to_start_stops_those_started(serve: ClientFactory) -> None:
    events: list[str] = []
    outer = lifecycle_app("outer", events)
    outer.mount("/inner", lifecycle_app("inner", events))
    broken = App()

    @broken.on_startup
    def fail() -> None:
        raise RuntimeError("the broken app cannot start")

    outer.mount("/broken", broken)
    with pytest.raises(RuntimeError, match="cannot start"), serve(outer):
        pass
    assert events == [*STARTED, "inner lifespan exits", "inner stops", "outer lifespan exits"]


def test_a_mounted_asgi_app_answers_any_method_and_sees_the_app(serve: ClientFactory) -> None:
    seen: list[tuple[str, bool]] = []

    async def dav(scope: dict[str, Any], receive: Any, send: Any) -> None:
        seen.append((scope["method"], scope["app"] is app))
        await send({"type": "http.response.start", "status": 207, "headers": []})
        await send({"type": "http.response.body", "body": scope["method"].encode()})

    app = App()
    app.mount("/dav", dav)

    @app.get("/items")
    async def items() -> list[int]:
        return []

    client = serve(app)
    answered = client.request("PROPFIND", "/dav/folder")
    assert (answered.status_code, answered.content) == (207, b"PROPFIND")
    assert seen == [("PROPFIND", True)]
    # A hasten route still refuses a method it does not serve, naming only its own.
    refused = client.request("PROPFIND", "/items")
    assert (refused.status_code, refused.headers["allow"]) == (405, "GET, HEAD")
    assert [info.methods for info in app.describe_routes() if info.path.startswith("/dav")] == [
        ("DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE", "WEBSOCKET")
    ] * 2
