"""Dependencies through both adapters: nesting, sources, caching, yield cleanup (order, on
errors, exceptions thrown in), sync dependencies on the pool without deadlock, app-scoped
dependencies, overrides, router and app dependencies, and what registration refuses."""

# No `from __future__ import annotations`: the dependencies here are local functions, which
# string annotations could not name.
import asyncio
import dataclasses
import functools
import inspect
import json
import logging
import re
import threading
import time
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Annotated, Any

import anyio
import anyio.from_thread
import anyio.to_thread
import httpx
import msgspec
import pytest

from hasten import (
    App,
    BackgroundTasks,
    Depends,
    Header,
    HTTPError,
    PlainTextResponse,
    Query,
    Request,
    Router,
    StreamingResponse,
    UploadFile,
    WebSocket,
)
from hasten._cli.servers import Interface
from hasten._http.connection import Connection, cleanup_of
from hasten.errors import DependencyScopeError, FastAPIError
from hasten.requests import HTTPConnection
from hasten.testing import TestClient
from tests.conftest import ClientFactory


class Item(msgspec.Struct):
    name: str


def test_nested_dependencies_read_every_source(serve: ClientFactory) -> None:
    app = App()

    async def token(x_token: Annotated[str, Header()]) -> str:
        return x_token

    def page(page: int = 1, size: Annotated[int, Query(le=100)] = 10) -> tuple[int, int]:
        return page, size

    async def user(token: Annotated[str, Depends(token)], item_id: int) -> str:
        return f"{token}:{item_id}"

    @app.post("/items/{item_id}")
    async def create(
        item: Item,
        who: Annotated[str, Depends(user)],
        paging: tuple[int, int] = Depends(page),
    ) -> dict[str, Any]:
        return {"who": who, "paging": paging, "item": item.name}

    client = serve(app)
    response = client.post("/items/7?page=2", json={"name": "pen"}, headers={"x-token": "secret"})
    assert response.status_code == 200
    assert response.json() == {"who": "secret:7", "paging": [2, 10], "item": "pen"}


def test_one_422_names_every_bad_value_of_the_tree_and_no_dependency_runs(
    serve: ClientFactory,
) -> None:
    app = App()
    called: list[str] = []

    async def token(x_token: Annotated[str, Header()]) -> str:
        called.append("token")
        return x_token

    async def limits(size: Annotated[int, Query(le=100)] = 10) -> int:
        called.append("limits")
        return size

    @app.post("/items")
    async def create(
        item: Item, t: str = Depends(token), size: int = Depends(limits)
    ) -> dict[str, Any]:
        return {}

    response = serve(app).post("/items?size=500", json={"nom": "pen"})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "missing",
                "loc": ["header", "x-token"],
                "msg": "Field required",
                "input": None,
            },
            {
                "type": "less_than_equal",
                "loc": ["query", "size"],
                "msg": "Input should be less than or equal to 100",
                "input": "500",
                "ctx": {"le": 100},
            },
            {
                "type": "missing",
                "loc": ["body", "name"],
                "msg": "Field required",
                "input": {"nom": "pen"},
            },
        ]
    }
    assert called == []


def test_a_dependency_runs_once_per_request_unless_use_cache_is_false(
    serve: ClientFactory,
) -> None:
    app = App()
    calls: list[str] = []

    async def counted() -> int:
        calls.append("counted")
        return len(calls)

    async def first(value: int = Depends(counted)) -> int:
        return value

    async def second(value: int = Depends(counted)) -> int:
        return value

    @app.get("/cached")
    async def cached(a: int = Depends(first), b: int = Depends(second)) -> list[int]:
        return [a, b]

    @app.get("/fresh")
    async def fresh(
        a: int = Depends(counted), b: int = Depends(counted, use_cache=False)
    ) -> list[int]:
        return [a, b]

    client = serve(app)
    assert client.get("/cached").json() == [1, 1]
    calls.clear()
    assert client.get("/cached").json() == [1, 1]  # cached per request, not across requests
    calls.clear()
    assert client.get("/fresh").json() == [1, 2]


