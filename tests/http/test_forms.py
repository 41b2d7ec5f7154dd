"""Forms and uploads through both adapters: fields, files, models, limits, and malformed
bodies, each answered with a precise status and body; memory stays bounded while a large
upload streams past its limit."""

# No `from __future__ import annotations`: form models here are local classes.

import asyncio
import dataclasses
import tracemalloc
import typing
from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
import multipart as multipart_library
import pydantic
import pytest

from hasten import (
    App,
    Body,
    Depends,
    File,
    Form,
    OAuth2PasswordRequestForm,
    Request,
    UploadFile,
)
from hasten._flow.context import UNSERVED, ServeContext
from hasten._http.forms import _reason, read_form
from hasten._settings import FormLimitsKeywords
from hasten.datastructures import Headers
from hasten.errors import HTTPError
from tests.conftest import ClientFactory

BOUNDARY = "hastenboundary"


def multipart(*parts: bytes, boundary: str = BOUNDARY, end: bool = True) -> bytes:
    body = b"".join(f"--{boundary}\r\n".encode() + part + b"\r\n" for part in parts)
    return body + (f"--{boundary}--\r\n".encode() if end else b"")


def field(name: str, value: str) -> bytes:
    return f'Content-Disposition: form-data; name="{name}"\r\n\r\n{value}'.encode()


def upload(name: str, filename: str, data: bytes, media: str = "text/plain") -> bytes:
    head = (
        f'Content-Disposition: form-data; name="{name}"; filename="{filename}"\r\n'
        f"Content-Type: {media}\r\n\r\n"
    )
    return head.encode() + data


MULTIPART = {"content-type": f"multipart/form-data; boundary={BOUNDARY}"}


class Profile(msgspec.Struct):
    name: str
    age: int
    tags: list[str] = []


def make_app(**settings: Any) -> App:
    app = App(**settings)

    @app.post("/login")
    async def login(
        username: Annotated[str, Form()],
        age: Annotated[int, Form(ge=0)],
        tags: Annotated[list[str], Form()] = [],  # noqa: B006
        remember: bool = Form(False),
    ) -> dict[str, Any]:
        return {"username": username, "age": age, "tags": tags, "remember": remember}

    @app.post("/upload")
    async def upload_one(file: UploadFile, note: Annotated[str, Form()] = "") -> dict[str, Any]:
        data = await file.read()
        await file.seek(0)
        again = await file.read(3)
        await file.close()
        return {
            "filename": file.filename,
            "content_type": file.content_type,
            "size": file.size,
            "length": len(data),
            "start": again.decode(),
            "on_disk": not file._in_memory,
            "note": note,
        }

    @app.post("/many")
    async def many(
        files: Annotated[list[UploadFile], File()], raw: Annotated[bytes | None, File()] = None
    ) -> dict[str, Any]:
        return {"names": [item.filename for item in files], "raw": raw.decode() if raw else None}

    @app.post("/profile")
    async def profile(data: Annotated[Profile, Form()]) -> Profile:
        return data

    @app.post("/token")
    async def token(form: Annotated[OAuth2PasswordRequestForm, Depends()]) -> dict[str, Any]:
        return {"username": form.username, "password": form.password, "scopes": form.scopes}

    @app.post("/raw")
    async def raw(request: Request) -> list[str]:
        form = await request.form()
        return sorted(form)

    return app


def test_urlencoded_fields_are_converted_and_checked(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.post(
        "/login", data={"username": "ann", "age": "31", "tags": ["a", "b"], "remember": "true"}
    )
    assert response.status_code == 200
    assert response.json() == {"username": "ann", "age": 31, "tags": ["a", "b"], "remember": True}
    response = client.post("/login", data={"age": "-1", "username": ""})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "missing",
                "loc": ["body", "username"],
                "msg": "Field required",
                "input": None,
            },
            {
                "type": "greater_than_equal",
                "loc": ["body", "age"],
                "msg": "Input should be greater than or equal to 0",
                "input": "-1",
                "ctx": {"ge": 0},
            },
        ]
    }


