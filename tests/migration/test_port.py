"""Port by changing imports: ``fastapi_app.py`` served by FastAPI, and its twin (the same source
with only the import lines rewritten) served by hasten through both adapters, answer the same
requests with the same statuses and JSON bodies; where they must differ, the test says how."""

from __future__ import annotations

import asyncio
import types
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest

from hasten import App
from hasten.servers import Interface
from hasten.testing import TestClient
from tests.migration import fastapi_app

SOURCE = Path(fastapi_app.__file__).read_text()
# The whole port: each FastAPI import line, and the hasten line that replaces it.
IMPORTS = {
    (
        "from fastapi import BackgroundTasks, Depends, FastAPI, Header, HTTPException, Query, "
        "Request"
    ): (
        "from hasten import App as FastAPI, BackgroundTasks, Depends, Header, "
        "HTTPError as HTTPException, Query, Request"
    ),
    "from fastapi.responses import JSONResponse": "from hasten import JSONResponse",
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
]


def twin_source() -> str:
    """``fastapi_app.py`` with its FastAPI import lines replaced, and nothing else."""
    lines = SOURCE.splitlines()
    ported = [IMPORTS.get(line, line) for line in lines]
    assert sum(a != b for a, b in zip(lines, ported, strict=True)) == len(IMPORTS)
    return "\n".join(ported) + "\n"


def load_twin() -> types.ModuleType:
    module = types.ModuleType("tests.migration.hasten_twin")
    module.__file__ = "<hasten twin of fastapi_app.py>"
    exec(compile(twin_source(), module.__file__, "exec"), module.__dict__)
    return module


def fresh(module: Any) -> None:
    """The module's data as it starts: one todo, no log."""
    module.todos.clear()
    module.todos[1] = module.Todo(id=1, title="Port the app")
    module.log.clear()


def answers(client: httpx.Client, module: Any) -> list[tuple[int, Any]]:
    fresh(module)
    found = []
    for method, path, headers, body in SAME:
        response = client.request(method, path, headers=headers, json=body)
        found.append((response.status_code, response.json()))
    found.append((200, list(module.log)))  # background tasks ran, after their responses
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
def fastapi_answers() -> list[tuple[int, Any]]:
    fresh(fastapi_app)
    found = [(response.status_code, response.json()) for response in ask_fastapi(SAME)]
    return [*found, (200, list(fastapi_app.log))]


@pytest.fixture
def twin(interface: Interface) -> Iterator[tuple[TestClient, Any]]:
    module = load_twin()
    assert isinstance(module.app, App)
    with TestClient(module.app, interface=interface) as client:
        yield client, module


def test_the_twin_differs_only_in_its_import_lines() -> None:
    for fastapi_line, hasten_line in IMPORTS.items():
        assert fastapi_line in SOURCE.splitlines()
        assert hasten_line.startswith("from hasten import ")
    assert "fastapi" not in twin_source().replace("fastapi_app.py", "")


def test_the_same_requests_get_the_same_answers(
    twin: tuple[TestClient, Any], fastapi_answers: list[tuple[int, Any]]
) -> None:
    client, module = twin
    assert answers(client, module) == fastapi_answers
    assert fastapi_answers[3] == (404, {"detail": "Todo 99 not found"})
    assert fastapi_answers[4] == (404, {"detail": "Not Found"})
    assert fastapi_answers[7] == (423, {"detail": "Todo 1 is locked"})
    assert fastapi_answers[-1] == (200, ["created 2"])


def test_a_422_has_the_same_status_and_locations_but_its_own_messages(
    twin: tuple[TestClient, Any],
) -> None:
    client, _ = twin
    calls: list[Call] = [
        ("GET", "/todos?limit=0", {}, None),
        ("POST", "/todos", KEY, {"done": "maybe"}),
    ]
    for call, theirs in zip(calls, ask_fastapi(calls), strict=True):
        method, path, headers, body = call
        ours = client.request(method, path, headers=headers, json=body)
        assert theirs.status_code == ours.status_code == 422
        # FastAPI lists every error with pydantic's type, msg, input and ctx; hasten gives
        # loc, msg and type, and for a pydantic body, pydantic's errors too.
        their_locs = [error["loc"] for error in theirs.json()["detail"]]
        our_locs = [error["loc"] for error in ours.json()["detail"]]
        assert our_locs == their_locs
    assert client.get("/todos?limit=0").json() == {
        "detail": [{"loc": ["query", "limit"], "msg": "Expected `int` >= 1", "type": "invalid"}]
    }


def test_what_does_not_port_by_imports_alone() -> None:
    # FastAPI code written every day that hasten refuses, each listed in docs/from-fastapi.md:
    # when one of these starts to work, update the guide.
    from hasten import HTTPError, JSONResponse, Router

    app = App()

    async def handler() -> None:
        return None

    with pytest.raises(TypeError, match="status_code"):
        app.post("/items", status_code=201)(handler)  # type: ignore[call-arg]
    with pytest.raises(AttributeError, match="include_router"):
        app.include_router(Router())  # type: ignore[attr-defined]
    with pytest.raises(TypeError, match="status_code"):
        HTTPError(status_code=404, detail="Not here")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="status_code"):
        JSONResponse(content={}, status_code=201)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="must start with '/'"):
        Router(prefix="/items").get("")(handler)
    with pytest.raises(TypeError, match="'str' object is not callable"):
        app.middleware("http")(handler)  # type: ignore[type-var, operator]
