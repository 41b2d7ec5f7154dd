"""What a result is sent as, as FastAPI sends it: bytes as their UTF-8 text wherever they are
(a form's bytes sent back read as they were sent, never base64), a str as a JSON string."""

# No `from __future__ import annotations`: the models here are local classes.

import dataclasses
import datetime
import uuid
import warnings
from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
import pytest
from pydantic_core import PydanticUndefined

from hasten import App, File, Form, JSONResponse, Response, UploadFile
from hasten._http.json_out import (
    encode_json,
    encode_msgspec,
    encoder_for,
    holds_bytes,
    may_hold_bytes,
)
from hasten.encoders import jsonable_encoder
from hasten.errors import PydanticV1NotSupportedError
from tests.conftest import ClientFactory


@dataclasses.dataclass
class Attachment:
    name: str
    data: bytes


class Blob(msgspec.Struct):
    name: str
    extra: Any = None


def make_app() -> App:
    app = App()

    @app.post("/form")
    async def form(name: Annotated[str, Form()], content: Annotated[bytes, File()]):  # type: ignore[no-untyped-def]
        return {"name": name, "content": content}

    @app.post("/files")
    async def files(value: Annotated[list[bytes], File()]) -> dict[str, Any]:
        return {"value": value, "nested": [{"again": value[0]}]}

    @app.post("/upload")
    async def upload(file: UploadFile) -> dict[str, Any]:
        return {"read": await file.read()}

    @app.get("/dataclass")
    async def dataclass() -> Attachment:
        return Attachment("a.txt", b"hello")

    @app.get("/struct")
    async def struct():  # type: ignore[no-untyped-def]
        return Blob("b", {"inner": b"deep"})

    @app.get("/model", response_model=Attachment)
    async def model() -> Any:
        return {"name": "m.txt", "data": b"by model", "dropped": 1}

    @app.get("/bytes")
    async def raw() -> bytes:
        return b"foo"

    @app.get("/union", response_model=None)
    async def union() -> bytes | Response:
        return b"bar"

    @app.get("/lines")
    async def lines() -> AsyncIterator[dict[str, bytes]]:
        yield {"line": b"one"}
        yield {"line": b"two"}

    return app


@pytest.mark.parametrize(
    ("method", "path", "options", "body"),
    [
        (
            "post",
            "/form",
            {"data": {"name": "Rick"}, "files": {"content": ("a.txt", b"foo")}},
            b'{"name":"Rick","content":"foo"}',
        ),
        (
            "post",
            "/files",
            {"files": [("value", ("a", b"foo")), ("value", ("b", b"bar"))]},
            b'{"value":["foo","bar"],"nested":[{"again":"foo"}]}',
        ),
        ("post", "/upload", {"files": {"file": ("a", b"up")}}, b'{"read":"up"}'),
        ("get", "/dataclass", {}, b'{"name":"a.txt","data":"hello"}'),
        ("get", "/struct", {}, b'{"name":"b","extra":{"inner":"deep"}}'),
        ("get", "/model", {}, b'{"name":"m.txt","data":"by model"}'),
        ("get", "/bytes", {}, b'"foo"'),
        ("get", "/union", {}, b'"bar"'),
        ("get", "/lines", {}, b'{"line":"one"}\n{"line":"two"}\n'),
    ],
)
def test_bytes_are_sent_as_their_text_not_base64(
    serve: ClientFactory, method: str, path: str, options: dict[str, Any], body: bytes
) -> None:
    response = getattr(serve(make_app()), method)(path, **options)
    assert response.status_code == 200
    assert response.content == body


def test_bytes_that_are_not_utf8_are_a_500_as_in_fastapi(serve: ClientFactory) -> None:
    app = App()

    @app.get("/binary")
    async def binary():  # type: ignore[no-untyped-def]
        return {"data": b"\xff\xfe"}

    response = serve(app, raise_server_exceptions=False).get("/binary")
    assert (response.status_code, response.text) == (500, "Internal Server Error")


