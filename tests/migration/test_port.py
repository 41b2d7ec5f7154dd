"""Port by changing imports: ``fastapi_app.py`` served by FastAPI, and its twin (the same source
with only the import lines rewritten) served by hasten through both adapters, answer the same
requests with the same statuses and JSON bodies; where they must differ, the test says how."""

from __future__ import annotations

import asyncio
import http
import threading
import types
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Annotated, Any

import httpx
import pytest

from hasten import (
    App,
    Depends,
    EventSourceResponse,
    FileResponse,
    Header,
    HTMLResponse,
    HTTPError,
    HTTPException,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Request,
    Response,
    Router,
    StreamingResponse,
    status,
)
from hasten._cli.servers import Interface
from hasten.concurrency import run_in_threadpool
from hasten.testing import TestClient
from hasten.types import CallNext
from tests.conftest import ClientFactory
from tests.migration import fastapi_app

SOURCE = Path(fastapi_app.__file__).read_text()
# The whole port: each FastAPI import statement, and the hasten one that replaces it.
IMPORTS = {
    """from fastapi import (
    APIRouter,
    BackgroundTasks,
    Depends,
    FastAPI,
    Header,
    HTTPException,
    Query,
    Request,
    status,
)""": """from hasten import (
    App as FastAPI,
    BackgroundTasks,
    Depends,
    Header,
    HTTPException,
    Query,
    Request,
    Router as APIRouter,
    status,
)""",
    "from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response": (
        "from hasten import HTMLResponse, JSONResponse, RedirectResponse, Response"
    ),
}
KEY = {"x-api-key": "secret"}
# The same requests for both; each answer is compared whole (status and JSON body).
Call = tuple[str, str, dict[str, str], Any]
SAME: list[Call] = [
    ("GET", "/todos", {}, None),
    ("GET", "/todos?done=false&limit=1", {}, None),
    ("GET", "/todos/1", {}, None),
    ("GET", "/todos/99", {}, None),
    ("GET", "/nowhere", {}, None),
    ("POST", "/todos", {"x-api-key": "wrong"}, {"title": "Write the guide"}),
    ("POST", "/todos", KEY, {"title": "Write the guide", "done": True}),
    ("PUT", "/todos/1/lock", {}, None),
    ("GET", "/stats", {}, None),
    ("GET", "/v1/labels", {}, None),
    ("POST", "/v1/labels?name=work", {}, None),
    ("POST", "/v1/labels?name=work", {}, None),
]


def twin_source() -> str:
    """``fastapi_app.py`` with its FastAPI import statements replaced, and nothing else."""
    ported = SOURCE
    for fastapi_import, hasten_import in IMPORTS.items():
        assert SOURCE.count(fastapi_import) == 1
        ported = ported.replace(fastapi_import, hasten_import)
    return ported


def load_twin() -> types.ModuleType:
    module = types.ModuleType("tests.migration.hasten_twin")
    module.__file__ = "<hasten twin of fastapi_app.py>"
    exec(compile(twin_source(), module.__file__, "exec"), module.__dict__)
    return module


def fresh(module: Any) -> None:
    """The module's data as it starts: one todo, no log, one label."""
    module.todos.clear()
    module.todos[1] = module.Todo(id=1, title="Port the app")
    module.log.clear()
    module.labels[:] = ["home"]


Answer = tuple[int, Any, str | None]


def answer(response: httpx.Response) -> Answer:
    """What is compared of a response: status, JSON body, and the middleware's header."""
    return response.status_code, response.json(), response.headers.get("x-app")


def answers(client: httpx.Client, module: Any) -> list[Answer]:
    fresh(module)
    found = [
        answer(client.request(method, path, headers=headers, json=body))
        for method, path, headers, body in SAME
    ]
    found.append((200, list(module.log), None))  # background tasks ran, after their responses
    return found


def ask_fastapi(calls: Sequence[Call]) -> list[httpx.Response]:
    """Each call's response from the FastAPI app (over httpx's ASGI transport: Starlette's
    TestClient now warns unless httpx2 is installed)."""

    async def ask() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=fastapi_app.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return [
                await client.request(method, path, headers=headers, json=body)
                for method, path, headers, body in calls
            ]

    return asyncio.run(ask())


