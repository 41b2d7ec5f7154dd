"""Compiled endpoints through both adapters: where handlers run and how results are encoded."""

from __future__ import annotations

import dataclasses
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any

import msgspec
import pytest

from hasten import App, Header, JSONResponse, Parameter, Request, Response
from hasten._http.paths import PathTemplate
from hasten._params.endpoints import Endpoint, RouteOptions
from hasten.params import MISSING
from hasten.testing import TestClient
from hasten.testing.loop import LOOP_THREAD_NAME
from tests.conftest import ClientFactory


class User(msgspec.Struct):
    id: int
    name: str


@dataclasses.dataclass
class Box:
    width: int


def make_app() -> App:
    app = App(max_threads=4)

    @app.get("/thread")
    def thread_name() -> str:
        return threading.current_thread().name

    @app.get("/loop")
    async def loop_thread() -> str:
        return threading.current_thread().name

    @app.get("/thread/{n}")
    def with_params(n: int, request: Request) -> dict[str, Any]:
        return {"n": n, "path": request.path, "thread": threading.current_thread().name}

    @app.get("/struct")
    async def struct() -> User:
        return User(1, "ada")

    @app.get("/dataclass")
    async def dataclass() -> Box:
        return Box(3)

    @app.get("/list")
    async def listing() -> list[int]:
        return [1, 2]

    @app.get("/bytes")
    async def raw() -> bytes:
        return b"\x00\x01"

    @app.get("/text")
    async def text() -> str:
        return "héllo"

    @app.get("/unannotated")
    async def unannotated():  # type: ignore[no-untyped-def]
        return {"a": 1}

    # A Response in the union is no response model: FastAPI asks for response_model=None.
    @app.get("/union/{kind}", response_model=None)
    async def union(kind: str) -> str | bytes | dict[str, str] | Response | None:
        results: dict[str, str | bytes | dict[str, str] | Response | None] = {
            "str": "s",
            "bytes": b"b",
            "dict": {"d": "d"},
            "response": Response("r", status=203),
            "none": None,
        }
        return results[kind]

    @app.get("/json-but-response")
    async def json_but_response() -> dict[str, str]:
        return JSONResponse({"custom": "yes"}, status=202)  # type: ignore[return-value]

    @app.get("/text-but-response")
    async def text_but_response() -> str:
        return Response(b"x", status=206)  # type: ignore[return-value]

    @app.get("/bytes-but-response")
    async def bytes_but_response() -> bytes:
        return Response(b"y", status=206)  # type: ignore[return-value]

    @app.delete("/things/{id}", status=204)
    async def delete(id: int) -> None:
        return None

    @app.post("/created", status=201)
    async def created() -> dict[str, bool]:
        return {"created": True}

    @app.get("/response")
    async def response() -> Response:
        return Response(b"raw-body", status=202, media_type="text/plain", headers={"x-custom": "1"})

    class Callable:
        async def __call__(self) -> str:
            return "instance"

    app.add_api_route("/instance", Callable())
    return app


def test_def_handlers_run_on_the_thread_pool(serve: ClientFactory) -> None:
    client = serve(make_app())
    in_pool = client.get("/thread")
    assert in_pool.status_code == 200
    assert in_pool.json().startswith("hasten-thread")
    on_loop = client.get("/loop")
    assert on_loop.status_code == 200
    assert on_loop.json() == LOOP_THREAD_NAME
    body = client.get("/thread/5").json()
    assert body["n"] == 5
    assert body["path"] == "/thread/5"
    assert body["thread"].startswith("hasten-thread")


def test_thread_pool_is_bounded_by_max_threads(serve: ClientFactory) -> None:
    app = App(max_threads=2)
    running: list[int] = []
    peak: list[int] = [0]
    lock = threading.Lock()

    @app.get("/work")
    def work() -> int:
        with lock:
            running.append(1)
            peak[0] = max(peak[0], len(running))
        time.sleep(0.05)
        with lock:
            running.pop()
        return 1

    client = serve(app)
    with ThreadPoolExecutor(8) as senders:
        statuses = list(senders.map(lambda _: client.get("/work").status_code, range(8)))
    assert statuses == [200] * 8
    assert peak[0] == 2


