"""How a handler's result becomes a response: ``response_class=`` (route, router, include,
app), and generator handlers streamed as JSON Lines or as their response class's chunks."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import msgspec
import pytest

from hasten import (
    App,
    EventSourceResponse,
    HTMLResponse,
    PlainTextResponse,
    Response,
    Router,
    ServerSentEvent,
    StreamingResponse,
)
from hasten.responses import FileResponse, ORJSONResponse, RedirectResponse
from tests.conftest import ClientFactory


class Item(msgspec.Struct):
    name: str
    price: float = 0.0


class UserIn(msgspec.Struct):
    name: str
    password: str


class UserOut(msgspec.Struct):
    name: str


@pytest.mark.filterwarnings("ignore:ORJSONResponse is deprecated")
def test_response_class_builds_the_result_into_the_class(serve: ClientFactory) -> None:
    app = App()

    @app.get("/html", response_class=HTMLResponse)
    async def html() -> str:
        return "<h1>hi</h1>"

    @app.get("/redirect", response_class=RedirectResponse)
    async def redirect() -> str:
        return "https://example.com/a b"

    @app.get("/found", response_class=RedirectResponse, status_code=302)
    async def found() -> str:
        return "/elsewhere"

    @app.get("/own", response_class=HTMLResponse)
    async def own() -> PlainTextResponse:
        return PlainTextResponse("as returned")

    @app.get("/model", response_class=ORJSONResponse, response_model=UserOut)
    async def model() -> Any:
        return UserIn("ada", "secret")

    client = serve(app)
    answer = client.get("/html")
    assert (answer.status_code, answer.text) == (200, "<h1>hi</h1>")
    assert answer.headers["content-type"] == "text/html; charset=utf-8"
    moved = client.get("/redirect", follow_redirects=False)
    assert (moved.status_code, moved.headers["location"]) == (307, "https://example.com/a%20b")
    assert client.get("/found", follow_redirects=False).status_code == 302
    assert client.get("/own").headers["content-type"] == "text/plain; charset=utf-8"
    # The response model still filters what the class is built from.
    assert client.get("/model").content == b'{"name":"ada"}'


def test_a_file_path_through_file_response(serve: ClientFactory, tmp_path: Any) -> None:
    path = tmp_path / "notes.txt"
    path.write_text("notes")
    app = App()

    @app.get("/file", response_class=FileResponse)
    async def file() -> str:
        return str(path)

    answer = serve(app).get("/file")
    assert (answer.status_code, answer.text) == (200, "notes")
    assert answer.headers["content-type"] == "text/plain; charset=utf-8"


def test_default_response_class_route_over_router_over_include_over_app(
    serve: ClientFactory,
) -> None:
    app = App(default_response_class=HTMLResponse)
    inner = Router(default_response_class=PlainTextResponse)
    outer = Router()

    @app.get("/app")
    async def on_app() -> str:
        return "a"

    @inner.get("/inner")
    async def on_inner() -> str:
        return "i"

    @inner.get("/route", response_class=Response)
    async def on_route() -> str:
        return "r"

    @outer.get("/outer")
    async def on_outer() -> str:
        return "o"

    app.include(inner, "/x")
    app.include(outer, "/y", default_response_class=PlainTextResponse)
    client = serve(app)

    def kind(path: str) -> str:
        answer = client.get(path)
        assert answer.status_code == 200
        return str(answer.headers.get("content-type", "none"))

    assert kind("/app") == "text/html; charset=utf-8"
    assert kind("/x/inner") == "text/plain; charset=utf-8"
    assert kind("/x/route") == "text/plain; charset=utf-8"  # Response: a str is text/plain
    assert kind("/y/outer") == "text/plain; charset=utf-8"


def test_generators_stream_json_lines(serve: ClientFactory) -> None:
    app = App()
    closed: list[str] = []

    @app.get("/async")
    async def items() -> AsyncIterator[Item]:
        try:
            yield Item("a", 1.5)
            yield Item("b")
        finally:
            closed.append("async")

    @app.get("/sync")
    def names() -> Iterator[dict[str, str]]:
        yield {"thread": threading.current_thread().name}

    @app.get("/filtered", response_model=UserOut)
    async def users():  # type: ignore[no-untyped-def]  # FastAPI's unannotated form
        yield UserIn("ada", "secret")

    client = serve(app)
    answer = client.get("/async")
    assert (answer.status_code, answer.headers["content-type"]) == (200, "application/jsonl")
    assert answer.text == '{"name":"a","price":1.5}\n{"name":"b","price":0.0}\n'
    assert closed == ["async"]
    line = client.get("/sync").json()
    assert line["thread"].startswith("hasten-thread")  # never on the event loop
    assert client.get("/filtered").text == '{"name":"ada"}\n'


def test_generators_with_a_response_class_stream_raw_chunks(serve: ClientFactory) -> None:
    app = App()

    class PNGStream(StreamingResponse):
        media_type = "image/png"

    @app.get("/image", response_class=PNGStream, status_code=203)
    def image() -> Iterator[bytes]:
        yield b"\x89PNG"
        yield b"rest"

    answer = serve(app).get("/image")
    assert (answer.status_code, answer.content) == (203, b"\x89PNGrest")
    assert answer.headers["content-type"] == "image/png"


def test_generators_with_event_source_response_send_items_as_json_events(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.get("/events", response_class=EventSourceResponse)
    async def events() -> AsyncIterator[Any]:
        yield Item("a")
        yield "quoted"
        yield ServerSentEvent(raw_data="[DONE]", event="done")

    @app.get("/filtered", response_class=EventSourceResponse, response_model=UserOut)
    def filtered() -> Iterator[UserIn]:
        yield UserIn("ada", "secret")

    client = serve(app)
    answer = client.get("/events")
    assert answer.status_code == 200
    assert answer.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert answer.text == (
        'data: {"name":"a","price":0.0}\n\ndata: "quoted"\n\nevent: done\ndata: [DONE]\n\n'
    )
    assert client.get("/filtered").text == 'data: {"name":"ada"}\n\n'


def test_a_plain_object_is_sent_as_its_attributes(serve: ClientFactory) -> None:
    """FastAPI's jsonable_encoder falls back to ``vars()``: a class instance returned as it is
    (an OAuth2 form, say) is sent as its attributes, not a 500."""

    class Form:
        def __init__(self) -> None:
            self.username = "jo"
            self.scopes = ["a"]

    app = App()

    @app.get("/")
    def read() -> Any:
        return Form()

    response = serve(app).get("/")
    assert (response.status_code, response.json()) == (200, {"username": "jo", "scopes": ["a"]})


def test_a_sqlalchemy_instance_is_sent_as_its_columns(serve: ClientFactory) -> None:
    """A mapped SQLAlchemy instance returned with no response model is sent as FastAPI's
    jsonable_encoder sends it: its attributes less SQLAlchemy's ``_sa_instance_state`` (which
    holds the mapped class, and was a 500)."""
    from sqlalchemy import Column, Integer, String
    from sqlalchemy.orm import DeclarativeBase

    class Base(DeclarativeBase):
        pass

    class Tier(Base):  # as the app declared it (fastcrud's tests)
        __tablename__ = "tier"
        id = Column(Integer, primary_key=True)
        name = Column(String(32))

    app = App()

    @app.post("/tiers")
    async def create() -> Any:
        return Tier(id=1, name="Premium")

    response = serve(app).post("/tiers")
    assert (response.status_code, response.json()) == (200, {"id": 1, "name": "Premium"})
