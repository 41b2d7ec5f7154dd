"""More of Starlette's API on hasten, through both adapters: a Mount made by hand (an app, or
routes of its own), a response class that sends itself (its own ASGI ``__call__``), the
exception middleware for code that builds its own ASGI stack, and routes as Starlette makes
them (with middleware of their own, a convertor it registers, routers and routes as apps)."""

from __future__ import annotations

import asyncio
import functools
import threading
from typing import Any

import anyio.from_thread
import pytest

from hasten import App, Request, StaticFiles, WebSocket, WebSocketDisconnect
from hasten._served_as.starlette.convertors import Convertor, register_url_convertor
from hasten._served_as.starlette.formparsers import (
    FormMessage,
    FormParser,
    MultiPartException,
    MultiPartParser,
)
from hasten._served_as.starlette.middleware.body_limit import (
    MAX_BODY_SIZE_SCOPE_KEY,
    RequestBodyLimitMiddleware,
)
from hasten._served_as.starlette.middleware.gzip import GZipMiddleware as StarletteGZip
from hasten.app import Starlette
from hasten.background import BackgroundTask
from hasten.datastructures import URL, Headers, UploadFile
from hasten.errors import HTTPException, StarletteDeprecationWarning
from hasten.middleware import GZipMiddleware as GZipMiddlewareOfHasten
from hasten.middleware import Middleware
from hasten.middleware.base import BaseHTTPMiddleware
from hasten.middleware.exceptions import ExceptionMiddleware, ServerErrorMiddleware
from hasten.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse
from hasten.routing import Mount, NoMatchFound, RequestRoute, Router, WebSocketSessionRoute
from hasten.testing import TestClient, WebSocketDenialResponse
from hasten.types import ASGIApp, Receive, Scope, Send
from tests.conftest import ClientFactory


def text(body: str) -> Any:
    def endpoint(request: Request) -> Response:
        return PlainTextResponse(f"{body} {request.scope['root_path']}")

    return endpoint


def test_a_mount_made_by_hand_serves_an_app_or_its_routes(serve: ClientFactory) -> None:
    api = App()

    @api.get("/items")
    async def items() -> list[int]:
        return [1]

    app = Starlette(
        routes=[
            Mount("/api", app=api),
            Mount("/pages", routes=[RequestRoute("/about", text("about"), name="about")]),
        ]
    )
    client = serve(app)
    answers = [client.get("/api/items"), client.get("/pages/about"), client.get("/pages/x")]
    assert [(r.status_code, r.content) for r in answers] == [
        (200, b"[1]"),
        (200, b"about /pages"),
        (404, b"Not Found"),
    ]
    with pytest.raises(TypeError, match=r"^Mount\('/x'\) takes an app or routes, one of them$"):
        Mount("/x")