def test_what_may_hold_bytes_is_decided_from_the_type() -> None:
    assert not may_hold_bytes(dict[str, int])
    assert may_hold_bytes(list[Blob | None])  # Blob.extra is Any
    assert may_hold_bytes(Attachment)
    assert may_hold_bytes(dict[str, Any])
    assert not may_hold_bytes(dict[str, Any], any_may=False)  # taken at its word
    assert encoder_for(dict[str, Any]) is encode_msgspec
    assert encoder_for(dict[str, Any], reads_bytes=True) is encode_json
    assert encoder_for(Any) is encode_json  # no annotation: each result is looked over
    assert not holds_bytes({"a": 1, "b": ["x", None, 2.5]})
    assert holds_bytes({"a": [1, {"b": b"x"}]})
    assert holds_bytes((Attachment("x", b""),))
    assert encode_json({"a": [b"x", bytearray(b"y")]}) == b'{"a":["x","y"]}'


class DriverUUID:
    """What passes for a UUID and has no attributes to send, as asyncpg's does."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __str__(self) -> str:
        return self.text

    @property  # type: ignore[misc]  # the spoof asyncpg's class makes
    def __class__(self) -> type:
        return uuid.UUID

    @property
    def __dict__(self) -> dict[str, Any]:  # type: ignore[override]  # as asyncpg's: none
        raise TypeError("vars() argument must have __dict__ attribute")


def test_a_drivers_uuid_is_sent_as_its_text(serve: ClientFactory) -> None:
    app = App()

    @app.get("/")
    def read() -> dict[str, Any]:
        return {"id": DriverUUID("a10ff360-3b1e-4984-a26f-d3ab460bdb51")}

    assert serve(app).get("/").json() == {"id": "a10ff360-3b1e-4984-a26f-d3ab460bdb51"}


class Stamp(datetime.datetime):
    """A datetime subclass, as pendulum's DateTime is."""


def test_jsonable_encoder_writes_what_fastapis_writes() -> None:
    stamp = Stamp(2026, 11, 28, 1, 2, 3)
    assert jsonable_encoder({"at": stamp}) == {"at": "2026-11-28T01:02:03"}  # not the date
    assert jsonable_encoder({"value": PydanticUndefined}) == {"value": None}

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # pydantic.v1 on this Python warns
        from pydantic import v1

    class Legacy(v1.BaseModel):
        name: str

    with pytest.raises(PydanticV1NotSupportedError, match="from pydantic import BaseModel"):
        jsonable_encoder(Legacy(name="x"))


class Count(int):
    """An int subclass, as pydantic's ByteSize is."""


class Ratio(float):
    """A float subclass."""


def test_a_number_of_a_subclass_is_sent_as_the_number(serve: ClientFactory) -> None:
    app = App()

    @app.get("/undeclared")
    def undeclared():  # type: ignore[no-untyped-def]  # the result's type is not said
        return {"count": Count(1000), "ratio": Ratio(1.5)}

    @app.get("/any")
    def any_values() -> dict[str, Any]:
        return {"count": Count(1000), "ratio": Ratio(1.5)}

    client = serve(app)
    for path in ("/undeclared", "/any"):
        response = client.get(path)
        # As FastAPI's jsonable_encoder sends them (it was {} for each: their attributes).
        assert (response.status_code, response.json()) == (200, {"count": 1000, "ratio": 1.5})


def test_a_nan_without_a_declared_type_is_a_500_as_in_fastapi(serve: ClientFactory) -> None:
    app = App()

    @app.get("/untyped")
    async def untyped():  # type: ignore[no-untyped-def]  # no type: FastAPI's json.dumps
        return {"x": [1.0, float("nan")]}

    @app.get("/typed")
    async def typed() -> dict[str, float]:
        return {"x": float("inf")}

    @app.get("/any")
    async def declared_any() -> Any:  # FastAPI's response model of Any: as pydantic writes it
        return {"x": float("nan")}

    @app.get("/response")
    async def response() -> Response:
        return JSONResponse({"x": float("nan")})

    @app.get("/null")
    async def null():  # type: ignore[no-untyped-def]
        return {"x": None, "y": 1.5}

    client = serve(app, raise_server_exceptions=False)
    answers = {
        path: (answer.status_code, answer.text)
        for path in ("/untyped", "/typed", "/any", "/response", "/null")
        for answer in [client.get(path)]
    }
    assert answers == {
        "/untyped": (500, "Internal Server Error"),  # was 200 {"x":[1.0,null]}
        "/typed": (200, '{"x":null}'),  # declared: as pydantic writes it
        "/any": (200, '{"x":null}'),
        "/response": (500, "Internal Server Error"),  # Starlette's JSONResponse refuses it
        "/null": (200, '{"x":null,"y":1.5}'),
    }