@pytest.fixture(scope="module")
def fastapi_answers() -> list[Answer]:
    fresh(fastapi_app)
    found = [answer(response) for response in ask_fastapi(SAME)]
    return [*found, (200, list(fastapi_app.log), None)]


@pytest.fixture
def twin(interface: Interface) -> Iterator[tuple[TestClient, Any]]:
    module = load_twin()
    assert isinstance(module.app, App)
    with TestClient(module.app, interface=interface) as client:
        yield client, module


def test_the_twin_differs_only_in_its_import_lines() -> None:
    for fastapi_import, hasten_import in IMPORTS.items():
        assert fastapi_import.startswith("from fastapi")
        assert hasten_import.startswith("from hasten import ")
    assert "fastapi" not in twin_source().replace("fastapi_app.py", "")


def test_the_same_requests_get_the_same_answers(
    twin: tuple[TestClient, Any], fastapi_answers: list[Answer]
) -> None:
    client, module = twin
    assert answers(client, module) == fastapi_answers
    assert fastapi_answers[3] == (404, {"detail": "Todo 99 not found"}, "todos")
    assert fastapi_answers[4] == (404, {"detail": "Not Found"}, "todos")
    created = {"id": 2, "title": "Write the guide", "done": True}
    assert fastapi_answers[6] == (201, created, "todos")
    assert fastapi_answers[7] == (423, {"detail": "Todo 1 is locked"}, "todos")
    assert fastapi_answers[9:] == [
        (200, ["home"], "todos"),
        (201, ["home", "work"], "todos"),
        (409, {"detail": "Label work exists"}, "todos"),
        (200, ["created 2"], None),
    ]


def test_a_422_is_fastapis_byte_for_byte(twin: tuple[TestClient, Any]) -> None:
    client, _ = twin
    calls: list[Call] = [
        ("GET", "/todos?limit=0", {}, None),
        ("GET", "/todos?limit=x&done=maybe", {}, None),
        ("POST", "/todos", KEY, {"done": "maybe"}),
        ("POST", "/todos", KEY, None),
    ]
    for call, theirs in zip(calls, ask_fastapi(calls), strict=True):
        method, path, headers, body = call
        ours = client.request(method, path, headers=headers, json=body)
        assert (ours.status_code, ours.content) == (theirs.status_code, theirs.content), call
    assert client.get("/todos?limit=0").json() == {
        "detail": [
            {
                "type": "greater_than_equal",
                "loc": ["query", "limit"],
                "msg": "Input should be greater than or equal to 1",
                "input": "0",
                "ctx": {"ge": 1},
            }
        ]
    }


def test_responses_are_fastapis_status_headers_and_body(twin: tuple[TestClient, Any]) -> None:
    """Aliases kept, exclude_unset, a ``response: Response`` parameter's header, cookie and
    status, response_class=, a redirect, a JSON Lines generator: as FastAPI sends them."""
    client, module = twin
    calls: list[Call] = [
        ("GET", "/profiles/ann", {}, None),
        ("GET", "/profiles/new", {}, None),
        ("GET", "/welcome", {}, None),
        ("GET", "/old-todos", {}, None),
        ("GET", "/todos.jsonl", {}, None),
    ]
    fresh(fastapi_app)
    fresh(module)
    compared = ("content-type", "location", "set-cookie", "x-profile")
    for call, theirs in zip(calls, ask_fastapi(calls), strict=True):
        method, path, headers, body = call
        ours = client.request(method, path, headers=headers, json=body, follow_redirects=False)
        assert (ours.status_code, ours.content) == (theirs.status_code, theirs.content), call
        for name in compared:
            assert ours.headers.get(name) == theirs.headers.get(name), (call, name)
    ann = client.get("/profiles/ann")
    assert ann.json() == {"userName": "ann", "bio": "Ported"}
    assert ann.headers["set-cookie"] == "seen=ann; HttpOnly; Path=/; SameSite=lax"
    assert client.get("/profiles/new").status_code == 201
    lines = client.get("/todos.jsonl")
    assert lines.text == '{"id":1,"title":"Port the app","done":false}\n'