class Countdown(Response):
    """A response written for Starlette: it sends itself."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.status_code = 200
        self.media_type = "text/plain"
        self.background = None
        self.init_headers({"x-count": str(count)})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        for left in range(self.count, 0, -1):
            await send({"type": "http.response.body", "body": b"%d " % left, "more_body": True})
        await send({"type": "http.response.body", "body": b"go"})


def test_a_response_that_sends_itself_is_sent_by_its_call(serve: ClientFactory) -> None:
    app = App()

    @app.get("/countdown")
    async def countdown() -> Response:
        return Countdown(3)

    response = serve(app).get("/countdown")
    assert (response.status_code, response.content) == (200, b"3 2 1 go")
    assert (response.headers["x-count"], response.headers["content-type"]) == (
        "3",
        "text/plain; charset=utf-8",
    )


async def failing(scope: Scope, receive: Receive, send: Send) -> None:
    if scope["path"] == "/teapot":
        raise HTTPException(418, "I'm a teapot")
    raise RuntimeError("boom")


def test_the_exception_middleware_answers_around_any_asgi_app() -> None:
    handled = ExceptionMiddleware(failing, handlers={418: _tea})
    client = TestClient(ServerErrorMiddleware(handled), raise_server_exceptions=False)
    teapot, boom = client.get("/teapot"), client.get("/boom")
    assert (teapot.status_code, teapot.content) == (418, b"tea: I'm a teapot")
    assert (boom.status_code, boom.content) == (500, b"Internal Server Error")


def test_a_debug_500_is_a_page_for_a_browser_and_text_for_others() -> None:
    client = TestClient(ServerErrorMiddleware(failing, debug=True), raise_server_exceptions=False)
    text = client.get("/boom")
    page = client.get("/boom", headers={"accept": "text/html, */*"})
    assert (text.status_code, text.headers["content-type"]) == (500, "text/plain; charset=utf-8")
    assert text.text.startswith("Traceback (most recent call last):")
    assert text.text.endswith("RuntimeError: boom\n")
    assert (page.status_code, page.headers["content-type"]) == (500, "text/html; charset=utf-8")
    assert page.text.startswith("<html><body><h1>500 Server Error</h1><pre>Traceback")


def _tea(request: Request, exc: Any) -> Response:
    return PlainTextResponse(f"tea: {exc.detail}", status_code=exc.status_code)


def test_an_apps_add_route_takes_starlettes_keyword(serve: ClientFactory) -> None:
    app = App()
    app.add_route("/", route=text("home"), name="home")
    assert serve(app).get("/").content == b"home "


def test_static_files_from_packages_then_a_directory(
    serve: ClientFactory, tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "shop"
    (package / "statics").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "statics" / "site.css").write_text("body {}")
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / "app.js").write_text("go()")
    monkeypatch.syspath_prepend(str(tmp_path))
    app = App()
    app.mount("/static", StaticFiles(directory=tmp_path / "own", packages=["shop"]))
    client = serve(app)
    answers = [client.get("/static/site.css"), client.get("/static/app.js")]
    assert [(r.status_code, r.content) for r in answers] == [(200, b"body {}"), (200, b"go()")]
    with pytest.raises(RuntimeError, match=r"^Directory 'assets' in package 'shop' could not"):
        StaticFiles(packages=[("shop", "assets")])


def test_urls_change_their_query_as_starlettes() -> None:
    url = URL("http://a/b?x=1&y=2")
    assert url.include_query_params(x=3, z=4) == "http://a/b?y=2&x=3&z=4"
    assert url.remove_query_params("y") == "http://a/b?x=1"
    assert url.replace_query_params(q=1) == "http://a/b?q=1"
    assert (url.is_secure, URL("wss://a/").is_secure) == (False, True)


def test_an_apps_redirect_slashes_is_its_setting(serve: ClientFactory) -> None:
    app = App()
    app.redirect_slashes = False

    @app.get("/items")
    async def items() -> list[int]:
        return []

    assert serve(app).get("/items/").status_code == 404


def test_an_apps_debug_is_its_setting(serve: ClientFactory) -> None:
    app = App()
    app.debug = True

    @app.get("/boom")
    async def boom() -> None:
        raise RuntimeError("kaboom")

    assert (app.debug, app.settings.debug) == (True, True)
    with serve(app, raise_server_exceptions=False) as client:
        response = client.get("/boom")
    assert response.status_code == 500
    assert "RuntimeError: kaboom" in response.text
    with pytest.raises(RuntimeError, match="Cannot change debug: the app has started"):
        app.debug = False


class AddHeader:
    """A pure ASGI middleware: a header on every HTTP response, the WebSocket accept's too."""

    def __init__(self, app: Any, value: str) -> None:
        self.app, self.value = app, value

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def sending(message: dict[str, Any]) -> None:
            if message["type"] in ("http.response.start", "websocket.accept"):
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"x-added", self.value.encode())]
            await send(message)

        await self.app(scope, receive, sending)


class Hex(Convertor[int]):
    regex = "0x[0-9a-f]+"

    def convert(self, value: str) -> int:
        return int(value, 16)

    def to_string(self, value: int) -> str:
        return hex(value)


