"""What Starlette's extensions read of its routing, through both adapters: a route is an ASGI
app (``app.mount("/m", Mount("/", routes=...))``), ``Mount.matches`` gives the mounted
app's scope, the scope an ASGI middleware passed in holds the route once the app answers,
``router.routes`` may be replaced, a name reaches through a named mount (``"admin:list"``),
and a scope made by hand is a Request (sqladmin's, starlette-exporter's)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterable, AsyncIterator
from typing import Any, ClassVar

import pytest

from hasten import Request
from hasten.app import Starlette
from hasten.middleware import Middleware
from hasten.requests import Request as StarletteRequest
from hasten.responses import HTMLResponse, PlainTextResponse, Response, StreamingResponse
from hasten.routing import Host, Match, Mount, NoMatchFound, RequestRoute, Router
from hasten.testing import TestClient
from hasten.types import ASGIApp, Receive, Scope, Send
from tests.conftest import ClientFactory


def named(request: Request) -> Response:
    return PlainTextResponse(f"{request.url_for('item', item='7')} {request.path_params}")


def test_a_route_mounted_as_an_app_is_served(serve: ClientFactory) -> None:
    app = Starlette()
    app.mount("/mounted", Mount("/", routes=[RequestRoute("/test/{item}", named, name="item")]))
    client = serve(app)
    found, missing = client.get("/mounted/test/1"), client.get("/mounted/nothing")
    assert (found.status_code, found.text) == (
        200,
        "http://testserver/mounted/test/7 {'item': '1'}",
    )
    assert (missing.status_code, missing.text) == (404, "Not Found")


def test_a_mounts_match_gives_the_mounted_apps_scope() -> None:
    inner = Starlette(routes=[RequestRoute("/users/{user_id}", named)])
    router = Router(routes=[Mount("/sub", app=inner)])
    outer = Router()
    outer.include_router(router, prefix="/api")
    mount = outer.routes[0]
    assert isinstance(mount, Mount)
    scope = {"type": "http", "method": "GET", "path": "/api/sub/users/3", "root_path": ""}
    assert (mount.path, mount.matches(scope)) == (
        "/api/sub",
        (
            Match.FULL,
            {"path_params": {}, "app_root_path": "", "root_path": "/api/sub", "endpoint": inner},
        ),
    )
    # A route under it matches the path under that root path, as Starlette's.
    child_scope = {**scope, "root_path": "/api/sub"}
    match, found = mount.routes[0].matches(child_scope)
    assert (match, found["path_params"]) == (Match.FULL, {"user_id": "3"})
    assert Mount("/", app=inner).path == ""
    assert mount.matches({**scope, "path": "/api/other"}) == (Match.NONE, {})


class SeesTheRoute:
    """An ASGI middleware that reads, once the app answered, what Starlette's router left in
    the scope it was given (as starlette-exporter does)."""

    seen: ClassVar[list[tuple[Any, ...]]] = []

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, send)
        if scope["type"] == "http":
            route = scope.get("route")
            self.seen.append(
                (
                    route and route.path,
                    scope.get("endpoint"),
                    scope.get("path_params"),
                    [r.path for r in scope["router"].routes],
                )
            )


def test_an_asgi_middleware_finds_the_route_in_its_scope(serve: ClientFactory) -> None:
    def item(request: Request) -> Response:
        return PlainTextResponse("item")

    app = Starlette(routes=[RequestRoute("/items/{id}", item)])
    app.add_middleware(SeesTheRoute)
    SeesTheRoute.seen = []
    client = serve(app)
    assert [client.get(path).status_code for path in ("/items/1", "/none")] == [200, 404]
    assert SeesTheRoute.seen == [
        ("/items/{id}", item, {"id": "1"}, ["/items/{id}"]),
        (None, None, None, ["/items/{id}"]),
    ]


def test_an_asgi_middleware_finds_the_route_of_a_mounted_app(serve: ClientFactory) -> None:
    # As Starlette's router leaves it: the innermost route that matched, the path it was
    # matched under as root_path; a mounted ASGI app that is no hasten app leaves its mount.
    def user(request: Request) -> Response:
        return PlainTextResponse("user")

    async def raw(scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse("raw")(scope, receive, send)

    def boom(request: Request) -> Response:
        raise RuntimeError("boom")

    inner = Router([RequestRoute("/users/{name}", user), RequestRoute("/boom", boom)])
    app = Starlette(routes=[Mount("/api", app=inner), Mount("/raw", app=raw)])
    seen: list[tuple[Any, ...]] = []

    class Sees:
        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            try:
                await self.app(scope, receive, send)
            finally:
                if scope["type"] == "http":
                    route = scope["route"]
                    seen.append((type(route).__name__, route.path, scope.get("root_path")))

    app.add_middleware(Sees)
    client = serve(app, raise_server_exceptions=False)
    answers = [client.get(path) for path in ("/api/users/ada", "/raw/x", "/api/boom")]
    assert [(r.status_code, r.text) for r in answers] == [
        (200, "user"),
        (200, "raw"),
        (500, "Internal Server Error"),
    ]
    assert seen == [
        ("RequestRoute", "/users/{name}", "/api"),
        ("Mount", "/raw/{mount_path:path}", ""),
        ("RequestRoute", "/boom", "/api"),  # a failing route's too, for its error metrics
    ]


def test_a_routers_routes_may_be_replaced(serve: ClientFactory) -> None:
    app = Starlette(routes=[RequestRoute("/old", named)])
    app.router.routes = [
        RequestRoute("/new", lambda request: PlainTextResponse("new")),
        Mount("/static", routes=[RequestRoute("/a", lambda request: PlainTextResponse("a"))]),
    ]
    client = serve(app)
    answers = [client.get(path) for path in ("/old", "/new", "/static/a")]
    assert [(r.status_code, r.text) for r in answers] == [
        (404, "Not Found"),
        (200, "new"),
        (200, "a"),
    ]
    # As the routes list a mount (its two routes), given back: the same routes.
    app.router.routes = app.router.routes
    assert [route.path for route in app.router.routes] == [
        "/new",
        "/static",
        "/static/{mount_path:path}",
    ]


def test_a_name_reaches_through_named_mounts(serve: ClientFactory) -> None:
    def page(request: Request) -> Response:
        return PlainTextResponse(str(request.url_for("admin:list", identity="user")))

    admin = Starlette(routes=[RequestRoute("/{identity}/list", page, name="list")])
    app = Starlette()
    app.mount("/admin", app=admin, name="admin")
    client = serve(app)
    response = client.get("/admin/user/list")
    assert (response.status_code, response.text) == (200, "http://testserver/admin/user/list")
    # The mount's own parameters are given with the route's.
    tenants = Starlette()
    tenants.mount("/tenants/{tenant}", app=admin, name="admin")
    assert tenants.url_path_for("admin:list", tenant="t", identity="u") == "/tenants/t/u/list"
    # As Starlette's: a mount's own parameter not given stays in the path; a mount finds the
    # names of its app's routes itself.
    assert tenants.url_path_for("admin:list", identity="u") == "/tenants/{tenant}/u/list"
    mount = Mount("/{tenant}", routes=[RequestRoute("/users", page, name="users")])
    assert mount.url_path_for("users", tenant="t") == "/t/users"
    assert mount.url_path_for("users") == "/{tenant}/users"


def test_a_mounts_url_names_the_path_under_it_and_only_an_apps_routes(
    serve: ClientFactory,
) -> None:
    def page(request: Request) -> Response:
        return PlainTextResponse(str(request.url_for("page")))

    app = Starlette(
        routes=[
            Mount("/files", PlainTextResponse("file"), name="files"),
            Mount("/lone", RequestRoute("/", page, name="lone_page")),
            RequestRoute("/", page, name="page"),
        ]
    )
    assert app.url_path_for("files", path="/a.txt") == "/files/a.txt"
    for name, values in [("files", {}), ("files", {"path": "/a", "x": "1"}), ("lone_page", {})]:
        with pytest.raises(NoMatchFound):
            app.url_path_for(name, **values)
    # A root path given with its slash: the URL has one slash there, not two.
    with TestClient(app, base_url="https://example.org", root_path="/sub/") as client:
        response = client.get("/sub/")
    assert (response.status_code, response.text) == (200, "https://example.org/sub/")


class Debugged(HTMLResponse):
    """sqladmin's template response: its own ``__call__``, which ends in Starlette's."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.headers["x-called"] = "yes"
        await super().__call__(scope, receive, send)


