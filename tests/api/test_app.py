"""App lifecycle, middleware and error handling, through both adapters."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

import anyio
import httpx
import pytest

from hasten import (
    App,
    BackgroundTasks,
    Depends,
    HTTPError,
    Request,
    Response,
    Router,
    WebSocket,
)
from hasten._cli.servers import Interface
from hasten.middleware import Middleware
from hasten.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from hasten.testing import TestClient
from hasten.testing.asgi import ASGIDriver
from hasten.testing.exchange import Result, Wire
from hasten.testing.rsgi import RSGIDriver
from hasten.types import ASGIApp, CallNext, Receive, Scope, Send
from tests.conftest import ClientFactory


def test_startup_runs_on_first_request_and_shutdown_on_close(interface: Interface) -> None:
    app = App()
    events: list[str] = []

    @app.on_startup
    async def connect() -> None:
        events.append("async startup")

    @app.on_startup
    def warm() -> None:
        events.append("sync startup")

    @app.on_shutdown
    async def disconnect() -> None:
        events.append("shutdown")

    @app.get("/events")
    async def report() -> list[str]:
        return list(events)

    client = TestClient(app, interface=interface)
    assert events == []
    assert client.get("/events").json() == ["async startup", "sync startup"]
    assert app.started
    client.close()
    assert events == ["async startup", "sync startup", "shutdown"]
    assert not app.started


def test_lifespan_context_manager(interface: Interface) -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[None]:
        events.append("enter")
        yield
        events.append("exit")

    app = App(lifespan=lifespan)

    @app.get("/")
    async def root() -> list[str]:
        return events

    with TestClient(app, interface=interface) as client:
        assert client.get("/").json() == ["enter"]
    assert events == ["enter", "exit"]


def test_failing_startup_hook_is_reported_and_app_stays_down(interface: Interface) -> None:
    app = App()

    @app.on_startup
    def broken() -> None:
        raise RuntimeError("database unreachable")

    client = TestClient(app, interface=interface)
    with pytest.raises(Exception, match="database unreachable"):
        client.get("/")
    assert not app.started
    client.close()


def test_app_can_start_again_after_shutdown(interface: Interface) -> None:
    app = App()
    starts: list[int] = []
    app.on_startup(lambda: starts.append(1))
    app.add_api_route("/", lambda: len(starts))
    for _ in range(2):
        with TestClient(app, interface=interface) as client:
            client.get("/")
    assert starts == [1, 1]


def test_running_context_manager_starts_and_stops() -> None:
    import asyncio

    app = App()
    stopped: list[bool] = []
    app.on_shutdown(lambda: stopped.append(True))

    async def main() -> None:
        async with app.running():
            assert app.started
        assert not app.started

    asyncio.run(main())
    assert stopped == [True]


def test_middleware_wraps_every_response_in_order(serve: ClientFactory) -> None:
    app = App()
    order: list[str] = []

    @app.middleware
    async def outer(request: Request, call_next: CallNext) -> Response:
        order.append("outer in")
        response = await call_next(request)
        order.append("outer out")
        response.headers["x-outer"] = "1"
        return response

    @app.middleware
    async def inner(request: Request, call_next: CallNext) -> Response:
        order.append("inner in")
        response = await call_next(request)
        order.append("inner out")
        response.headers.append("x-inner", "1")
        return response

    @app.get("/")
    async def root() -> dict[str, str]:
        order.append("handler")
        return {"ok": "yes"}

    client = serve(app)
    response = client.get("/")
    assert order == ["outer in", "inner in", "handler", "inner out", "outer out"]
    assert response.headers["x-outer"] == "1"
    assert response.headers["x-inner"] == "1"
    assert response.headers["content-type"] == "application/json"
    missing = client.get("/missing")
    assert missing.status_code == 404
    assert missing.headers["x-outer"] == "1"


def test_middleware_can_answer_without_calling_the_handler(serve: ClientFactory) -> None:
    app = App()

    @app.middleware
    async def guard(request: Request, call_next: CallNext) -> Response:
        if "authorization" not in request.headers:
            return Response("no", status=401)
        return await call_next(request)

    app.add_api_route("/", lambda: "yes")
    client = serve(app)
    assert client.get("/").status_code == 401
    assert client.get("/", headers={"Authorization": "x"}).json() == "yes"


def test_middleware_sees_error_responses(serve: ClientFactory) -> None:
    app = App()
    seen: list[int] = []

    @app.middleware
    async def record(request: Request, call_next: CallNext) -> Response:
        response = await call_next(request)
        seen.append(response.status)
        return response

    @app.get("/boom")
    async def boom() -> None:
        raise ValueError("no")

    @app.get("/teapot")
    async def teapot() -> None:
        raise HTTPError(418)

    client = serve(app, raise_server_exceptions=False)
    client.get("/boom")
    client.get("/teapot")
    assert seen == [500, 418]


def test_middleware_exception_is_a_500(serve: ClientFactory) -> None:
    app = App()

    @app.middleware
    async def broken(request: Request, call_next: CallNext) -> Response:
        raise RuntimeError("middleware bug")

    @app.middleware
    async def refuses(request: Request, call_next: CallNext) -> Response:
        raise HTTPError(403, "forbidden")

    app.add_api_route("/", lambda: "x")
    response = serve(app, raise_server_exceptions=False).get("/")
    assert response.status_code == 500
    assert response.text == "Internal Server Error"


def test_middleware_http_error_is_its_response(serve: ClientFactory) -> None:
    app = App()

    @app.middleware
    async def refuses(request: Request, call_next: CallNext) -> Response:
        raise HTTPError(403, "forbidden", headers={"x-reason": "policy"})

    app.add_api_route("/", lambda: "x")
    response = serve(app).get("/")
    assert response.status_code == 403
    assert response.json() == {"detail": "forbidden"}
    assert response.headers["x-reason"] == "policy"


def make_failing_app(debug: bool) -> App:
    app = App(debug=debug)

    @app.get("/fail")
    async def fail() -> None:
        raise RuntimeError("secret internals")

    @app.get("/fail-sync")
    def fail_sync() -> None:
        raise KeyError("secret key")

    return app


def test_handler_exception_is_500_without_details(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    client = serve(make_failing_app(debug=False), raise_server_exceptions=False)
    with caplog.at_level(logging.ERROR, logger="hasten.error"):
        for path in ("/fail", "/fail-sync"):
            response = client.get(path)
            assert response.status_code == 500
            assert response.text == "Internal Server Error"  # Starlette's, as plain text
            assert response.headers["content-type"] == "text/plain; charset=utf-8"
            assert "secret" not in response.text
    messages = [record.getMessage() for record in caplog.records]
    assert messages == [
        "Unhandled exception while serving GET /fail",
        "Unhandled exception while serving GET /fail-sync",
    ]
    assert caplog.records[0].exc_info is not None
    assert "secret internals" in caplog.text  # the traceback stays in the server's log


@pytest.mark.parametrize("where", ["handler", "cleanup", "background task"])
def test_an_unhandled_exception_reaches_the_server_after_the_response(
    interface: Interface, where: str
) -> None:
    # Starlette's ServerErrorMiddleware: the response goes out (a 500 that names nothing, or
    # the handler's, when the failure came after it), then the exception is raised to the
    # ASGI server, where a middleware around the app or a test transport (httpx's
    # ASGITransport) sees it. Under RSGI hasten's log is the server's: nothing is raised.
    app = App()

    async def dependency() -> AsyncIterator[None]:
        yield
        if where == "cleanup":
            raise RuntimeError("secret internals")

    async def task() -> None:
        raise RuntimeError("secret internals")

    @app.get("/")
    async def endpoint(tasks: BackgroundTasks, _: None = Depends(dependency)) -> str:
        if where == "handler":
            raise RuntimeError("secret internals")
        tasks.add_task(task)
        return "ok"

    wire = Wire(httpx.Request("GET", "http://test/"), ("127.0.0.1", 50000))
    driver = RSGIDriver(app) if interface == "rsgi" else ASGIDriver(app, "")
    result = Result()
    raised: list[BaseException] = []

    async def request() -> None:
        async with app.running():
            try:
                await driver.send(wire, result)
            except RuntimeError as exc:
                raised.append(exc)

    anyio.run(request)
    sent = (500, b"Internal Server Error") if where == "handler" else (200, b'"ok"')
    assert (result.status, result.body) == sent
    assert [str(exc) for exc in raised] == (["secret internals"] if interface == "asgi" else [])


def test_debug_mode_shows_the_traceback(serve: ClientFactory) -> None:
    response = serve(make_failing_app(debug=True), raise_server_exceptions=False).get("/fail")
    assert response.status_code == 500
    body: dict[str, Any] = response.json()
    assert body["detail"] == "Internal Server Error"
    assert body["exception"] == "RuntimeError('secret internals')"
    assert any("secret internals" in line for line in body["traceback"])


def test_http_error_detail_and_headers(serve: ClientFactory) -> None:
    app = App()

    @app.get("/limited")
    async def limited() -> None:
        raise HTTPError(429, {"retry": "later"}, headers={"retry-after": "3"})

    @app.get("/plain")
    async def plain() -> None:
        raise HTTPError(404)

    client = serve(app)
    response = client.get("/limited")
    assert response.status_code == 429
    assert response.json() == {"detail": {"retry": "later"}}
    assert response.headers["retry-after"] == "3"
    assert client.get("/plain").json() == {"detail": "Not Found"}
    assert repr(HTTPError(404)) == "HTTPError(404, 'Not Found')"


def test_describe_routes() -> None:
    from examples.hello import app

    rows = {(info.path, info.methods): info for info in app.describe_routes()}
    assert rows["/hello", ("GET",)].runs_on == "event loop"
    assert rows["/wait", ("GET",)].runs_on == "thread pool"
    assert rows["/wait", ("GET",)].handler == "examples.hello.wait"
    assert rows["/api/users/{id}", ("GET",)].handler == "examples.hello.user"


def test_settings_are_validated() -> None:
    with pytest.raises(
        ValueError, match=r"max_body_size must be a non-negative integer or None, not -1"
    ):
        App(max_body_size=-1)  # 0 is FastAPI's: an empty body only
    with pytest.raises(ValueError, match="block_threshold must be positive"):
        App(block_threshold=0)
    with pytest.raises(ValueError, match="shutdown_timeout cannot be negative"):
        App(shutdown_timeout=-1)


def test_settings_keywords_mirror_settings() -> None:
    import typing

    from hasten import Settings
    from hasten._settings import SettingsKeywords

    names = [name for name, _, _ in Settings.documentation()]
    assert names == list(typing.get_type_hints(SettingsKeywords))
    assert names[:3] == ["debug", "max_body_size", "max_threads"]


def test_a_websocket_to_an_app_without_websocket_routes_is_refused_over_asgi() -> None:
    import asyncio

    app = App()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "websocket.connect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "websocket", "path": "/", "query_string": b"", "headers": []}
    asyncio.run(app(scope, receive, send))  # type: ignore[arg-type]
    # Before the handshake, websocket.close makes the server answer 403.
    assert sent == [{"type": "websocket.close", "code": 1000, "reason": ""}]


def test_routers_hooks_and_lifespans_run_with_the_app(interface: Interface) -> None:
    events: list[str] = []

    @contextlib.asynccontextmanager
    async def app_lifespan(app: App) -> AsyncIterator[dict[str, str]]:
        events.append("app enter")
        yield {"who": "app", "db": "app db"}
        events.append("app exit")

    def router_lifespan(app: App) -> Any:  # a sync generator function, as FastAPI takes it
        events.append("router enter")
        yield {"who": "router", "cache": "router cache"}
        events.append("router exit")

    async def inner_lifespan(app: App) -> AsyncIterator[None]:  # an async generator function
        events.append("inner enter")
        yield
        events.append("inner exit")

    app = App(
        lifespan=app_lifespan,
        on_startup=[lambda: events.append("app startup")],
        on_shutdown=[lambda: events.append("app shutdown")],
    )
    router = Router(lifespan=router_lifespan, on_startup=[lambda: events.append("router startup")])
    inner = Router(lifespan=inner_lifespan)
    with pytest.warns(DeprecationWarning, match="on_event is deprecated"):
        inner.on_event("shutdown")(lambda: events.append("inner shutdown"))
    router.include(inner)
    app.include(router)

    @app.get("/state")
    async def state(request: Request) -> dict[str, str]:
        return {key: getattr(request.state, key) for key in ("who", "db", "cache")}

    with TestClient(app, interface=interface) as client:
        assert events == [
            "app startup",
            "router startup",
            "app enter",
            "router enter",
            "inner enter",
        ]
        assert client.get("/state").json() == {
            "who": "app",
            "db": "app db",
            "cache": "router cache",
        }
        assert client.app_state == {"who": "app", "db": "app db", "cache": "router cache"}
    assert events[5:] == ["inner exit", "router exit", "app exit", "app shutdown", "inner shutdown"]


def test_a_lifespan_that_yields_other_than_a_dict_is_refused(interface: Interface) -> None:
    @contextlib.asynccontextmanager
    async def lifespan(app: App) -> AsyncIterator[str]:
        yield "state"

    client = TestClient(App(lifespan=lifespan), interface=interface)
    with pytest.raises(TypeError, match="yielded 'state': a lifespan yields nothing, or a dict"):
        client.start()


def test_middleware_keyword_adds_each_in_order(serve: ClientFactory) -> None:
    class Tag:
        def __init__(self, name: str, *, header: str) -> None:
            self.name, self.header = name, header

        async def __call__(self, request: Request, call_next: CallNext) -> Response:
            response = await call_next(request)
            response.headers.append(self.header, self.name)
            return response

    app = App(
        middleware=[
            Middleware(Tag, "outer", header="x-tag"),
            Middleware(Tag, "inner", header="x-tag"),
        ]
    )

    @app.get("/")
    async def root() -> str:
        return "ok"

    response = serve(app).get("/")
    assert response.headers.get_list("x-tag") == ["inner", "outer"]
    assert repr(Middleware(Tag, "a", header="b")) == "Middleware(Tag, 'a', header='b')"


def test_starlettes_base_http_middleware_runs_its_dispatch(serve: ClientFactory) -> None:
    class Timing(BaseHTTPMiddleware):
        def __init__(self, app: Any, header: str) -> None:
            super().__init__(app)
            self.header = header

        async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
            if request.url.path == "/refused":
                return Response("refused", status=403)
            response = await call_next(request)
            response.headers[self.header] = f"{type(self.app).__name__} {request.method}"
            return response

    async def tag(request: Request, call_next: RequestResponseEndpoint) -> Response:
        response = await call_next(request)
        response.headers["x-tag"] = "dispatch="
        return response

    app = App(middleware=[Middleware(Timing, header="x-timing")])
    app.add_middleware(BaseHTTPMiddleware, dispatch=tag)

    @app.get("/")
    async def root() -> str:
        return "ok"

    client = serve(app)
    response = client.get("/")
    assert (response.status_code, response.json()) == (200, "ok")
    assert (response.headers["x-timing"], response.headers["x-tag"]) == ("App GET", "dispatch=")
    refused = client.get("/refused")
    assert (refused.status_code, refused.text, "x-tag" in refused.headers) == (
        403,
        "refused",
        False,
    )
    assert not app.through_asgi  # not an ASGI middleware: no bridge under RSGI
    bare = App()
    bare.add_middleware(BaseHTTPMiddleware)
    bare.add_api_route("/", root)
    with pytest.raises(NotImplementedError, match="BaseHTTPMiddleware has no dispatch"):
        serve(bare).get("/")


def test_an_asgi_middleware_reads_the_connection_as_starlettes_does(
    serve: ClientFactory,
) -> None:
    seen: list[Any] = []

    class Inspect:
        def __init__(self, app: ASGIApp) -> None:
            self.app = app

        async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] == "http":
                request = Request(scope, receive)
                seen.append((request.method, request.url.path, request.query_params["q"]))
                seen.append((request.headers["x-id"], request.app is app, request.client))
            elif scope["type"] == "websocket":
                websocket = WebSocket(scope, receive=receive, send=send)
                seen.append((websocket.url.path, websocket.headers["x-id"]))
            await self.app(scope, receive, send)

    app = App(middleware=[Middleware(Inspect)])

    @app.post("/items")
    async def items(request: Request) -> Any:
        return {"body": (await request.body()).decode()}  # the middleware left it unread

    @app.websocket("/ws")
    async def socket(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text("hi")
        await websocket.close()

    client = serve(app)
    response = client.post("/items?q=1", content=b"abc", headers={"x-id": "7"})
    assert (response.status_code, response.json()) == (200, {"body": "abc"})
    assert seen == [("POST", "/items", "1"), ("7", True, ("testclient", 50000))]
    with client.websocket_connect("/ws", headers={"x-id": "8"}) as websocket:
        assert websocket.receive_text() == "hi"
    assert seen[2:] == [("/ws", "8")]
    with pytest.raises(ValueError, match="over an http or websocket scope, not 'lifespan'"):
        Request({"type": "lifespan"})


def test_redirect_slashes_can_be_turned_off(interface: Interface) -> None:
    for redirect, status in ((True, 307), (False, 404)):
        app = App(redirect_slashes=redirect)

        @app.get("/hello/")
        async def hello() -> str:
            return "hello"

        client = TestClient(app, interface=interface, follow_redirects=False)
        assert client.get("/hello/").status_code == 200
        assert client.get("/hello").status_code == status
        client.close()