class EchoSocket:
    """An ASGI app (no function: Starlette calls a function with the WebSocket)."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        websocket = WebSocket(scope, receive=receive, send=send)
        await websocket.accept()
        await websocket.send_text(f"hello {websocket.path_params['room']}")
        await websocket.close()


def test_routes_of_starlettes_shape_serve_as_its_do(serve: ClientFactory) -> None:
    register_url_convertor("hex", Hex())

    def params(request: Request) -> Response:
        return JSONResponse({k: repr(v) for k, v in request.path_params.items()})

    app = Starlette(
        routes=[
            RequestRoute("/colour/{value:hex}", params, name="colour"),
            RequestRoute("/users/{name}:disable", params, methods=["PUT"]),
            RequestRoute("/guarded", params, middleware=[Middleware(AddHeader, "route")]),
            RequestRoute(
                "/guarded-app",
                PlainTextResponse("an app"),
                middleware=[Middleware(AddHeader, "app")],
            ),
            WebSocketSessionRoute("/rooms/{room}", EchoSocket(), name="room"),
            Mount(
                "/api",
                routes=[RequestRoute("/", params)],
                middleware=[Middleware(AddHeader, "mount")],
            ),
        ]
    )
    client = serve(app)
    response = client.get("/colour/0xff")
    assert (response.status_code, response.json()) == (200, {"value": "255"})
    assert client.get("/colour/ff").status_code == 404
    response = client.put("/users/ada:disable")
    assert (response.status_code, response.json()) == (200, {"name": "'ada'"})
    response = client.get("/guarded")
    assert (response.status_code, response.headers["x-added"]) == (200, "route")
    response = client.get("/api/")
    assert (response.status_code, response.headers["x-added"]) == (200, "mount")
    # An ASGI app's route answers every method, with middleware too.
    response = client.post("/guarded-app")
    assert (response.status_code, response.text, response.headers["x-added"]) == (
        200,
        "an app",
        "app",
    )
    with client.websocket_connect("/rooms/blue") as websocket:
        assert websocket.receive_text() == "hello blue"
    assert app.url_path_for("colour", value=255) == "/colour/0xff"
    url = app.url_path_for("room", room="blue").make_absolute_url("https://example.org/base/")
    assert url == "wss://example.org/base/rooms/blue"


def test_a_router_and_a_route_are_asgi_apps() -> None:
    def hello(request: Request) -> Response:
        return PlainTextResponse(f"hello {request.path_params.get('name', '')}")

    router = Router([RequestRoute("/", hello), RequestRoute("/{name}", hello)])
    with TestClient(router) as client:
        response = client.get("/ada")
        assert (response.status_code, response.text) == (200, "hello ada")
        response = client.get("/a/b")
        assert (response.status_code, response.text) == (404, "Not Found")
    route = RequestRoute("/only/{name}", hello)
    with TestClient(route) as client:
        response = client.get("/only/ada")
        assert (response.status_code, response.text) == (200, "hello ada")
        assert client.get("/other").status_code == 404


def test_routes_read_and_fail_as_starlettes() -> None:
    def hello(request: Request) -> Response:
        return PlainTextResponse("hello")

    assert (
        repr(RequestRoute("/a", hello)) == "Route(path='/a', name='hello', methods=['GET', 'HEAD'])"
    )
    assert (
        repr(WebSocketSessionRoute("/ws", EchoSocket()))
        == "WebSocketRoute(path='/ws', name='EchoSocket')"
    )
    router = Router([RequestRoute("/users/{name}", hello, name="user")])
    with pytest.raises(NoMatchFound, match=r'^No route exists for name "user" and params "id"\.$'):
        router.url_path_for("user", id="1")
    with pytest.raises(
        AssertionError, match="cannot be 'a/b'"
    ):  # Starlette's error, a ValueError too
        router.url_path_for("user", name="a/b")
    assert (
        router.url_path_for("user", name="ada").make_absolute_url("http://h")
        == "http://h/users/ada"
    )


def test_starlettes_gzip_middleware_wraps_an_asgi_app(request: pytest.FixtureRequest) -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        size = int(scope["path"].strip("/"))
        headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % size)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"x" * size})

    client = TestClient(StarletteGZip(app, minimum_size=100))  # no lifespan: not entered
    request.addfinalizer(client.close)
    response = client.get("/1000", headers={"accept-encoding": "gzip"})
    assert (response.status_code, response.content) == (200, b"x" * 1000)
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["vary"] == "Accept-Encoding"
    assert int(response.headers["content-length"]) < 100  # the compressed length
    response = client.get("/1000", headers={"accept-encoding": "identity"})
    assert (response.content, response.headers["vary"]) == (b"x" * 1000, "Accept-Encoding")
    assert "content-encoding" not in response.headers
    response = client.get("/10", headers={"accept-encoding": "gzip"})
    assert (response.content, response.headers.get("content-encoding")) == (b"x" * 10, None)
    response = client.get("/1000", headers={"accept-encoding": "gzip;q=0, identity"})
    assert (response.content, response.headers.get("content-encoding")) == (b"x" * 1000, None)


def test_a_lifespan_that_fails_without_answering_fails_the_client_at_once() -> None:
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise LookupError(scope["type"])

    with pytest.raises(LookupError, match="lifespan"), TestClient(app):
        pass


def test_static_files_are_an_app_and_a_missing_one_is_the_apps_404(
    serve: ClientFactory, tmp_path: Any
) -> None:
    (tmp_path / "a.txt").write_text("a")
    files = StaticFiles(directory=tmp_path)
    with TestClient(files) as alone:
        response = alone.get("/a.txt")
        assert (response.status_code, response.text) == (200, "a")
        response = alone.get("/b.txt")
        assert (response.status_code, response.text) == (404, "Not Found")

    app = App()
    app.mount("/static", files)

    @app.exception_handler(404)
    async def not_here(request: Request, exc: Exception) -> Response:
        return PlainTextResponse(f"no {request.url.path}", status_code=404)

    response = serve(app).get("/static/b.txt")
    assert (response.status_code, response.text) == (404, "no /static/b.txt")


async def _chunks(*chunks: bytes) -> Any:
    for chunk in chunks:
        yield chunk


def test_starlettes_form_parsers_parse_a_stream_within_their_limits() -> None:
    asyncio.run(_parse_forms())


async def _parse_forms() -> None:
    urlencoded = Headers({"content-type": "application/x-www-form-urlencoded"})
    form = await FormParser(urlencoded, _chunks(b"a=1&", b"b=%C3%A9")).parse()
    assert form.multi_items() == [("a", "1"), ("b", "é")]
    with pytest.raises(MultiPartException) as raised:
        await FormParser(urlencoded, _chunks(b"a=1&b=2"), max_fields=1).parse()
    assert (raised.value.status, str(raised.value)) == (
        400,
        "Too many fields. Maximum number of fields is 1.",
    )
    body = (
        b'--B\r\nContent-Disposition: form-data; name="f"; filename="a.txt"\r\n\r\nabc\r\n'
        b'--B\r\nContent-Disposition: form-data; name="t"\r\n\r\n\xe9\r\n--B--\r\n'
    )
    multipart = Headers({"content-type": "multipart/form-data; boundary=B; charset=latin-1"})
    form = await MultiPartParser(multipart, _chunks(body[:30], body[30:])).parse()
    upload = form["f"]
    assert isinstance(upload, UploadFile)
    assert (upload.filename, await upload.read(), form["t"]) == ("a.txt", b"abc", "é")
    await form.close()
    with pytest.raises(
        MultiPartException, match=r"^Too many files\. Maximum number of files is 0\.$"
    ):
        await MultiPartParser(multipart, _chunks(body), max_files=0).parse()
    with pytest.raises(MultiPartException, match=r"^Missing boundary in multipart\.$"):
        await MultiPartParser(Headers({"content-type": "multipart/form-data"}), _chunks()).parse()


def test_starlettes_form_message_warns_that_it_is_deprecated() -> None:
    with pytest.warns(StarletteDeprecationWarning, match="`FormMessage` is deprecated"):
        assert FormMessage(1) is FormMessage.FIELD_START


async def _echo(request: Request) -> Response:
    return Response(await request.body())


def test_a_route_and_a_mount_given_by_hand_hold_their_own_body_limit(
    serve: ClientFactory,
) -> None:
    app = Starlette(
        routes=[
            RequestRoute("/small", _echo, methods=["POST"]),
            RequestRoute("/route", _echo, methods=["POST"], max_body_size=10),
            Mount("/mount", routes=[RequestRoute("/", _echo, methods=["POST"])], max_body_size=10),
            RequestRoute("/lower", _echo, methods=["POST"], max_body_size=2),
        ],
        max_body_size=5,
    )
    client = serve(app)
    too_large = "Request body of 8 bytes exceeds the limit of 5 bytes"
    answers = [client.post(path, content=b"12345678") for path in ("/small", "/route", "/mount/")]
    assert [(r.status_code, r.text) for r in answers] == [
        (413, too_large),
        (200, "12345678"),
        (200, "12345678"),
    ]
    response = client.post("/lower", content=b"123")
    assert (response.status_code, response.text) == (
        413,
        "Request body of 3 bytes exceeds the limit of 2 bytes",
    )
    with pytest.raises(ValueError, match="max_body_size"):
        RequestRoute("/", _echo, max_body_size=-1)


def test_starlettes_body_limit_middleware_counts_what_the_app_receives() -> None:
    seen: list[Any] = []

    async def endpoint(request: Request) -> Response:
        seen.append(request.scope[MAX_BODY_SIZE_SCOPE_KEY])
        return Response(await request.body())

    inner = Starlette(routes=[RequestRoute("/", endpoint, methods=["POST"])])
    with TestClient(RequestBodyLimitMiddleware(inner, max_body_size=5)) as client:
        response = client.post("/", content=b"12345")
        assert (response.status_code, response.text, seen) == (200, "12345", [5])
        # Read past the limit with no length declared: the app's handler answers.
        response = client.post("/", content=iter([b"123", b"456"]))
        assert (response.status_code, response.text) == (413, "Content Too Large")
        # Declared past it: refused before the app is called.
        response = client.post("/", content=b"123456")
        assert (response.status_code, response.text, len(seen)) == (413, "Content Too Large", 2)


def test_a_scope_and_a_response_start_without_headers_are_read_as_having_none() -> None:
    # ASGI makes both optional: a request built by hand, and an app that starts its
    # response without them (the test client is as lenient as the servers).
    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        request = Request({"type": "http", "method": "POST", "path": "/"}, receive)
        body = await request.body()
        await send({"type": "http.response.start", "status": 200})
        await send(
            {"type": "http.response.body", "body": body + b"|" + str(len(request.headers)).encode()}
        )

    response = TestClient(app).post("/", content=b"abc")  # no lifespan: a bare app
    assert (response.status_code, response.content, response.headers.multi_items()) == (
        200,
        b"abc|0",
        [],
    )


def test_early_hints_and_push_go_out_where_the_server_offers_them() -> None:
    sent: list[Any] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def hint(extensions: dict[str, Any]) -> None:
        headers = [(b"accept", b"text/css"), (b"cookie", b"a=1")]
        scope = {"type": "http", "headers": headers, "extensions": extensions}
        request = Request(scope, send=send)
        await request.send_early_hints("</a.css>; rel=preload", "</b.js>; rel=modulepreload")
        await request.send_push_promise("/a.css")

    asyncio.run(hint({}))
    assert sent == []  # offered by none: nothing sent
    asyncio.run(hint({"http.response.early_hint": {}, "http.response.push": {}}))
    assert sent == [
        {
            "type": "http.response.early_hint",
            "links": [b"</a.css>; rel=preload", b"</b.js>; rel=modulepreload"],
        },
        # The request's headers a pushed request takes; not its cookie.
        {"type": "http.response.push", "path": "/a.css", "headers": [(b"accept", b"text/css")]},
    ]
    with pytest.raises(RuntimeError, match="Send channel has not been made available"):
        asyncio.run(
            Request(
                {"type": "http", "extensions": {"http.response.early_hint": {}}}
            ).send_early_hints("<x>")
        )


def test_base_http_middleware_wraps_an_asgi_app_as_starlettes_does() -> None:
    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse("inner")(scope, receive, send)

    async def stamp(request: Request, call_next: Any) -> Response:
        response: Response = await call_next(request)
        response.headers["x-stamped"] = "yes"
        return response

    with TestClient(BaseHTTPMiddleware(inner, dispatch=stamp)) as client:
        response = client.get("/any/path")
    assert (response.status_code, response.text, response.headers["x-stamped"]) == (
        200,
        "inner",
        "yes",
    )


def test_starlettes_deprecated_names_warn_and_still_answer() -> None:
    import hasten._served_as.starlette.status as starlette_status
    from hasten._served_as.starlette.concurrency import run_until_first_complete

    with pytest.warns(
        StarletteDeprecationWarning, match=r"Use 'HTTP_422_UNPROCESSABLE_CONTENT' instead\.$"
    ):
        assert starlette_status.HTTP_422_UNPROCESSABLE_ENTITY == 422
    with pytest.raises(
        AttributeError, match=r"^module 'starlette\.status' has no attribute 'HTTP_999'$"
    ):
        starlette_status.HTTP_999  # noqa: B018
    finished: list[str] = []

    async def quick() -> None:
        finished.append("quick")

    async def slow(delay: float) -> None:
        await asyncio.sleep(delay)
        finished.append("slow")

    async def race() -> None:
        await run_until_first_complete((quick, {}), (slow, {"delay": 5}))

    with pytest.warns(StarletteDeprecationWarning, match="run_until_first_complete"):
        asyncio.run(race())
    assert finished == ["quick"]  # the slow one cancelled


def test_the_test_client_serves_an_asgi2_app() -> None:
    def app(scope: Scope) -> Any:
        async def instance(receive: Receive, send: Send) -> None:
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": scope["path"].encode()})

        return instance

    response = TestClient(app).get("/asgi2")  # type: ignore[arg-type]  # ASGI 2
    assert (response.status_code, response.text) == (200, "/asgi2")

    class PicksItsCall:  # as sentry-sdk's middleware: its call a slot, set when it is made
        __slots__ = ("__call__",)

        def __init__(self) -> None:
            self.__call__ = self.asgi3

        async def asgi3(self, scope: Scope, receive: Receive, send: Send) -> None:
            await app(scope)(receive, send)

    response = TestClient(PicksItsCall()).get("/three")
    assert (response.status_code, response.text) == (200, "/three")


def test_static_files_starlette_parts_and_a_late_directory_check(tmp_path: Any) -> None:
    (tmp_path / "a.txt").write_text("a")
    files = StaticFiles(directory=tmp_path)
    assert files.get_path({"path": "/static/a.txt", "root_path": "/static"}) == "/a.txt"
    full, info = files.lookup_path("a.txt")
    assert (full, info is not None and info.st_size) == (str(tmp_path / "a.txt"), 1)
    for outside in ("/../a.txt", "../etc/passwd", "\\\\server\\share", "/no/such"):
        assert files.lookup_path(outside) == ("", None)
    missing = StaticFiles(directory=tmp_path / "gone", check_dir=False)
    with TestClient(missing) as client, pytest.raises(RuntimeError, match="does not exist"):
        client.get("/a.txt")
    a_file = StaticFiles(directory=tmp_path / "a.txt", check_dir=False)
    with TestClient(a_file) as client, pytest.raises(RuntimeError, match="is not a directory"):
        client.get("/a.txt")
    assert not files.config_checked
    with TestClient(files) as client:
        assert client.get("/a.txt").text == "a"
    assert files.config_checked


def test_a_static_files_subclass_answers_through_its_get_response_when_mounted(
    serve: ClientFactory, tmp_path: Any
) -> None:
    (tmp_path / "index.html").write_text("app")

    class SinglePageApp(StaticFiles):  # as Starlette's users write one
        async def get_response(self, path: str, scope: Any) -> Response:
            try:
                return await super().get_response(path, scope)
            except HTTPException as missing:
                if missing.status_code != 404:
                    raise
                return await super().get_response("index.html", scope)

    app = App()
    app.mount("/spa", SinglePageApp(directory=tmp_path))
    response = serve(app).get("/spa/some/client/route")
    assert (response.status_code, response.text) == (200, "app")


def test_a_middleware_given_an_app_by_keyword_keeps_its_other_options() -> None:
    async def inner(scope: Scope, receive: Receive, send: Send) -> None:
        await PlainTextResponse("x" * 600)(scope, receive, send)

    gzip: Any = GZipMiddlewareOfHasten
    wrapped = gzip(1000, app=inner)  # minimum_size=1000: 600 bytes stay plain
    with TestClient(wrapped) as client:
        response = client.get("/", headers={"accept-encoding": "gzip"})
    assert (response.status_code, response.headers.get("content-encoding")) == (200, None)
    # A callback given first is an option, not an app to wrap.
    assert isinstance(gzip(lambda request: None), GZipMiddlewareOfHasten)


def test_starlettes_body_limit_refuses_a_declared_length_of_any_length() -> None:
    sent: list[Any] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        raise AssertionError("not called: refused by its declared length")

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        raise AssertionError("not read")

    limited = RequestBodyLimitMiddleware(app, max_body_size=5)
    length = b"9" * 5000  # past int()'s 4,300 digits
    asyncio.run(limited({"type": "http", "headers": [(b"content-length", length)]}, receive, send))
    assert [message.get("status") for message in sent] == [413, None]


class TryLater(Exception):
    pass


def test_a_plain_def_exception_handler_runs_on_a_thread_that_can_reach_the_loop() -> None:
    """As in Starlette, where a ``def`` handler runs in the thread pool: one that blocks blocks
    no other request, and one may call back into the loop (``anyio.from_thread.run``)."""
    threads: list[str] = []

    def on_request(request: Request, exc: TryLater) -> Response:
        threads.append(threading.current_thread().name)
        return PlainTextResponse("later", 503)

    def on_websocket(websocket: WebSocket, exc: TryLater) -> None:
        threads.append(threading.current_thread().name)
        anyio.from_thread.run(websocket.close, 1013)

    async def page(request: Request) -> Response:
        raise TryLater

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        raise TryLater

    routes = [RequestRoute("/", page), WebSocketSessionRoute("/ws", socket)]
    app = Starlette(routes=routes, exception_handlers={TryLater: on_request})
    sockets = Starlette(routes=routes, exception_handlers={TryLater: on_websocket})  # type: ignore[dict-item]
    with TestClient(app) as client, TestClient(sockets) as other:
        response = client.get("/")
        with other.websocket_connect("/ws") as ws:
            closed = ws.receive()
    assert (response.status_code, response.text) == (503, "later")
    # Routes given by hand serve WebSockets: the app is served over ASGI, with close codes.
    assert (other.interface, closed) == (
        "asgi",
        {"type": "websocket.close", "code": 1013, "reason": ""},
    )
    assert [name.startswith("hasten-thread") for name in threads] == [True, True]


def test_the_middleware_stack_is_built_and_replaced_as_starlettes(serve: ClientFactory) -> None:
    """Tooling wraps ``build_middleware_stack()`` and sets ``app.middleware_stack``
    (OpenTelemetry's instrumentation does): the app is then served through that stack."""
    seen: list[str] = []

    class Tagging:
        def __init__(self, app: ASGIApp, tag: str) -> None:
            self.app, self.tag = app, tag

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                seen.append(self.tag)
            await self.app(scope, receive, send)

    async def page(request: Request) -> Response:
        return PlainTextResponse("page")

    app = Starlette(routes=[RequestRoute("/", page)], middleware=[Middleware(Tagging, "own")])
    app.middleware_stack = Tagging(app.build_middleware_stack(), "outer")
    client = serve(app)
    response = client.get("/")
    assert (response.status_code, response.text, seen) == (200, "page", ["outer", "own"])
    app.middleware_stack = None  # built again at the next call, as Starlette's
    assert (client.get("/").text, seen[2:]) == ("page", ["own"])


def test_a_response_sent_over_a_websocket_scope_is_the_handshakes_denial() -> None:
    """As Starlette's: an ASGI middleware refuses a WebSocket with ``await response(scope,
    receive, send)``, its status, headers and body, streamed or not, then its background."""
    ran: list[str] = []

    async def parts() -> Any:
        yield b"go "
        yield b"away"

    class Refusing:
        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "websocket":
                await self.app(scope, receive, send)
                return
            background = BackgroundTask(ran.append, scope["path"])
            response: Response = (
                StreamingResponse(parts(), 401, background=background)
                if scope["path"] == "/streamed"
                else PlainTextResponse(
                    "no", 403, headers={"x-why": "closed"}, background=background
                )
            )
            await response(scope, receive, send)

    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()

    app = Starlette(
        routes=[WebSocketSessionRoute("/ws", socket), WebSocketSessionRoute("/streamed", socket)],
        middleware=[Middleware(Refusing)],
    )
    refusals = []
    with TestClient(app) as client:
        for path in ("/ws", "/streamed"):
            with pytest.raises(WebSocketDenialResponse) as refused:
                client.websocket_connect(path)
            denial = refused.value
            refusals.append((denial.status_code, denial.headers.get("x-why"), denial.content))
    assert refusals == [(403, "closed", b"no"), (401, None, b"go away")]
    assert ran == ["/ws", "/streamed"]


def test_static_files_as_an_app_close_a_websocket_as_starlettes(tmp_path: Any) -> None:
    (tmp_path / "a.txt").write_text("a")
    client = TestClient(StaticFiles(directory=tmp_path))
    with pytest.raises(WebSocketDisconnect) as closed:
        client.websocket_connect("/a.txt")
    assert closed.value.code == 1000


class AsyncHandler:
    async def __call__(self, request: Request, exc: Exception) -> Response:
        return PlainTextResponse(f"handled {type(exc).__name__}", 418)


def test_an_exception_handler_that_returns_an_awaitable_is_awaited(serve: ClientFactory) -> None:
    """A partial of an object whose call is async looks like a plain function: run on a
    thread, the awaitable it returns is still awaited on the loop."""

    async def page(request: Request) -> Response:
        raise TryLater

    app = Starlette(
        routes=[RequestRoute("/", page)],
        exception_handlers={TryLater: functools.partial(AsyncHandler())},
    )
    response = serve(app).get("/")
    assert (response.status_code, response.text) == (418, "handled TryLater")