def test_a_response_whose_call_ends_in_the_base_call_is_sent(serve: ClientFactory) -> None:
    def page(request: Request) -> Response:
        return Debugged("<p>page</p>")

    client = serve(Starlette(routes=[RequestRoute("/", page)]))
    response = client.get("/")
    assert (response.status_code, response.text, response.headers["x-called"]) == (
        200,
        "<p>page</p>",
        "yes",
    )


def test_a_streams_body_iterator_is_its_content_async() -> None:
    async def read(chunks: AsyncIterable[Any]) -> list[Any]:
        return [chunk async for chunk in chunks]

    async def upper() -> Any:
        yield b"C"

    chunks: list[bytes | str] = [b"a", "b"]
    response = StreamingResponse(iter(chunks))
    assert asyncio.run(read(response.body_iterator)) == [b"a", "b"]
    response.body_iterator = upper()
    assert asyncio.run(read(response.body_iterator)) == [b"C"]


def test_a_scope_made_by_hand_is_a_request() -> None:
    bare = StarletteRequest({"type": "http"})
    given = StarletteRequest({"type": "http", "path_params": {"pk": 1}, "query_string": "a=1"})
    assert (bare.method, bare.path_params, bare.query_params.get("a")) == ("GET", {}, None)
    assert (given.path_params, given.query_params["a"]) == ({"pk": 1}, "1")
    # The scope given by keyword, as Starlette's signature allows.
    keyword = StarletteRequest(scope={"type": "http", "method": "POST", "headers": []})
    assert (type(keyword), keyword.method) == (type(bare), "POST")