# What FastAPI code writes every day and the import-only port above relies on, each through
# both adapters where a request shows it.


def test_status_code_is_the_route_status(serve: ClientFactory) -> None:
    app = App()

    @app.post("/items", status_code=201)
    async def create() -> dict[str, int]:
        return {"id": 1}

    with pytest.raises(TypeError, match=r"status= or status_code=, not both \(201 and 202\)"):
        app.get("/both", status=201, status_code=202)(create)
    response = serve(app).post("/items")
    assert (response.status_code, response.json()) == (201, {"id": 1})


def test_include_router_is_include(serve: ClientFactory) -> None:
    async def key(x_key: Annotated[str, Header()]) -> None:
        if x_key != "k":
            raise HTTPException(401, "Bad key")

    router = Router(prefix="/items")

    @router.get("/{item_id}")
    async def item(item_id: int) -> dict[str, int]:
        return {"id": item_id}

    app = App()
    app.include_router(router, prefix="/v1", tags=["items"], dependencies=[Depends(key)])
    client = serve(app)
    response = client.get("/v1/items/3", headers={"x-key": "k"})
    assert (response.status_code, response.json()) == (200, {"id": 3})
    response = client.get("/v1/items/3", headers={"x-key": "no"})
    assert (response.status_code, response.json()) == (401, {"detail": "Bad key"})
    assert app.openapi()["paths"]["/v1/items/{item_id}"]["get"]["tags"] == ["items"]


def test_http_exception_is_http_error(serve: ClientFactory) -> None:
    assert HTTPException is HTTPError
    exc = HTTPException(status_code=409, detail="Taken", headers={"x-why": "name"})
    assert (exc.status_code, exc.status, exc.detail, exc.headers) == (
        409,
        409,
        "Taken",
        {"x-why": "name"},
    )
    assert HTTPException(404).detail == "Not Found"
    with pytest.raises(TypeError, match=r"status= or status_code=, not both \(404 and 404\)"):
        HTTPError(404, status_code=404)  # type: ignore[call-overload]
    with pytest.raises(TypeError, match="Missing the status"):
        HTTPError()  # type: ignore[call-overload]
    app = App()

    @app.exception_handler(HTTPError)
    async def handled(request: Request, exc: HTTPError) -> JSONResponse:
        return JSONResponse({"status_code": exc.status_code, "detail": exc.detail}, 418)

    @app.get("/taken")
    async def taken() -> None:
        raise HTTPException(status_code=409, detail="Taken")

    response = serve(app).get("/taken")
    assert (response.status_code, response.json()) == (418, {"status_code": 409, "detail": "Taken"})


@pytest.mark.parametrize(
    ("build", "status"),
    [
        (lambda: Response(b"", status_code=204), 204),
        (lambda: JSONResponse({}, status_code=201), 201),
        (lambda: PlainTextResponse("x", status_code=202), 202),
        (lambda: HTMLResponse("<p>", status_code=203), 203),
        (lambda: RedirectResponse("/there", status_code=303), 303),
        (lambda: RedirectResponse("/there"), 307),
        (lambda: StreamingResponse(iter([b"x"]), status_code=206), 206),
        (lambda: FileResponse(__file__, status_code=200), 200),
        (lambda: EventSourceResponse(iter([]), status_code=200), 200),
    ],
)
def test_responses_take_and_show_status_code(build: Callable[[], Response], status: int) -> None:
    response = build()
    assert response.status_code == response.status == status
    response.status_code = 500
    assert response.status == 500


def test_a_response_refuses_both_status_keywords() -> None:
    with pytest.raises(TypeError, match=r"status= or status_code=, not both \(201 and 202\)"):
        JSONResponse({}, 201, status_code=202)
    with pytest.raises(TypeError, match=r"status= or status_code=, not both \(301 and 302\)"):
        RedirectResponse("/", status=301, status_code=302)


def test_a_response_built_with_status_code_is_sent_with_it(serve: ClientFactory) -> None:
    app = App()

    @app.post("/items")
    async def create() -> JSONResponse:
        return JSONResponse({"id": 1}, status_code=201)

    response = serve(app).post("/items")
    assert (response.status_code, response.json()) == (201, {"id": 1})