def test_multipart_fields_and_files(serve: ClientFactory) -> None:
    client = serve(make_app(form_spool_size=1024))
    small = multipart(field("note", "hi"), upload("file", "a.txt", b"hello world"))
    response = client.post("/upload", content=small, headers=MULTIPART)
    assert response.json() == {
        "filename": "a.txt",
        "content_type": "text/plain",
        "size": 11,
        "length": 11,
        "start": "hel",
        "on_disk": False,
        "note": "hi",
    }
    large = multipart(upload("file", "big.bin", b"x" * 5000, "application/octet-stream"))
    response = client.post("/upload", content=large, headers=MULTIPART)
    assert response.json()["size"] == 5000
    assert response.json()["on_disk"] is True  # spooled past form_spool_size


@pytest.mark.parametrize(
    ("sent", "read"),
    [
        ("résumé.txt".encode(), "résumé.txt"),  # UTF-8, as browsers send it
        ("résumé.txt".encode("latin-1"), "résumé.txt"),  # not UTF-8: read as latin-1
        (b"\xff\xfe.txt", "\xff\xfe.txt"),
        ("日本.txt".encode(), "日本.txt"),
    ],
)
def test_a_filename_in_any_charset_is_taken(serve: ClientFactory, sent: bytes, read: str) -> None:
    # As Starlette does: UTF-8 where the bytes are that, else latin-1; never a 400.
    head = b'Content-Disposition: form-data; name="file"; filename="' + sent + b'"\r\n'
    body = multipart(head + b"X-Note: \xe9t\xe9\r\n\r\ndata")
    response = serve(make_app()).post("/upload", content=body, headers=MULTIPART)
    assert (response.status_code, response.json()["filename"]) == (200, read)


def test_a_file_sent_for_a_text_field_is_a_422_that_names_it(serve: ClientFactory) -> None:
    # Its error echoes the file as FastAPI's does, by name, size and headers (FastAPI's adds
    # the file object's insides); hasten's encoder failed on it: a 500.
    body = multipart(upload("note", "a.txt", b"hi"), upload("file", "b.txt", b"x"))
    response = serve(make_app()).post("/upload", content=body, headers=MULTIPART)
    assert (response.status_code, response.json()["detail"]) == (
        422,
        [
            {
                "type": "string_type",
                "loc": ["body", "note"],
                "msg": "Input should be a valid string",
                "input": {
                    "filename": "a.txt",
                    "size": 2,
                    "headers": {
                        "content-disposition": 'form-data; name="note"; filename="a.txt"',
                        "content-type": "text/plain",
                    },
                },
            }
        ],
    )


def test_a_file_parameter_of_another_type_reads_the_parts_text(serve: ClientFactory) -> None:
    # FastAPI reads Annotated[str, File()] as a Form() of its type: the part's text, a file
    # sent for it a 422; it documents the type's schema in a multipart body.
    app = App()

    @app.post("/text")
    async def text(note: Annotated[str, File()], count: Annotated[int, File()] = 1) -> list[Any]:
        return [note, count]

    client = serve(app)
    response = client.post("/text", files={"note": (None, "hi"), "count": (None, "3")})
    assert (response.status_code, response.json()) == (200, ["hi", 3])
    response = client.post("/text", data={"note": "hi"})
    assert (response.status_code, response.json()) == (200, ["hi", 1])
    response = client.post("/text", files={"note": ("a.txt", b"hi")})
    assert (response.status_code, response.json()["detail"][0]["type"]) == (422, "string_type")
    response = client.post("/text", files={"note": (None, "hi"), "count": (None, "many")})
    assert (response.status_code, response.json()["detail"][0]["loc"]) == (
        422,
        ["body", "count"],
    )
    operation = client.get("/openapi.json").json()["paths"]["/text"]["post"]
    assert operation["requestBody"]["content"]["multipart/form-data"]["schema"] == {
        "$ref": "#/components/schemas/Body_text_text_post"
    }
    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    assert schemas["Body_text_text_post"] == {
        "type": "object",
        "title": "Body_text_text_post",
        "properties": {
            "note": {"title": "Note", "type": "string"},
            "count": {"title": "Count", "type": "integer", "default": 1},
        },
        "required": ["note"],
    }