def test_a_form_read_from_a_request_without_a_body_is_empty(serve: ClientFactory) -> None:
    async def fields(request: Request) -> Response:
        return PlainTextResponse(repr(list((await request.form()).items())))

    client = serve(Starlette(routes=[RequestRoute("/", fields, methods=["GET", "POST"])]))
    empty, given = client.get("/"), client.post("/", data={"a": "1"})
    assert [(r.status_code, r.text) for r in (empty, given)] == [(200, "[]"), (200, "[('a', '1')]")]
    refused = client.post("/", content=b"{}", headers={"content-type": "application/json"})
    assert refused.status_code == 415


def test_hosts_serve_their_apps_by_the_host_header(serve: ClientFactory) -> None:
    def page(text: str) -> Any:
        def endpoint(request: Request) -> Response:
            values = request.scope["path_params"]
            return PlainTextResponse(f"{text} {values} {request.url_for('users', user_id=1)}")

        return endpoint

    api = Starlette(routes=[RequestRoute("/users/{user_id}", page("api"), name="users")])
    site = Starlette(routes=[RequestRoute("/users/{user_id}", page("site"), name="users")])
    app = Starlette(
        routes=[
            Host("api.example.org", api, name="api"),
            Host("{sub}.example.org", site, name="site"),
            RequestRoute("/health", lambda request: PlainTextResponse("up")),
        ]
    )
    client = serve(app)
    answers = [
        client.get("/users/5", headers={"host": host})
        for host in ("api.example.org:8000", "www.example.org", "example.com")
    ]
    assert [(r.status_code, r.text) for r in answers] == [
        (200, "api {'user_id': '5'} http://api.example.org:8000/users/1"),
        (200, "site {'sub': 'www', 'user_id': '5'} http://www.example.org/users/1"),
        (404, "Not Found"),
    ]
    # A host is matched in any case, whatever the ports of the pattern and of the request;
    # a Host header that is not a host (a port not in digits) matches none.
    ported = Starlette(routes=[Host("Port.Example.org:3600", api)])
    answers = [
        serve(ported).get("/users/2", headers={"host": host})
        for host in ("port.example.ORG:5600", "port.example.org", "port.example.org:evil")
    ]
    assert [r.status_code for r in answers] == [200, 200, 404]
    # A route of the app's own still wins; a name reaches through a host's.
    health = client.get("/health", headers={"host": "api.example.org"})
    assert (health.status_code, health.text) == (200, "up")
    assert app.url_path_for("site:users", sub="x", user_id=3) == "/users/3"
    assert app.url_path_for("api", path="/users/3") == "/users/3"
    # The URL of a route under a host names the host, as Starlette's.
    urls = [
        app.url_path_for("site:users", sub="x", user_id=3).make_absolute_url("https://any"),
        app.url_path_for("api", path="/users/3").make_absolute_url("https://any/"),
        ported.url_path_for("users", user_id=4).make_absolute_url("http://any"),
    ]
    assert [str(url) for url in urls] == [
        "https://x.example.org/users/3",
        "https://api.example.org/users/3",
        "http://Port.Example.org:3600/users/4",
    ]
    # Starlette's matching, as extensions read it: no path of its own, the app's routes.
    host = app.routes[1]
    assert isinstance(host, Host)
    scope = {"type": "http", "path": "/users/3", "headers": [(b"host", b"a.example.org")]}
    assert (host.path, host.matches(scope)) == (
        "",
        (Match.FULL, {"path_params": {"sub": "a"}, "endpoint": site}),
    )
    assert host.matches({**scope, "headers": [(b"host", b"b.example.com")]}) == (Match.NONE, {})


