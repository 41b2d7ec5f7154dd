"""What a Request shares with a future WebSocket (Connection), through both adapters."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest

from hasten import App, Connection, Request, State
from hasten._flow.context import UNSERVED
from hasten._serve.protocols.asgi import ASGIChannel, ASGIRequest
from hasten._serve.protocols.rsgi import RSGIRequest
from hasten.testing import TestClient
from tests.conftest import ClientFactory


class _Scope:
    proto = "http"
    method = "GET"
    path = "/p"
    query_string = "a=1"
    client = "127.0.0.1:1"
    scheme = "http"
    headers: ClassVar[dict[str, str]] = {}


async def _never() -> dict[str, Any]:
    raise AssertionError("not called")


async def _ignore(message: Any) -> None:
    raise AssertionError("not called")


def test_each_adapter_reads_the_same_request_from_its_scope() -> None:
    app = App()
    rsgi = RSGIRequest(UNSERVED, app, _Scope(), object(), "GET", "/p")
    scope = {"method": "GET", "path": "/p", "query_string": b"a=1", "headers": []}
    asgi = ASGIRequest(UNSERVED, app, scope, ASGIChannel(_never, _ignore), "GET", "/p")
    for request in (rsgi, asgi):
        assert (request.method, request.path, request.query_string) == ("GET", "/p", "a=1")
        assert (request.context, request.app, dict(request.path_params)) == (UNSERVED, app, {})
        assert (request.headers.items(), request.cookies, request._cleanup) == ([], {}, None)


def test_state_for_the_app_and_for_each_request(serve: ClientFactory) -> None:
    app = App()
    app.state.greeting = "hi"

    @app.middleware
    async def tag(request: Request, call_next: Any) -> Any:
        request.state.user = "ada"
        return await call_next(request)

    @app.get("/")
    async def home(request: Request) -> list[Any]:
        state = request.state
        return [request.app.state.greeting, state.user, isinstance(request, Connection)]

    assert serve(app).get("/").json() == ["hi", "ada", True]


def test_state_is_read_by_key_too_and_keeps_the_dict_it_is_given() -> None:
    values: dict[str, Any] = {"a": 1}
    state = State(values, b=2)
    state["c"] = 3
    state.d = 4
    del state["a"]
    assert (values, state["b"], list(state), len(state)) == (
        {"b": 2, "c": 3, "d": 4},
        2,
        ["b", "c", "d"],
        3,
    )
    with pytest.raises(KeyError):
        state["a"]


def test_state_names_a_missing_attribute() -> None:
    state = State(a=1)
    assert state.a == 1
    with pytest.raises(AttributeError, match=r"^State has no attribute 'b'; set it first$"):
        state.b  # noqa: B018
    assert repr(state) == "State({'a': 1})"


def test_query_params_is_starlettes_name_for_query(serve: ClientFactory) -> None:
    app = App()

    @app.get("/q")
    async def q(request: Request) -> list[Any]:
        return [request.query_params is request.query, request.query_params.get_all("x")]

    assert serve(app).get("/q?x=1&x=2").json() == [True, ["1", "2"]]


def test_mounted_under_a_root_path() -> None:
    app = App()

    @app.get("/items/{n:int}")
    async def item(n: int, request: Request) -> dict[str, Any]:
        return {"n": n, "path": request.path, "root": request.root_path, "url": request.url}

    with TestClient(app, interface="asgi", root_path="/api") as client:
        assert client.get("/items/3").json() == {
            "n": 3,
            "path": "/items/3",
            "root": "/api",
            "url": "http://testserver/api/items/3",
        }
        redirect = client.get("/items/3/?q=1", follow_redirects=False)
        assert (redirect.status_code, redirect.headers["location"]) == (
            307,
            "http://testserver/api/items/3?q=1",
        )