def test_a_field_name_that_is_not_utf8_is_read_as_latin1(serve: ClientFactory) -> None:
    body = multipart(b'Content-Disposition: form-data; name="caf\xe9"\r\n\r\nx')
    response = serve(make_app()).post("/raw", content=body, headers=MULTIPART)
    assert (response.status_code, response.json()) == (200, ["café"])


def test_a_fields_text_is_read_in_its_charset_else_the_bodys_else_as_latin1(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.post("/values")
    async def values(request: Request) -> list[Any]:
        return list((await request.form()).values())

    body = multipart(
        field("plain", "ężć"),
        b'Content-Disposition: form-data; name="bad"\r\n\r\n\xe9',  # not UTF-8
        b'Content-Disposition: form-data; name="own"\r\n'
        b"Content-Type: text/plain; charset=utf-16-le\r\n\r\n" + "é".encode("utf-16-le"),
    )
    client = serve(app)
    response = client.post("/values", content=body, headers=MULTIPART)
    assert (response.status_code, response.json()) == (200, ["ężć", "é", "é"])
    latin = {"content-type": f"multipart/form-data; boundary={BOUNDARY}; charset=latin-1"}
    response = client.post(
        "/values", content=multipart(field("x", "é").replace(b"\xc3\xa9", b"\xe9")), headers=latin
    )
    assert (response.status_code, response.json()) == (200, ["é"])
    # A codec that fails with its own UnicodeError (not a decoding one) falls back too.
    puny = {"content-type": f"multipart/form-data; boundary={BOUNDARY}; charset=punycode"}
    response = client.post("/values", content=multipart(field("x", "abc-9999999")), headers=puny)
    assert (response.status_code, response.json()) == (200, ["abc-9999999"])


def test_hastens_bound_on_parts_is_a_413_and_form_limits_given_both_lift_it(
    serve: ClientFactory,
) -> None:
    app = App(max_form_parts=3)

    @app.post("/default")
    async def default(request: Request) -> int:
        return len(await request.form())

    @app.post("/given")
    async def given(request: Request) -> int:
        return len(await request.form(max_fields=2, max_files=2))

    client = serve(app)
    body = multipart(
        field("a", "1"), field("b", "2"), upload("c", "c", b"c"), upload("d", "d", b"d")
    )
    response = client.post("/default", content=body, headers=MULTIPART)
    assert (response.status_code, response.json()) == (
        413,
        {"detail": "The form has more than 3 parts (max_form_parts)"},
    )
    response = client.post("/given", content=body, headers=MULTIPART)
    assert (response.status_code, response.json()) == (200, 4)
    three_files = multipart(upload("c", "c", b"c"), upload("d", "d", b"d"), upload("e", "e", b"e"))
    response = client.post("/given", content=three_files, headers=MULTIPART)
    assert (response.status_code, response.json()) == (
        400,
        {"detail": "Too many files. Maximum number of files is 2."},
    )


def test_a_parser_error_says_the_parsers_words_not_pythons() -> None:
    cause = UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    error = multipart_library.ParserError("Segment header failed to decode", cause)
    assert _reason(error) == "Segment header failed to decode"
    assert _reason(multipart_library.ParserError()) == "ParserError"


def test_lists_of_files_bytes_and_the_oauth2_form(serve: ClientFactory) -> None:
    client = serve(make_app())
    body = multipart(
        upload("files", "a.txt", b"a"), upload("files", "b.txt", b"b"), upload("raw", "r", b"rr")
    )
    response = client.post("/many", content=body, headers=MULTIPART)
    assert response.json() == {"names": ["a.txt", "b.txt"], "raw": "rr"}
    response = client.post("/many", content=multipart(field("x", "1")), headers=MULTIPART)
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {"type": "missing", "loc": ["body", "files"], "msg": "Field required", "input": None}
        ]
    }
    response = client.post(
        "/token", data={"username": "ann", "password": "pw", "scope": "read write"}
    )
    assert response.json() == {"username": "ann", "password": "pw", "scopes": ["read", "write"]}
    response = client.post("/token", data={"username": "ann", "password": "pw", "grant_type": "x"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["body", "grant_type"]


def test_empty_fields_are_read_as_fastapi_reads_them(serve: ClientFactory) -> None:
    app = App()

    @app.post("/files")
    async def files(files: list[bytes] | None = File(None)) -> dict[str, Any]:
        return {"sizes": None if files is None else [len(file) for file in files]}

    @app.post("/tags")
    async def tags(tags: list[str] = Form(), last: str = Form("default")) -> dict[str, Any]:
        return {"tags": tags, "last": last}

    @app.post("/json")
    async def json_list(items: Annotated[pydantic.Json[list[str]], Form()]) -> list[str]:
        return items

    @app.post("/tuple")
    async def pair(items: tuple = Form(), point: tuple[int, int] = Form((0, 0))) -> Any:  # type: ignore[type-arg]
        return {"items": items, "point": point}

    client = serve(app)
    # A text where bytes are asked is its bytes, and an empty one is kept in a list.
    assert client.post("/files", data={"files": ""}).json() == {"sizes": [0]}
    assert client.post("/files").json() == {"sizes": None}
    no_file = multipart(upload("files", "", b""))  # what a browser sends for nothing chosen
    assert client.post("/files", content=no_file, headers=MULTIPART).json() == {"sizes": None}
    answer = client.post("/tags", data={"tags": ["", "x"], "last": ["given", ""]})
    assert answer.json() == {"tags": ["", "x"], "last": "default"}  # the last, empty, is none
    assert client.post("/json", data={"items": '["a", "b"]'}).json() == ["a", "b"]
    answer = client.post("/tuple", data={"items": ["a", "b", "c"], "point": ["1", "2"]})
    assert answer.json() == {"items": ["a", "b", "c"], "point": [1, 2]}


class Defaults(pydantic.BaseModel):
    tags: list[str] = []


DEFAULTS = Defaults()


def test_a_default_changed_by_a_handler_is_as_declared_for_the_next_request(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.post("/model")
    async def model(data: Annotated[Defaults | None, Form()] = DEFAULTS) -> Any:
        assert data is not None
        data.tags.append("new")  # the handler's own copy, as FastAPI gives it
        return data

    @app.post("/dict")
    async def mapping(tags: Annotated[dict[str, list[str]], Body()] = {"a": []}) -> Any:  # noqa: B006
        tags["a"].append("new")
        return tags

    client = serve(app)
    for _ in range(2):
        assert client.post("/model").json() == {"tags": ["new"]}
        assert client.post("/dict").json() == {"a": ["new"]}
    assert DEFAULTS.tags == []


class WithAvatar(pydantic.BaseModel):
    name: str
    avatar: UploadFile | None = None


class Strict(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    token: str


def test_an_upload_in_a_pydantic_form_model(serve: ClientFactory) -> None:
    app = App()

    @app.post("/profile")
    async def profile(data: Annotated[WithAvatar, Form()]) -> dict[str, Any]:
        avatar = data.avatar
        return {"name": data.name, "avatar": None if avatar is None else await avatar.read()}

    @app.post("/strict")
    async def strict(data: Annotated[Strict, Form()]) -> str:
        return data.token

    client = serve(app)
    answer = client.post("/profile", data={"name": "Rick"}, files={"avatar": ("a.png", b"png")})
    assert answer.json() == {"name": "Rick", "avatar": "png"}
    answer = client.post("/profile", data={"name": "Rick", "avatar": "text"})
    assert answer.status_code == 422
    [error] = answer.json()["detail"]
    assert (error["loc"], error["msg"]) == (
        ["body", "avatar"],
        "Value error, Expected UploadFile, received: <class 'str'>",
    )
    # A file in a 422's input is what its sender may see of it: no server internals.
    answer = client.post("/strict", data={"token": "t"}, files={"extra": ("e.txt", b"e")})
    assert answer.status_code == 422
    assert answer.json()["detail"][0]["input"] == {
        "filename": "e.txt",
        "size": 1,
        "headers": {
            "content-disposition": 'form-data; name="extra"; filename="e.txt"',
            "content-type": "text/plain",
        },
    }


class TextForm(pydantic.BaseModel):
    kind: typing.Literal["text"]
    value: str


class ListForm(pydantic.BaseModel):
    kind: typing.Literal["list"]
    value: list[str]


def test_a_form_union_of_tagged_models_keeps_their_tags(serve: ClientFactory) -> None:
    app = App()
    Tagged = (
        Annotated[TextForm, pydantic.Tag("text")] | Annotated[ListForm, pydantic.Tag("list")] | None
    )

    @app.post("/")
    async def read(data: Annotated[Tagged, Form()] = None) -> Any:
        return data

    client = serve(app)
    assert client.post("/").json() is None
    answer = client.post("/", data={"kind": "list", "value": ["", "blue"]})
    assert answer.json() == {"kind": "list", "value": ["", "blue"]}
    answer = client.post("/", data={"kind": "text"})
    assert answer.status_code == 422
    assert [error["loc"] for error in answer.json()["detail"]] == [
        ["body", "text", "value"],
        ["body", "list", "kind"],
        ["body", "list", "value"],
    ]


def test_a_form_model_takes_the_whole_form(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.post("/profile", data={"name": "ann", "age": "3", "tags": ["x", "y"]})
    assert response.json() == {"name": "ann", "age": 3, "tags": ["x", "y"]}
    response = client.post("/profile", data={"name": "ann", "age": "old"})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "int_parsing",
                "loc": ["body", "age"],
                "msg": "Input should be a valid integer, unable to parse string as an integer",
                "input": "old",
            }
        ]
    }


@pytest.mark.parametrize(
    ("headers", "body", "status", "detail"),
    [
        (
            {"content-type": "application/json"},
            b"{}",
            415,
            "Expected a form body (Content-Type: multipart/form-data or "
            "application/x-www-form-urlencoded), got 'application/json'",
        ),
        (
            {"content-type": "multipart/form-data"},
            multipart(field("a", "1")),
            400,
            "Missing boundary in multipart.",
        ),
        (
            MULTIPART,
            multipart(field("a", "1"), end=False),
            400,
            "Invalid multipart data: Unexpected end of multipart stream (parser closed)",
        ),
        (
            MULTIPART,
            multipart(b'Content-Disposition: form-data; filename="x"\r\n\r\nx'),
            400,
            'The Content-Disposition header field "name" must be provided.',
        ),
        (
            MULTIPART,
            multipart(b"Content-Type: text/plain\r\n\r\nx"),
            400,
            "Invalid multipart data: Missing Content-Disposition segment header",
        ),
        (
            MULTIPART,
            multipart(*[field(f"f{n}", "v") for n in range(10_000)]),
            400,
            "Too many fields. Maximum number of fields is 1000.",
        ),
        (
            MULTIPART,
            multipart(
                b'Content-Disposition: form-data; name="f"; filename="a"\r\n'
                b"Content-Length: 1073741824\r\n\r\nx"
            ),
            413,
            "File 'a' exceeds 104857600 bytes (max_file_size)",
        ),
        (
            MULTIPART,
            multipart(field("note", "x" * 2000)),
            400,  # FastAPI's max_part_size, as FastAPI (Starlette) answers it
            "Part exceeded maximum size of 1KB.",
        ),
        (
            {"content-type": "application/x-www-form-urlencoded"},
            b"note=" + b"x" * 2000,
            400,  # FastAPI's max_part_size, as FastAPI (Starlette) answers it
            "Field exceeded maximum size of 1KB.",
        ),
        (
            {"content-type": "application/x-www-form-urlencoded"},
            b"&".join(b"a%d=1" % n for n in range(1001)),
            400,
            "Too many fields. Maximum number of fields is 1000.",
        ),
        (
            MULTIPART,
            multipart(upload("file", "big", b"x" * 3000)),
            413,
            "File 'big' exceeds 2048 bytes (max_file_size)",
        ),
        (
            {**MULTIPART, "content-length": str(1 << 30)},
            b"",
            413,
            "Request body of 1073741824 bytes exceeds the limit of 10000000 bytes",
        ),
    ],
)
def test_bad_forms_get_a_precise_error(
    serve: ClientFactory, headers: dict[str, str], body: bytes, status: int, detail: str
) -> None:
    app = make_app(max_form_field_size=1024, max_body_size=10_000_000)
    if "big" in body.decode(errors="replace"):
        app = make_app(max_file_size=2048)
    client = serve(app)
    path = "/upload" if b"filename" in body else "/raw"
    response = client.post(path, content=body, headers=headers)
    assert (response.status_code, response.json()) == (status, {"detail": detail})


class _StreamedRequest(Request):
    """A Request whose body is made as it is read: nothing holds the whole upload."""

    def __init__(self, app: App, headers: list[tuple[str, str]], chunks: AsyncIterator[bytes]):
        context = ServeContext.of(app.settings, UNSERVED.body_wait, None)
        super().__init__(context, app, None, None, "POST", "/")
        self._raw = headers
        self._source = chunks

    def _raw_headers(self) -> list[tuple[str, str]]:
        return self._raw

    def _chunks_from_server(self) -> AsyncIterator[bytes]:
        return self._source


def test_memory_stays_bounded_while_a_large_upload_streams_past_its_limit() -> None:
    app = App(max_body_size=100 * 1024 * 1024, max_file_size=1024 * 1024)
    chunk = b"x" * 65536
    sent = 0

    async def fifty_megabytes() -> AsyncIterator[bytes]:
        nonlocal sent
        yield f"--{BOUNDARY}\r\n".encode() + upload("file", "big", b"")
        for _ in range(50 * 16):
            sent += len(chunk)
            yield chunk

    async def read() -> None:
        request = _StreamedRequest(app, list(MULTIPART.items()), fifty_megabytes())
        with pytest.raises(HTTPError) as raised:
            await read_form(request, request.context.form)
        assert raised.value.detail == "File 'big' exceeds 1048576 bytes (max_file_size)"

    tracemalloc.start()
    try:
        asyncio.run(read())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sent <= 2 * 1024 * 1024  # refused as soon as the file passed its limit
    assert peak < 4 * 1024 * 1024


def test_uploads_past_the_spool_size_stream_to_disk_with_bounded_memory() -> None:
    app = App(max_body_size=100 * 1024 * 1024, form_spool_size=1024 * 1024)
    chunk = b"y" * 65536

    async def twenty_megabytes() -> AsyncIterator[bytes]:
        yield f"--{BOUNDARY}\r\n".encode() + upload("file", "big", b"")
        for _ in range(20 * 16):
            yield chunk
        yield f"\r\n--{BOUNDARY}--\r\n".encode()

    async def read() -> UploadFile:
        request = _StreamedRequest(app, list(MULTIPART.items()), twenty_megabytes())
        form = await read_form(request, request.context.form)
        file = form["file"]
        assert isinstance(file, UploadFile)
        return file

    tracemalloc.start()
    try:
        file = asyncio.run(read())
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (file.size, file._in_memory) == (20 * 1024 * 1024, False)
    assert peak < 4 * 1024 * 1024
    asyncio.run(file.close())


def test_form_and_json_body_in_one_tree_are_refused_at_registration() -> None:
    app = App()

    @dataclasses.dataclass
    class Item:
        name: str

    async def from_form(name: Annotated[str, Form()]) -> str:
        return name

    async def handler(item: Item, name: str = Depends(from_form)) -> None: ...

    with pytest.raises(TypeError, match="both a JSON body and a form"):
        app.add_api_route("/", handler, methods=["POST"])


def test_the_form_limits_are_settings() -> None:
    with pytest.raises(ValueError, match="max_form_parts must be at least 1"):
        App(max_form_parts=0)
    assert isinstance(Headers([]), Headers)


def test_openapi_documents_forms_files_and_security() -> None:
    from openapi_spec_validator import validate

    from hasten import HTTPBearer

    app = make_app()
    bearer = HTTPBearer()

    @app.post("/secured")
    async def secured(token: Any = Depends(bearer), note: Annotated[str, Form()] = "") -> str:
        return note

    asyncio.run(app.startup())
    try:
        document = app.openapi()
    finally:
        asyncio.run(app.shutdown())
    validate(document)
    paths, schemas = document["paths"], document["components"]["schemas"]
    login = paths["/login"]["post"]["requestBody"]["content"]
    # A form is an object FastAPI names Body_ and the operation's id.
    assert login["application/x-www-form-urlencoded"]["schema"] == {
        "$ref": "#/components/schemas/Body_login_login_post"
    }
    assert schemas["Body_login_login_post"]["required"] == ["username", "age"]
    files = paths["/many"]["post"]["requestBody"]["content"]["multipart/form-data"]["schema"]
    assert files == {"$ref": "#/components/schemas/Body_many_many_post"}
    binary = {"type": "string", "contentMediaType": "application/octet-stream"}
    many = schemas["Body_many_many_post"]["properties"]
    assert many["files"] == {"type": "array", "items": binary, "title": "Files"}
    assert many["raw"] == {"anyOf": [binary, {"type": "null"}], "title": "Raw"}
    assert paths["/secured"]["post"]["security"] == [{"HTTPBearer": []}]
    assert document["components"]["securitySchemes"] == {
        "HTTPBearer": {"type": "http", "scheme": "bearer"}
    }


def names_app() -> App:
    from pydantic import AliasChoices

    app = App()

    @app.post("/checkbox")
    async def checkbox(
        value: Annotated[
            bool, Form(alias="legacy", validation_alias=AliasChoices("enabled", "checkbox"))
        ] = False,
    ) -> Any:
        return {"value": value}

    @app.post("/list")
    async def many(value: Annotated[list[str] | None, Form()]) -> Any:
        return {"value": value}

    @app.post("/numbers")
    async def numbers(value: Annotated[list[int] | None, Form()] = None) -> Any:
        return {"value": value}

    @app.post("/files")
    async def files(
        files: Annotated[
            list[UploadFile], File(validation_alias=AliasChoices("primary", "secondary"))
        ],
    ) -> Any:
        return [item.filename for item in files]

    return app


def test_a_form_field_is_read_by_the_first_of_its_names_with_a_value(
    serve: ClientFactory,
) -> None:
    client = serve(names_app())
    assert client.post("/checkbox", data={"checkbox": "on"}).json() == {"value": True}
    # An empty field is none: the next name is read.
    assert client.post("/checkbox", data={"enabled": "", "checkbox": "on"}).json() == {
        "value": True
    }
    assert client.post("/checkbox", data={"legacy": "on"}).json() == {"value": False}
    assert client.post("/checkbox", data={"checkbox": "maybe"}).json() == {
        "detail": [
            {
                "type": "bool_parsing",
                "loc": ["body", "checkbox"],
                "msg": "Input should be a valid boolean, unable to interpret input",
                "input": "maybe",
            }
        ]
    }


def test_a_list_keeps_its_empty_items(serve: ClientFactory) -> None:
    client = serve(names_app())
    # Each item as sent (the empty ones were dropped: [""] read as missing, a 422).
    assert client.post("/list", data={"value": ["", "hello"]}).json() == {"value": ["", "hello"]}
    assert client.post("/list", data={"value": [""]}).json() == {"value": [""]}
    assert client.post("/numbers", data={"value": ""}).json() == {
        "detail": [
            {
                "type": "int_parsing",
                "loc": ["body", "value", 0],
                "msg": "Input should be a valid integer, unable to parse string as an integer",
                "input": "",
            }
        ]
    }


def test_each_text_item_of_a_file_list_is_named_by_its_index(serve: ClientFactory) -> None:
    client = serve(names_app())
    files: list[tuple[str, tuple[str | None, bytes | str]]] = [
        ("secondary", ("a.txt", b"a")),
        ("secondary", (None, "text")),
    ]
    assert client.post("/files", files=files).json() == {
        "detail": [
            {
                "type": "value_error",
                "loc": ["body", "secondary", 1],
                "msg": "Value error, Expected UploadFile, received: <class 'str'>",
                "input": "text",
                "ctx": {"error": {}},  # FastAPI's: its validator's ValueError, as JSON
            }
        ]
    }
    assert client.post("/files", files=files[:1]).json() == ["a.txt"]


def test_an_empty_part_and_an_empty_body(serve: ClientFactory) -> None:
    client = serve(make_app())
    # An empty field sent as a multipart part (it was a 400 through the TestClient's RSGI).
    response = client.post(
        "/login", files={"username": (None, "ann"), "age": (None, ""), "x": (None, "")}
    )
    assert response.json() == {
        "detail": [
            {"type": "missing", "loc": ["body", "age"], "msg": "Field required", "input": None}
        ]
    }
    # No body at all is an empty form, as Starlette reads it (it was a 400).
    response = client.post("/login", content=b"", headers=MULTIPART)
    assert response.status_code == 422
    assert [error["loc"] for error in response.json()["detail"]] == [
        ["body", "username"],
        ["body", "age"],
    ]


def test_request_form_takes_starlettes_limits_and_closes_its_files(serve: ClientFactory) -> None:
    app = App(form_limits={"max_fields": 0})
    seen: list[UploadFile] = []

    @app.post("/manual")
    async def manual(request: Request) -> Any:
        async with request.form(max_fields=1) as form:
            file = form["file"]
            assert isinstance(file, UploadFile)
            seen.append(file)
            return {"text": form["text"], "closed": file.file.closed}

    client = serve(app)
    files = {"file": ("a.txt", b"a")}
    answer = client.post("/manual", data={"text": "ok"}, files=files)
    assert answer.json() == {"text": "ok", "closed": False}
    assert seen[0].file.closed  # at the end of the `async with`
    answer = client.post("/manual", data={"text": "ok", "more": "no"}, files=files)
    assert answer.status_code == 400  # over the limit given to form(), FastAPI's status
    assert answer.json() == {"detail": "Too many fields. Maximum number of fields is 1."}


def test_the_apps_form_limits_are_its_own_copy(serve: ClientFactory) -> None:
    limits: FormLimitsKeywords = {"max_fields": 1}
    app = App(form_limits=limits)
    limits["max_fields"] = 0

    @app.post("/")
    async def field(text: Annotated[str, Form()]) -> str:
        return text

    assert serve(app).post("/", data={"text": "ok"}).json() == "ok"