@pytest.mark.parametrize(
    ("path", "status", "content_type", "body"),
    [
        ("/struct", 200, "application/json", b'{"id":1,"name":"ada"}'),
        ("/dataclass", 200, "application/json", b'{"width":3}'),
        ("/list", 200, "application/json", b"[1,2]"),
        # As FastAPI sends them: a str and bytes (their text) are JSON strings.
        ("/bytes", 200, "application/json", b'"\\u0000\\u0001"'),
        ("/text", 200, "application/json", '"héllo"'.encode()),
        ("/unannotated", 200, "application/json", b'{"a":1}'),
        ("/union/str", 200, "application/json", b'"s"'),
        ("/union/bytes", 200, "application/json", b'"b"'),
        ("/union/dict", 200, "application/json", b'{"d":"d"}'),
        ("/union/response", 203, "text/plain; charset=utf-8", b"r"),
        ("/union/none", 200, "application/json", b"null"),
        ("/json-but-response", 202, "application/json", b'{"custom":"yes"}'),
        ("/text-but-response", 206, None, b"x"),
        ("/bytes-but-response", 206, None, b"y"),
        ("/response", 202, "text/plain; charset=utf-8", b"raw-body"),
        ("/instance", 200, "application/json", b'"instance"'),
    ],
)
def test_results_are_encoded_by_type(
    serve: ClientFactory, path: str, status: int, content_type: str | None, body: bytes
) -> None:
    response = serve(make_app()).get(path)
    assert response.status_code == status
    assert response.headers.get("content-type") == content_type
    assert response.content == body


def test_route_status_and_204(serve: ClientFactory) -> None:
    client = serve(make_app())
    assert client.post("/created").status_code == 201
    deleted = client.delete("/things/1")
    assert deleted.status_code == 204
    assert deleted.content == b""


def test_response_headers_reach_the_client(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/response")
    assert response.headers["x-custom"] == "1"
    assert response.headers["content-length"] == "8"


def test_endpoint_describes_its_parameters() -> None:
    async def handler(
        n: Annotated[int, msgspec.Meta(ge=1)],
        user: User,
        q: str = "",
        request: Request | None = None,
        token: Annotated[str | None, Header(alias="X-Token"), "doc"] = None,
    ) -> None: ...

    endpoint = Endpoint(handler, PathTemplate.parse("/x/{n}"), RouteOptions())
    assert endpoint.runs_on == "event loop"
    assert endpoint.name.endswith("test_endpoint_describes_its_parameters.<locals>.handler")
    # Each marker is itself (equal only to itself), as FastAPI's are.
    header = endpoint.parameters[4].marker
    assert header is not None
    assert (header.source, header.alias) == ("header", "X-Token")
    assert endpoint.parameters == (
        Parameter("n", "path", int, MISSING, "n", (msgspec.Meta(ge=1),)),
        Parameter("user", "body", User, MISSING, "user"),
        Parameter("q", "query", str, "", "q"),
        Parameter("request", "request", Request | None, None, "request"),
        Parameter("token", "header", str | None, None, "X-Token", (), ("doc",), header),
    )


def test_partial_of_async_function_runs_on_the_loop() -> None:
    import functools

    async def handler(prefix: str) -> str:
        return prefix + threading.current_thread().name

    app = App()
    app.add_api_route("/p", functools.partial(handler, "on "))
    with TestClient(app) as client:
        response = client.get("/p")
        assert response.status_code == 200
        assert response.json() == "on " + LOOP_THREAD_NAME


def test_a_status_without_a_body_set_to_one_with_sends_the_result(serve: ClientFactory) -> None:
    app = App()

    @app.delete("/{id}", status=204, response_model=None)
    async def delete(id: int, response: Response) -> Any:
        if id == 1:
            response.status_code = 400  # as FastAPI does: the result is sent after all
        return {"msg": "Status overwritten", "id": id}

    client = serve(app)
    changed = client.delete("/1")
    assert (changed.status_code, changed.content) == (400, b'{"msg":"Status overwritten","id":1}')
    kept = client.delete("/2")
    assert (kept.status_code, kept.content) == (204, b"")
    assert "content-length" not in kept.headers