def test_middleware_http_registers_the_function(serve: ClientFactory) -> None:
    app = App()

    @app.middleware("http")
    async def outer(request: Request, call_next: CallNext) -> Response:
        response = await call_next(request)
        response.headers["x-order"] = "outer"
        return response

    @app.middleware
    async def inner(request: Request, call_next: CallNext) -> Response:
        response = await call_next(request)
        response.headers["x-order"] = "inner"
        return response

    @app.get("/")
    async def home() -> str:
        return "home"

    assert outer.__name__ == "outer"
    response = serve(app).get("/")
    assert (response.status_code, response.json()) == (200, "home")
    assert response.headers["x-order"] == "outer"
    with pytest.raises(ValueError, match="Unknown middleware type 'websocket': only 'http'"):
        app.middleware("websocket")  # type: ignore[call-overload]


def test_an_empty_path_serves_the_prefix(serve: ClientFactory) -> None:
    router = Router(prefix="/items")
    inner = Router()

    @router.get("")
    async def items() -> list[int]:
        return [1]

    @inner.get("")
    async def tags() -> list[str]:
        return ["a"]

    app = App()
    app.include_router(router)
    app.include_router(inner, prefix="/tags")
    client = serve(app, follow_redirects=False)
    assert [route.path for route in app.routes] == ["/items", "/tags"]
    assert (client.get("/items").status_code, client.get("/items").json()) == (200, [1])
    assert (client.get("/tags").status_code, client.get("/tags").json()) == (200, ["a"])
    response = client.get("/items/")
    assert (response.status_code, response.headers["location"]) == (307, "http://testserver/items")


def test_an_empty_path_without_a_prefix_is_refused_at_startup() -> None:
    app = App()

    @app.get("")
    async def nowhere() -> None:
        return None

    with pytest.raises(ValueError, match="Route path 'items' must start with '/'"):
        app.get("items")(nowhere)
    message = r"Route '' of .*nowhere: a path may be '' only under a router prefix"
    with pytest.raises(ValueError, match=message):
        asyncio.run(app.startup())


def test_on_event_is_on_startup_and_on_shutdown() -> None:
    app = App()
    events: list[str] = []

    with pytest.warns(DeprecationWarning, match="on_event is deprecated, use lifespan"):

        @app.on_event("startup")
        def started() -> None:
            events.append("startup")

    with pytest.warns(DeprecationWarning, match="on_event"):

        @app.on_event("shutdown")
        async def stopped() -> None:
            events.append("shutdown")

    with TestClient(app) as client:
        client.start()
        assert events == ["startup"]
    assert events == ["startup", "shutdown"]
    with (
        pytest.warns(DeprecationWarning, match="on_event"),
        pytest.raises(ValueError, match="Unknown event 'ready': 'startup' or 'shutdown'"),
    ):
        app.on_event("ready")  # type: ignore[arg-type]


def test_run_in_threadpool_uses_the_apps_threads(serve: ClientFactory) -> None:
    app = App()

    def thread_name(prefix: str, *, suffix: str) -> str:
        return prefix + threading.current_thread().name.split("_")[0] + suffix

    @app.get("/where")
    async def where() -> str:
        return await run_in_threadpool(thread_name, "on ", suffix="!")

    response = serve(app).get("/where")
    assert (response.status_code, response.json()) == (200, "on hasten-thread!")
    # With no app started on the loop: AnyIO's worker threads, as Starlette's.
    assert asyncio.run(run_in_threadpool(thread_name, "", suffix="")) == "AnyIO worker thread"


def test_status_holds_starlettes_constants() -> None:
    from starlette import status as starlette_status

    ours = {name: value for name, value in vars(status).items() if name.startswith(("HTTP", "WS"))}
    theirs = [*starlette_status.__all__, *starlette_status.__deprecated__]
    assert sorted(ours) == sorted(theirs)
    for name, value in ours.items():
        assert value == int(name.split("_")[1])
    for code in http.HTTPStatus:
        assert getattr(status, f"HTTP_{code.value}_{code.name}") == code.value
    assert status.HTTP_201_CREATED == 201