def test_a_cached_dependency_asked_for_again_is_not_solved_again(serve: ClientFactory) -> None:
    """FastAPI's: the second time, its cached value is taken and nothing under it runs, not
    even a dependency under it that is not cached itself."""
    app = App()
    calls: list[str] = []

    async def fresh() -> str:
        calls.append("fresh")
        return "f"

    async def shared(value: str = Depends(fresh, use_cache=False)) -> str:
        calls.append("shared")
        return value + "s"

    async def first(value: str = Depends(shared)) -> str:
        return value + "1"

    @app.get("/twice")
    async def twice(a: str = Depends(first), b: str = Depends(shared)) -> list[str]:
        return [a, b]

    @app.get("/listed", dependencies=[Depends(first), Depends(shared)])
    async def listed() -> dict[str, str]:
        return {"listed": "yes"}

    client = serve(app)
    response = client.get("/twice")
    assert response.status_code == 200
    assert response.json() == ["fs1", "fs"]
    assert calls == ["fresh", "shared"]
    calls.clear()
    response = client.get("/listed")  # asked again for no argument
    assert response.status_code == 200
    assert response.json() == {"listed": "yes"}
    assert calls == ["fresh", "shared"]


def test_a_bad_value_stops_only_the_dependencies_above_it(serve: ClientFactory) -> None:
    """As FastAPI's solver: the chain over the bad header is not called; a dependency beside
    it is, and one 422 answers."""
    app = App()
    calls: list[str] = []

    async def token(x_token: Annotated[str, Header()]) -> str:
        calls.append("token")
        return x_token

    async def session(value: str = Depends(token)) -> str:
        calls.append("session")
        return value

    async def beside() -> str:
        calls.append("beside")
        return "b"

    @app.get("/chain")
    async def chain(user: str = Depends(session), other: str = Depends(beside)) -> str:
        calls.append("handler")
        return user + other

    response = serve(app).get("/chain")
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "missing",
                "loc": ["header", "x-token"],
                "msg": "Field required",
                "input": None,
            }
        ]
    }
    assert calls == ["beside"]