def test_an_apps_host_method_adds_one(serve: ClientFactory) -> None:
    api = Starlette(routes=[RequestRoute("/", lambda request: PlainTextResponse("api"))])
    app = Starlette()
    app.host("api.example.org", api)
    client = serve(app)
    found = client.get("/", headers={"host": "api.example.org"})
    missing = client.get("/", headers={"host": "example.org"})
    assert [(r.status_code, r.text) for r in (found, missing)] == [
        (200, "api"),
        (404, "Not Found"),
    ]


def test_a_route_appended_to_a_routers_routes_is_registered(serve: ClientFactory) -> None:
    # prometheus-fastapi-instrumentator's tests, and apps, append to Starlette's list.
    sub = Starlette(routes=[RequestRoute("/widget", lambda request: PlainTextResponse("w"))])
    router = Router()
    router.routes.append(Mount("/sub", app=sub))
    router.routes.insert(0, RequestRoute("/first", lambda request: PlainTextResponse("1")))
    app = Starlette()
    app.include_router(router, prefix="/m")
    client = serve(app)
    answers = [client.get(path) for path in ("/m/sub/widget", "/m/first", "/m/other")]
    assert [(r.status_code, r.text) for r in answers] == [
        (200, "w"),
        (200, "1"),
        (404, "Not Found"),
    ]
    assert [route.path for route in router.routes] == ["/sub", "/sub/{mount_path:path}", "/first"]


def test_a_mount_with_middleware_serves_its_prefix_under_that_root_path(
    serve: ClientFactory,
) -> None:
    class Passing:
        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            await self.app(scope, receive, send)

    async def where(scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse(f"{scope['path']} under {scope['root_path']}")(scope, receive, send)

    app = Starlette(routes=[Mount("/http", app=where, middleware=[Middleware(Passing)])])
    client = serve(app)
    answers = [client.get(path) for path in ("/http", "/http/", "/http/x")]
    assert [(r.status_code, r.text) for r in answers] == [
        (200, "/http under /http"),  # was under "/http/": a route "/" in it was not found
        (200, "/http/ under /http"),
        (200, "/http/x under /http"),
    ]


def test_a_hosts_and_a_mounts_values_are_in_the_mounted_apps_path_params(
    serve: ClientFactory,
) -> None:
    def page(request: Request) -> Response:
        return PlainTextResponse(" ".join(f"{k}={v}" for k, v in request.path_params.items()))

    inner = Router(routes=[RequestRoute("/", page), RequestRoute("/items/{item}", page)])
    app = Starlette(
        routes=[
            Mount("/tenants/{tenant}", app=inner),
            Host("{sub}.Example.org", app=inner),
        ]
    )
    client = serve(app)
    answers = [
        client.get("/tenants/acme/items/7"),
        client.get("/", headers={"host": "Shop.example.ORG"}),  # a host is read lower-cased
        client.get("/items/8", headers={"host": "shop.example.org"}),
    ]
    assert [(r.status_code, r.text) for r in answers] == [
        (200, "tenant=acme item=7"),
        (200, "sub=shop"),
        (200, "sub=shop item=8"),
    ]


def test_a_mounted_router_starts_and_stops_with_the_app(serve: ClientFactory) -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        events.append("start")
        yield
        events.append("stop")

    async def page(request: Request) -> Response:
        return PlainTextResponse("inner")

    inner = Router(routes=[RequestRoute("/", page)], lifespan=lifespan)
    app = Starlette(routes=[Mount("/r", app=inner), Host("r.example.org", app=inner)])
    client = serve(app)
    with client:
        assert client.get("/r/").text == "inner"
        assert client.get("/", headers={"host": "r.example.org"}).text == "inner"
        assert events == ["start"]  # once, with the app: not at its first request
    assert events == ["start", "stop"]  # was never stopped: its pools and lifespan left open
