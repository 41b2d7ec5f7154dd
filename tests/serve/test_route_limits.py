"""FastAPI 0.165's limit keywords, given by the app, a router, an inclusion or a route:
``max_body_size``, ``form_limits`` and ``strict_content_type``; the innermost given wins (form
limits key by key). Through both adapters; tests/servers/e2e sends the 413 through real servers."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from hasten import App, Form, Request, Router, UploadFile
from tests.conftest import ClientFactory


def sized_app() -> App:
    """Body limits at every level: app 10 bytes, router 20, its inclusion 40, route 30."""
    app = App(max_body_size=10)
    router = Router(prefix="/router", max_body_size=20)
    included = Router(prefix="/included")

    async def measure(request: Request) -> dict[str, int]:
        return {"size": len(await request.body())}

    app.post("/app")(measure)
    router.post("/router")(measure)
    router.post("/route", max_body_size=30)(measure)
    included.post("/included")(measure)
    app.include(router)
    app.include(included, max_body_size=40)
    return app


def chunks(size: int) -> Iterator[bytes]:
    yield b"x" * (size - 1)
    yield b"x"


@pytest.mark.parametrize(
    ("path", "limit"),
    [("/app", 10), ("/router/router", 20), ("/router/route", 30), ("/included/included", 40)],
)
def test_the_innermost_body_limit_holds(serve: ClientFactory, path: str, limit: int) -> None:
    client = serve(sized_app())
    response = client.post(path, content=b"x" * limit)
    assert (response.status_code, response.content) == (200, b'{"size":%d}' % limit)
    response = client.post(path, content=b"x" * (limit + 1))
    assert response.status_code == 413
    assert response.json() == {
        "detail": f"Request body of {limit + 1} bytes exceeds the limit of {limit} bytes"
    }
    response = client.post(path, content=chunks(limit + 1))  # chunked: counted as it comes
    assert response.status_code == 413
    assert response.json() == {"detail": f"Request body exceeds the limit of {limit} bytes"}


def test_a_body_a_middleware_read_is_held_to_the_routes_limit(serve: ClientFactory) -> None:
    app = App(max_body_size=10)

    @app.middleware
    async def read_first(request: Request, call_next: Any) -> Any:
        await request.body()  # before the route, and its own limit, is known
        return await call_next(request)

    async def measure(request: Request) -> dict[str, int]:
        return {"size": len(await request.body())}

    app.post("/small", max_body_size=5)(measure)
    app.post("/app")(measure)
    client = serve(app)
    response = client.post("/small", content=b"123456")
    assert (response.status_code, response.json()) == (
        413,
        {"detail": "Request body exceeds the limit of 5 bytes"},
    )  # it was a 200: the body was read within the app's 10 bytes
    assert client.post("/small", content=b"12345").json() == {"size": 5}
    assert client.post("/app", content=b"123456").json() == {"size": 6}


def test_a_router_of_its_own_keeps_its_limit_over_its_inclusions() -> None:
    # FastAPI's order: the route's, its router's, the inclusion's, the outer router's.
    from hasten.routing import Inherited

    router = Inherited.given("Router", max_body_size=20, form_limits={"max_fields": 1})
    inclusion = Inherited.given("include", max_body_size=40, form_limits={"max_files": 2})
    given = router.within(inclusion)
    assert (given.max_body_size, dict(given.form_limits)) == (20, {"max_files": 2, "max_fields": 1})


def form_app() -> App:
    app = App(form_limits={"max_fields": 2})
    uploads = Router(form_limits={"max_files": 1})

    @app.post("/notes")
    async def notes(
        a: Annotated[str, Form()] = "", b: Annotated[str, Form()] = ""
    ) -> dict[str, str]:
        return {"a": a, "b": b}

    @app.post("/short", form_limits={"max_part_size": 3})
    async def short(a: Annotated[str, Form()] = "") -> dict[str, str]:
        return {"a": a}

    @uploads.post("/files")
    async def files(f: list[UploadFile]) -> dict[str, int]:
        return {"files": len(f)}

    app.include(uploads)
    return app


@pytest.mark.parametrize("multipart", [False, True])
def test_form_limits_hold_key_by_key(serve: ClientFactory, multipart: bool) -> None:
    client = serve(form_app())

    def submit(path: str, fields: dict[str, str]) -> tuple[int, Any]:
        if multipart:
            response = client.post(path, files={k: (None, v) for k, v in fields.items()})
        else:
            response = client.post(path, data=fields)
        return response.status_code, response.json()

    assert submit("/notes", {"a": "1", "b": "2"}) == (200, {"a": "1", "b": "2"})
    too_many = {"detail": "Too many fields. Maximum number of fields is 2."}
    assert submit("/notes", {"a": "1", "b": "2", "c": "3"}) == (400, too_many)  # FastAPI's
    # The route's max_part_size; the app's max_fields still holds.
    # (an urlencoded field counts its name with its value, as Starlette counts it)
    assert submit("/short", {"a": "12"}) == (200, {"a": "12"})
    # Starlette's words, which say a multipart field is a part.
    too_large = {"detail": f"{'Part' if multipart else 'Field'} exceeded maximum size of 3 bytes."}
    assert submit("/short", {"a": "1234"}) == (400, too_large)
    assert submit("/short", {"a": "1", "b": "2", "c": "3"}) == (400, too_many)


def test_form_limits_count_files_apart_from_fields(serve: ClientFactory) -> None:
    client = serve(form_app())
    one: list[tuple[str, tuple[str | None, bytes]]]
    one = [("f", ("a.txt", b"1")), ("x", (None, b"1")), ("y", (None, b"2"))]
    response = client.post("/files", files=one)
    assert (response.status_code, response.json()) == (200, {"files": 1})
    response = client.post("/files", files=[*one, ("f", ("b.txt", b"2"))])
    assert response.status_code == 400
    assert response.json() == {"detail": "Too many files. Maximum number of files is 1."}


class Item(BaseModel):
    name: str


def lax_app(**settings: Any) -> App:
    app = App(**settings)
    strict = Router(prefix="/strict", strict_content_type=True)

    async def create(item: Item) -> Item:
        return item

    app.post("/items")(create)
    strict.post("/items")(create)
    app.include(strict)
    return app


BODY = b'{"name": "Foo"}'
NOT_JSON = {
    "detail": [
        {
            "type": "model_attributes_type",
            "loc": ["body"],
            "msg": "Input should be a valid dictionary or object to extract fields from",
            "input": BODY.decode(),
        }
    ]
}


def test_a_body_without_content_type_is_not_json_by_default(serve: ClientFactory) -> None:
    response = serve(lax_app()).post("/items", content=BODY)
    assert (response.status_code, response.json()) == (422, NOT_JSON)


def test_strict_content_type_false_reads_a_body_without_one_as_json(
    serve: ClientFactory,
) -> None:
    client = serve(lax_app(strict_content_type=False))
    response = client.post("/items", content=BODY)
    assert (response.status_code, response.content) == (200, b'{"name":"Foo"}')
    # Only a missing Content-Type: another one is still not JSON.
    response = client.post("/items", content=BODY, headers={"content-type": "text/plain"})
    assert (response.status_code, response.json()) == (422, NOT_JSON)
    # A router that asks for the strict check keeps it.
    response = client.post("/strict/items", content=BODY)
    assert (response.status_code, response.json()) == (422, NOT_JSON)


@pytest.mark.parametrize(
    ("keywords", "message"),
    [
        ({"max_body_size": -1}, "max_body_size must be a non-negative integer or None, not -1"),
        ({"max_body_size": True}, "max_body_size must be a non-negative integer or None, not True"),
        (
            {"form_limits": {"max_parts": 1}},
            "form_limits takes max_fields, max_files and max_part_size, not 'max_parts'",
        ),
        (
            {"form_limits": {"max_files": -1}},
            "form_limits['max_files'] must be a non-negative integer",
        ),
    ],
)
def test_limits_are_checked_where_they_are_given(keywords: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("(", r"\(")):
        App(**keywords)
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        Router(**keywords)
    with pytest.raises(ValueError, match=message.replace("[", r"\[")):
        App().post("/", **keywords)(lambda: None)