def test_yield_cleanup_runs_after_the_response_in_reverse_order(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()
    events: list[str] = []

    async def outer() -> AsyncIterator[str]:
        events.append("outer setup")
        yield "outer"
        events.append("outer cleanup")

    def inner(value: str = Depends(outer)) -> Iterator[str]:
        events.append("inner setup")
        yield value + "+inner"
        events.append("inner cleanup")

    @app.get("/")
    async def handler(value: str = Depends(inner), tasks: BackgroundTasks = None) -> str:  # type: ignore[assignment]
        events.append("handler")
        tasks.add_task(events.append, "background task")
        return value

    client = serve(app)
    with caplog.at_level(logging.ERROR, logger="hasten.error"):
        assert client.get("/").json() == "outer+inner"
    assert caplog.records == []
    assert events == [
        "outer setup",
        "inner setup",
        "handler",
        "background task",
        "inner cleanup",
        "outer cleanup",
    ]


def test_a_function_scoped_yield_ends_when_the_handler_returns(serve: ClientFactory) -> None:
    """FastAPI's ``scope="function"``: its code after ``yield`` runs as the handler returns,
    before the response and the request-scoped ones; a handler's error is thrown into it."""
    app = App()
    events: list[str] = []

    async def per_request() -> AsyncIterator[str]:
        yield "r"
        events.append("request cleanup")

    async def per_call() -> AsyncIterator[str]:
        try:
            yield "f"
        except ValueError:
            events.append("function saw the error")
            raise
        events.append("function cleanup")

    @app.get("/{fail}")
    async def handler(
        fail: bool,
        r: str = Depends(per_request),
        f: str = Depends(per_call, scope="function"),
        tasks: BackgroundTasks = None,  # type: ignore[assignment]
    ) -> dict[str, str]:
        events.append("handler")
        tasks.add_task(events.append, "background task")
        if fail:
            raise ValueError("failed")
        return {"r": r, "f": f}

    client = serve(app, raise_server_exceptions=False)
    response = client.get("/false")
    assert response.status_code == 200
    assert response.json() == {"r": "r", "f": "f"}
    assert events == ["handler", "function cleanup", "background task", "request cleanup"]
    events.clear()
    response = client.get("/true")
    assert response.status_code == 500
    assert response.text == "Internal Server Error"
    assert events == ["handler", "function saw the error"]


def test_a_handler_error_is_thrown_into_yield_dependencies_before_the_error_response(
    serve: ClientFactory,
) -> None:
    app = App()
    seen: list[str] = []

    async def transaction() -> AsyncIterator[str]:
        try:
            yield "tx"
        except Exception as exc:
            seen.append(f"rollback after {exc!r}")
            raise
        else:
            seen.append("commit")

    def session() -> Iterator[str]:
        try:
            yield "session"
        except KeyError as exc:
            seen.append("session saw KeyError")
            raise HTTPError(409, "Conflict") from exc
        finally:
            seen.append("session closed")

    @app.get("/fails")
    async def fails(tx: str = Depends(transaction), db: str = Depends(session)) -> str:
        raise KeyError("duplicate")

    @app.get("/ok")
    async def ok(tx: str = Depends(transaction)) -> str:
        return tx

    client = serve(app)
    response = client.get("/fails")
    # session (last in) turned the KeyError into a 409, which transaction then saw.
    assert (response.status_code, response.json()) == (409, {"detail": "Conflict"})
    assert seen == [
        "session saw KeyError",
        "session closed",
        "rollback after HTTPError(409, 'Conflict')",
    ]
    seen.clear()
    assert client.get("/ok").json() == "tx"
    assert seen == ["commit"]


def test_a_dependency_error_unwinds_the_dependencies_before_it(serve: ClientFactory) -> None:
    app = App()
    seen: list[str] = []

    async def opened() -> AsyncIterator[None]:
        yield
        seen.append("never")

    async def opened_and_closed() -> AsyncIterator[None]:
        try:
            yield
        finally:
            seen.append("closed")

    async def refuse(_: None = Depends(opened_and_closed)) -> None:
        raise HTTPError(401, "Not authenticated")

    @app.get("/")
    async def handler(_: None = Depends(refuse)) -> str:
        return "unreachable"

    response = serve(app).get("/")
    assert (response.status_code, response.json()) == (401, {"detail": "Not authenticated"})
    assert seen == ["closed"]


def test_a_failing_cleanup_is_logged_and_the_response_stands(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    async def breaks() -> AsyncIterator[int]:
        yield 1
        raise RuntimeError("cleanup broke")

    async def twice() -> AsyncIterator[int]:
        yield 1
        yield 2

    @app.get("/")
    async def handler(a: int = Depends(breaks), b: int = Depends(twice)) -> int:
        return a + b

    with caplog.at_level(logging.ERROR, logger="hasten.error"):
        assert serve(app, raise_server_exceptions=False).get("/").json() == 2
    with pytest.raises(RuntimeError, match="cleanup broke"):  # in a test, as Starlette's
        serve(app).get("/")
    messages = [record.getMessage() for record in caplog.records]
    assert any("yielded more than once" in message and "twice" in message for message in messages)
    assert any("cleanup of dependency" in message and "breaks" in message for message in messages)


def test_a_failed_background_task_leaves_no_dependency_unclosed(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    # The task fails first, then the inner dependency's cleanup: its failure is still thrown
    # into the outer one, which ends (closes its resource), and both failures are logged.
    app = App()
    seen: list[str] = []

    async def outer() -> AsyncIterator[int]:
        try:
            yield 1
        finally:
            seen.append("outer closed")

    async def inner(_: int = Depends(outer)) -> AsyncIterator[int]:
        yield 2
        raise RuntimeError("inner cleanup broke")

    def task() -> None:
        raise ValueError("task broke")

    @app.get("/")
    async def handler(background: BackgroundTasks, value: int = Depends(inner)) -> int:
        background.add_task(task)
        return value

    with caplog.at_level(logging.ERROR, logger="hasten.error"):
        response = serve(app, raise_server_exceptions=False).get("/")
    assert (response.status_code, response.json()) == (200, 2)
    assert seen == ["outer closed"]
    messages = [record.getMessage() for record in caplog.records]
    assert any("cleanup of dependency" in message and "inner" in message for message in messages)


def test_a_dependency_that_does_not_yield_is_a_500(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    async def empty() -> AsyncIterator[int]:
        nothing: list[int] = []
        for value in nothing:
            yield value

    @app.get("/")
    async def handler(value: int = Depends(empty)) -> int:
        return value

    with caplog.at_level(logging.ERROR, logger="hasten.error"):
        response = serve(app, raise_server_exceptions=False).get("/")
    assert response.status_code == 500
    assert "did not yield" in caplog.text


def test_sync_yield_dependencies_do_not_hold_a_thread_across_the_handler() -> None:
    # FastAPI #3205: with one thread, a sync generator dependency whose thread waited for the
    # handler would deadlock a sync handler. Setup and teardown are separate thread tasks.
    app = App(max_threads=1)
    threads: list[str] = []

    def resource() -> Iterator[str]:
        threads.append(threading.current_thread().name)
        yield "resource"
        threads.append(threading.current_thread().name)

    @app.get("/")
    def handler(value: str = Depends(resource)) -> str:
        threads.append(threading.current_thread().name)
        return value

    interfaces: tuple[Interface, ...] = ("rsgi", "asgi")
    for interface in interfaces:
        threads.clear()
        with TestClient(app, interface=interface) as client:
            assert client.get("/").json() == "resource"
        assert len(threads) == 3
        assert all(name.startswith("hasten-thread") for name in threads)


def test_sync_dependencies_run_on_the_thread_pool(serve: ClientFactory) -> None:
    app = App()

    def where() -> str:
        return threading.current_thread().name

    @app.get("/")
    async def handler(thread: str = Depends(where)) -> str:
        return thread

    assert serve(app).get("/").json().startswith("hasten-thread")


def test_a_class_is_a_dependency_and_depends_without_a_callable_calls_the_annotation(
    serve: ClientFactory,
) -> None:
    app = App()

    class Paging:
        def __init__(self, page: int = 1, size: int = 10) -> None:
            self.page = page
            self.size = size

    @app.get("/")
    async def handler(paging: Annotated[Paging, Depends()]) -> list[int]:
        return [paging.page, paging.size]

    assert serve(app).get("/?page=3").json() == [3, 10]


def test_a_dependency_can_take_the_request_and_path_parameters(serve: ClientFactory) -> None:
    app = App()

    async def describe(request: Request, user_id: int) -> str:
        return f"{request.method} {user_id}"

    @app.get("/users/{user_id}")
    async def handler(text: str = Depends(describe)) -> str:
        return text

    assert serve(app).get("/users/5").json() == "GET 5"


def test_app_scoped_dependencies_are_created_once_and_closed_at_shutdown(
    serve: ClientFactory,
) -> None:
    events: list[str] = []

    async def settings() -> dict[str, str]:
        events.append("settings")
        return {"dsn": "db://"}

    async def pool(
        config: Annotated[dict[str, str], Depends(settings, scope="app")],
    ) -> AsyncIterator[list[str]]:
        events.append(f"pool open {config['dsn']}")
        yield ["connection"]
        events.append("pool closed")

    app = App()

    @app.get("/")
    async def handler(
        connections: Annotated[list[str], Depends(pool, scope="app")],
    ) -> list[str]:
        return connections

    client = serve(app)
    for _ in range(3):
        assert client.get("/").json() == ["connection"]
    assert events == ["settings", "pool open db://"]
    client.close()
    assert events == ["settings", "pool open db://", "pool closed"]


def test_an_app_dependency_taking_request_values_is_refused_at_registration() -> None:
    app = App()

    async def per_user(x_user: Annotated[str, Header()]) -> str:
        return x_user

    async def handler(value: str = Depends(per_user, scope="app")) -> str:
        return value

    with pytest.raises(TypeError, match=r"per_user is an app dependency .* cannot take 'x_user'"):
        app.add_api_route("/", handler)


def test_overrides_replace_dependencies_anywhere_in_the_tree(serve: ClientFactory) -> None:
    app = App()

    async def database() -> str:
        return "real"

    async def repository(db: str = Depends(database)) -> str:
        return f"repository on {db}"

    @app.get("/")
    async def handler(repo: str = Depends(repository)) -> str:
        return repo

    def fake_database(x_test: Annotated[str, Header()] = "fake") -> str:
        return x_test

    app.dependency_overrides[database] = fake_database
    client = serve(app)
    assert client.get("/").json() == "repository on fake"
    assert client.get("/", headers={"x-test": "other"}).json() == "repository on other"
    client.close()
    app.dependency_overrides.clear()
    assert serve(app).get("/").json() == "repository on real"


def test_overrides_changed_while_the_app_runs_apply_from_the_next_request(
    serve: ClientFactory,
) -> None:
    app = App()

    async def database() -> str:
        return "real"

    @app.get("/")
    async def handler(db: str = Depends(database)) -> str:
        return db

    async def fake() -> str:
        return "fake"

    client = serve(app)
    assert client.get("/").json() == "real"
    app.dependency_overrides[database] = fake
    response = client.get("/")
    assert (response.status_code, response.json()) == (200, "fake")
    del app.dependency_overrides[database]
    assert client.get("/").json() == "real"
    app.dependency_overrides = {database: fake}
    assert client.get("/").json() == "fake"
    app.dependency_overrides = None  # as FastAPI's tutorial does
    assert client.get("/").json() == "real"


def test_app_router_include_and_route_dependencies_run_in_that_order(
    serve: ClientFactory,
) -> None:
    order: list[str] = []

    def named(name: str) -> Any:
        async def dependency() -> None:
            order.append(name)

        dependency.__qualname__ = name
        return dependency

    async def authorised(x_key: Annotated[str, Header()]) -> None:
        if x_key != "ok":
            raise HTTPError(403, "Forbidden")

    app = App(dependencies=[Depends(named("app"))])
    router = Router(prefix="/api", dependencies=[Depends(named("router")), Depends(authorised)])

    @router.get("/items", dependencies=[Depends(named("route"))])
    async def items(value: None = Depends(named("parameter"))) -> str:
        order.append("handler")
        return "items"

    app.include(router, dependencies=[Depends(named("include"))])
    client = serve(app)
    assert client.get("/api/items", headers={"x-key": "ok"}).json() == "items"
    assert order == ["app", "include", "router", "route", "parameter", "handler"]
    order.clear()
    response = client.get("/api/items", headers={"x-key": "no"})
    assert (response.status_code, response.json()) == (403, {"detail": "Forbidden"})
    response = client.get("/api/items")
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["header", "x-key"]


def test_request_parameters_flatten_the_tree_for_openapi() -> None:
    app = App()

    async def token(authorization: Annotated[str, Header()]) -> str:
        return authorization

    async def paging(page: int = 1, token: str = Depends(token)) -> int:
        return page

    @app.get("/items/{item_id}")
    async def items(item_id: int, page: int = Depends(paging), q: str = "") -> None: ...

    (route,) = app.routes
    found = [(item.source, item.alias) for item in route.request_parameters]
    assert found == [
        ("path", "item_id"),
        ("query", "page"),
        ("header", "authorization"),
        ("query", "q"),
    ]


def test_registration_refuses_what_no_request_can_fill() -> None:
    app = App()

    async def takes_anything(**kwargs: Any) -> None: ...

    async def handler(value: None = Depends(takes_anything)) -> None: ...

    with pytest.raises(TypeError, match=r"\*args and \*\*kwargs"):
        app.add_api_route("/", handler)

    with pytest.raises(TypeError, match="dependencies= takes Depends"):
        app.add_api_route("/", handler, dependencies=[takes_anything])

    with pytest.raises(TypeError, match="Depends\\(\\) without a callable"):

        @app.get("/none")
        async def no_callable(value: Any = Depends()) -> None: ...

    with pytest.raises(ValueError, match="scope must be 'function', 'request' or 'app'"):
        Depends(takes_anything, scope="session")  # type: ignore[arg-type]


def test_a_dependency_cycle_is_refused_at_startup() -> None:
    app = App()

    async def first(value: Any = None) -> None: ...

    async def second(value: None = Depends(first)) -> None: ...

    first.__annotations__["value"] = Annotated[Any, Depends(second)]

    @app.get("/")
    async def handler(value: None = Depends(second)) -> None: ...

    with pytest.raises(TypeError, match="Dependency cycle"):
        asyncio.run(app.startup())


def test_shutdown_waits_for_background_tasks_and_cleanups() -> None:
    app = App()
    done: list[str] = []

    async def slow_cleanup() -> AsyncIterator[None]:
        yield
        await asyncio.sleep(0.2)
        done.append("cleanup")

    @app.get("/")
    async def handler(_: None = Depends(slow_cleanup)) -> str:
        return "ok"

    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        sent.append(message)

    async def scenario() -> None:
        await app.startup()
        scope = {"type": "http", "method": "GET", "path": "/", "query_string": b"", "headers": []}
        request = asyncio.ensure_future(app(scope, receive, send))
        await asyncio.sleep(0.05)
        # The client has it.
        assert sent[-1] == {"type": "http.response.body", "body": b'"ok"'}
        assert app.stats()["in_flight"] == 1  # while the cleanup still runs
        await app.shutdown()
        assert done == ["cleanup"]
        await request

    asyncio.run(scenario())


def swallowing_app(events: list[str]) -> App:
    app = App()

    async def outer() -> AsyncIterator[str]:
        yield "outer"
        events.append("outer ended")

    def swallows(up: str = Depends(outer)) -> Iterator[str]:
        try:
            yield "Rick"
        except LookupError:
            events.append("swallowed")

    @app.get("/items/{item_id}")
    def get_item(item_id: str, username: str = Depends(swallows)) -> str:
        if item_id == "portal-gun":
            raise LookupError(f"too dangerous for {username}")
        return item_id

    return app


def test_a_yield_dependency_that_swallows_the_error_is_a_fastapi_error(
    serve: ClientFactory,
) -> None:
    events: list[str] = []
    client = serve(swallowing_app(events), raise_server_exceptions=False)
    response = client.get("/items/portal-gun")
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    assert events == ["swallowed", "outer ended"]
    with pytest.raises(FastAPIError, match="a dependency with yield has a block with a bare"):
        serve(swallowing_app(events)).get("/items/portal-gun")
    assert client.get("/items/plumbus").json() == "plumbus"


def test_uploaded_files_stay_open_for_the_error_response_after_a_swallowed_error(
    serve: ClientFactory,
) -> None:
    """A yield dependency that swallows the error ends the generators before it at once; the
    request's files are closed only after the error response is sent, as after any other."""
    app = App()
    swallowed: list[str] = []

    async def swallows() -> AsyncIterator[None]:
        try:
            yield
        except RuntimeError as exc:
            swallowed.append(str(exc))

    @app.post("/upload", dependencies=[Depends(swallows)])
    async def upload(file: UploadFile) -> None:
        raise RuntimeError("failed after the upload")

    @app.exception_handler(FastAPIError)
    async def read_the_file(request: Request, exc: FastAPIError) -> PlainTextResponse:
        form = await request.form()
        file = form["file"]
        assert isinstance(file, UploadFile)
        return PlainTextResponse(await file.read(), status_code=500)

    client = serve(app, raise_server_exceptions=False)
    response = client.post("/upload", files={"file": ("a.txt", b"hello")})
    assert (response.status_code, response.text) == (500, "hello")
    assert swallowed == ["failed after the upload"]


def test_a_cancelled_unwind_still_leaves_the_files_to_close_after_the_response() -> None:
    """The files are set aside while the generators before a swallowing one end; a
    cancellation there puts them back, for the serve step's ``after_response``."""
    closed: list[str] = []

    class Files:
        async def close(self) -> None:
            closed.append("files")

    async def cancelled_after_yield() -> AsyncIterator[None]:
        yield
        raise asyncio.CancelledError

    async def swallows() -> AsyncIterator[None]:
        try:
            yield
        except RuntimeError:
            closed.append("swallowed")

    async def scenario() -> None:
        request: Any = SimpleNamespace(_cleanup=None, context=SimpleNamespace(threads=None))
        cleanup = cleanup_of(request)
        cleanup.form = Files()
        for generator in (cancelled_after_yield(), swallows()):
            await generator.__anext__()
            cleanup.exits.append((generator, True, "dependency"))
        with pytest.raises(asyncio.CancelledError):
            await cleanup.unwind(RuntimeError("failed"))
        assert closed == ["swallowed"]
        await cleanup.after_response()

    asyncio.run(scenario())
    assert closed == ["swallowed", "files"]


def test_a_dependency_taking_the_connection_serves_http_and_websocket_routes(
    serve: ClientFactory,
) -> None:
    app = App()
    app.state.value = 42

    async def value_of(connection: HTTPConnection) -> list[Any]:
        return [connection.app.state.value, type(connection).__name__.endswith("WebSocket")]

    @app.get("/http")
    async def over_http(value: Annotated[list[Any], Depends(value_of)]) -> list[Any]:
        return value

    @app.websocket("/ws")
    async def over_ws(websocket: WebSocket, value: list[Any] = Depends(value_of)) -> None:
        await websocket.accept()
        await websocket.send_json(value)
        await websocket.close()

    client = serve(app)
    assert client.get("/http").json() == [42, False]
    with client.websocket_connect("/ws") as websocket:
        assert websocket.receive_json() == [42, True]
    assert HTTPConnection is Connection


@pytest.mark.parametrize("kind", ["async", "sync", "async_yield", "sync_yield"])
def test_max_concurrency_limits_one_declaration_across_routes(
    serve: ClientFactory, kind: str
) -> None:
    counts = {"active": 0, "peak": 0, "calls": 0}
    lock, release = threading.Lock(), threading.Event()

    def enter() -> None:
        with lock:
            counts["active"] += 1
            counts["calls"] += 1
            counts["peak"] = max(counts["peak"], counts["active"])

    def leave() -> None:
        with lock:
            counts["active"] -= 1

    async def wait_async() -> None:
        while not release.is_set():
            await asyncio.sleep(0.005)

    async def asynchronous() -> str:
        enter()
        try:
            await wait_async()
            return "ok"
        finally:
            leave()

    def synchronous() -> str:
        enter()
        try:
            release.wait(5)
            return "ok"
        finally:
            leave()

    async def async_generator() -> AsyncIterator[str]:
        enter()
        try:
            await wait_async()
            yield "ok"
        finally:
            leave()

    def sync_generator() -> Iterator[str]:
        enter()
        try:
            release.wait(5)
            yield "ok"
        finally:
            leave()

    dependency = {
        "async": asynchronous,
        "sync": synchronous,
        "async_yield": async_generator,
        "sync_yield": sync_generator,
    }[kind]
    declaration = Depends(dependency, max_concurrency=2)
    app = App()

    @app.get("/one")
    @app.get("/two")
    async def endpoint(value: Annotated[str, declaration]) -> list[str]:
        return [value]

    client = serve(app)
    with ThreadPoolExecutor(5) as senders:
        sent = [senders.submit(client.get, f"/{'one' if n % 2 else 'two'}") for n in range(5)]
        deadline = time.monotonic() + 5
        while counts["calls"] < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(0.2)  # the three others wait for the limit, not for anything else
        assert (counts["active"], counts["calls"]) == (2, 2)
        release.set()
        assert [future.result().json() for future in sent] == [["ok"]] * 5
    assert (counts["calls"], counts["peak"], counts["active"]) == (5, 2, 0)


@pytest.mark.parametrize("kind", ["sync", "sync_yield"])
def test_a_sync_dependency_under_a_limit_runs_on_anyios_worker_threads(
    serve: ClientFactory, kind: str
) -> None:
    """As FastAPI runs it: its slot taken first, then one of AnyIO's worker threads (a
    token of AnyIO's default limiter), which a cancelled request waits for while the call
    runs. Before, it ran on the app's threads, which AnyIO's limiter does not count."""

    def where() -> list[object]:
        limiter = anyio.from_thread.run_sync(anyio.to_thread.current_default_thread_limiter)
        return [threading.current_thread().name, limiter.borrowed_tokens]

    def generated() -> Iterator[list[object]]:
        yield where()

    app = App()
    declaration = Depends(where if kind == "sync" else generated, max_concurrency=1)

    @app.get("/")
    async def endpoint(value: Annotated[list[object], declaration]) -> list[object]:
        return value

    assert serve(app).get("/").json() == ["AnyIO worker thread", 1]


def test_max_concurrency_is_a_positive_integer_of_its_declaration() -> None:
    wrongs: list[Any] = [0, -1, True, 1.5, "2"]
    for wrong in wrongs:
        with pytest.raises(ValueError, match="max_concurrency must be a positive integer or None"):
            Depends(max_concurrency=wrong)
    first = Depends(max_concurrency=2)
    # Two declarations never share a limit, nor compare equal; a copy keeps its limit's object.
    assert first != Depends(max_concurrency=2)
    assert dataclasses.replace(first, use_cache=False)._concurrency is first._concurrency
    changed = dataclasses.replace(first, max_concurrency=3)._concurrency
    assert changed is not None
    assert changed is not first._concurrency
    assert changed.max_concurrency == 3
    assert dataclasses.replace(first, max_concurrency=None)._concurrency is None


@pytest.mark.parametrize("scope", ["function", "request"])
def test_yield_cleanup_runs_to_its_end_in_a_cancelled_request(scope: str) -> None:
    # An AnyIO cancel scope around the ASGI call (a test's, or a Starlette middleware's task
    # group) cancels every await again: the cleanup is shielded, as FastAPI's.
    events: list[str] = []
    app = App()

    async def dependency() -> AsyncIterator[None]:
        events.append("enter")
        try:
            yield
        finally:
            await anyio.sleep(0)
            await anyio.sleep(0)
            events.append("cleanup end")

    @app.get("/")
    async def endpoint(_: Annotated[None, Depends(dependency, scope=scope)]) -> None:
        await anyio.sleep_forever()

    async def cancelled_request() -> None:
        async with app.running():
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                with anyio.move_on_after(0.1) as cancelled:
                    await client.get("/")
        assert cancelled.cancelled_caught

    anyio.run(cancelled_request)
    assert events == ["enter", "cleanup end"]


@pytest.mark.parametrize("scope", ["function", "request"])
def test_a_sync_cleanup_on_a_thread_keeps_a_handlers_response(scope: str) -> None:
    # The handler cancels the scope around the call and returns: the exit on a thread is no
    # place for the cancellation (the thread cannot be stopped), so the response goes out,
    # as FastAPI's shielded exit sends it; the cancellation is for the next await.
    events: list[str] = []
    app = App()

    def dependency() -> Iterator[int]:
        try:
            yield 42
        finally:
            events.append("cleanup")

    @app.get("/")
    async def endpoint(value: Annotated[int, Depends(dependency, scope=scope)]) -> dict[str, int]:
        scopes[0].cancel()
        return {"value": value}

    scopes: list[anyio.CancelScope] = []

    async def request() -> httpx.Response:
        async with app.running():
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
                with anyio.CancelScope() as cancel:
                    scopes.append(cancel)
                    return await client.get("/")
        raise AssertionError("cancelled")

    response = anyio.run(request)
    assert (response.status_code, response.json()) == (200, {"value": 42})
    assert events == ["cleanup"]


def _wrapped_sync(func: Any) -> Any:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


def _wrapped_async(func: Any) -> Any:
    if inspect.isgeneratorfunction(func):

        @functools.wraps(func)
        async def generate(*args: Any, **kwargs: Any) -> Any:
            for item in func(*args, **kwargs):
                yield item

        return generate

    @functools.wraps(func)
    async def wrapper(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    return wrapper


def test_a_wrapper_is_called_as_what_it_is(serve: ClientFactory) -> None:
    # FastAPI's rule: an async wrapper of a sync function is awaited, a sync wrapper of an
    # async function or generator is called and its result awaited or iterated.
    def plain() -> str:
        return "plain"

    async def coroutine() -> str:
        return "coroutine"

    def generator() -> Iterator[str]:
        yield "generator"

    async def async_generator() -> AsyncIterator[str]:
        yield "async generator"

    app = App()
    dependencies = {
        "async-of-sync": _wrapped_async(plain),
        "async-of-generator": _wrapped_async(generator),
        "sync-of-async": _wrapped_sync(coroutine),
        "sync-of-generator": _wrapped_sync(generator),
        "sync-of-async-generator": _wrapped_sync(async_generator),
    }
    for path, dependency in dependencies.items():

        async def endpoint(value: str = Depends(dependency)) -> list[str]:
            return [value]

        app.add_api_route(f"/dependency/{path}", endpoint)

    @app.get("/endpoint")
    @_wrapped_async
    def wrapped_endpoint() -> list[str]:
        return ["endpoint"]

    client = serve(app)
    found = {path: client.get(f"/dependency/{path}").json() for path in dependencies}
    assert found == {
        "async-of-sync": ["plain"],
        "async-of-generator": ["generator"],
        "sync-of-async": ["coroutine"],
        "sync-of-generator": ["generator"],
        "sync-of-async-generator": ["async generator"],
    }
    assert client.get("/endpoint").json() == ["endpoint"]


def test_one_generator_in_two_scopes_is_two_calls(serve: ClientFactory) -> None:
    opened: list[list[bool]] = []

    def session() -> Iterator[list[bool]]:
        state = [True]
        opened.append(state)
        yield state
        state[0] = False

    app = App()

    @app.get("/")
    def both(
        function: Annotated[list[bool], Depends(session, scope="function")],
        request: Annotated[list[bool], Depends(session, scope="request")],
        default: Annotated[list[bool], Depends(session)],
    ) -> StreamingResponse:
        # The request-scoped one is the default one: cached once, closed after the response.
        assert request is default

        def body() -> Iterator[str]:  # read as it is sent: after the function-scoped exit
            yield json.dumps([function[0], request[0]])

        return StreamingResponse(body())

    assert serve(app).get("/").json() == [False, True]
    assert len(opened) == 2


def test_a_request_scoped_yield_dependency_cannot_take_a_function_scoped_one() -> None:
    def inner() -> Iterator[str]:
        yield "inner"

    def outer(value: Annotated[str, Depends(inner, scope="function")]) -> Iterator[str]:
        yield value

    def plain(value: Annotated[str, Depends(inner, scope="function")]) -> str:
        return value

    app = App()
    message = (
        'The dependency "outer" has a scope of "request", it cannot depend on dependencies '
        'with scope "function".'
    )
    with pytest.raises(DependencyScopeError, match=re.escape(message)):
        app.add_api_route("/", lambda value=Depends(outer): value)
    with pytest.raises(DependencyScopeError):
        app.add_api_websocket_route("/ws", _socket_taking(outer))
    app.add_api_route("/plain", lambda value=Depends(plain): value)  # not a generator: allowed
    app.add_api_route("/function", lambda value=Depends(outer, scope="function"): value)


def _socket_taking(dependency: Any) -> Any:
    async def socket(websocket: WebSocket, value: str = Depends(dependency)) -> None:
        await websocket.close()

    return socket
