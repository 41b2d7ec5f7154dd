"""Response kinds: their headers, and what each sends through a transport (unit level)."""

from __future__ import annotations

import asyncio
import logging
import pathlib
import re
import types
import typing
from collections.abc import AsyncGenerator, AsyncIterator

import pytest

from hasten import (
    App,
    BackgroundTasks,
    FileResponse,
    HTMLResponse,
    JSONResponse,
    MutableHeaders,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from hasten.background import BackgroundTask
from hasten.errors import FastAPIDeprecationWarning
from hasten.responses import ORJSONResponse, UJSONResponse
from tests.conftest import ClientFactory
from tests.recording import RecordingTransport, Sent, request_for


def test_bytes_body_has_no_content_type_by_default() -> None:
    response = Response(b"x")
    assert response.wire_headers == []
    assert response.media_type is None
    assert repr(response) == "<Response 200 None 1 bytes>"


def test_str_body_defaults_to_text_plain_utf8() -> None:
    response = Response("é")
    assert response.body == "é".encode()
    assert response.wire_headers == [("content-type", "text/plain; charset=utf-8")]


def test_charset_is_not_added_twice() -> None:
    response = Response("x", media_type="text/html; charset=latin-1")
    assert response.headers["content-type"] == "text/html; charset=latin-1"


def test_shared_content_type_list_is_never_mutated() -> None:
    first = Response(b"{}", media_type="application/json")
    first.headers["x-one"] = "1"
    second = Response(b"{}", media_type="application/json")
    assert second.wire_headers == [("content-type", "application/json")]


def test_headers_set_append_delete() -> None:
    response = Response(b"", headers={"X-A": "1"})
    headers = response.headers
    headers["x-a"] = "2"
    headers.append("set-cookie", "a=1")
    headers.append("Set-Cookie", "b=2")
    assert headers.setdefault("x-b", "3") == "3"
    assert headers.setdefault("x-b", "4") == "3"
    assert headers.get_all("set-cookie") == ["a=1", "b=2"]
    del headers["X-B"]
    with pytest.raises(KeyError):
        del headers["x-missing"]
    assert response.wire_headers == [("x-a", "2"), ("set-cookie", "a=1"), ("set-cookie", "b=2")]
    assert isinstance(headers, MutableHeaders)
    assert len(headers) == 3  # every pair, as Starlette's
    assert list(headers) == ["x-a", "set-cookie", "set-cookie"]
    assert "X-A" in headers
    assert object() not in headers


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("x-a", "1\r\nSet-Cookie: evil=1", "value holds '\\r'"),
        ("x-a", "1\nX-B: 2", "value holds '\\n'"),
        ("x-a", "1\x002", "value holds '\\x00'"),
        ("x-a\r\nx-b", "1", "name holds '\\r'"),
    ],
)
def test_a_header_that_no_server_can_send_is_refused_where_it_is_set(
    name: str, value: str, said: str
) -> None:
    message = re.escape(f"Response header {name!r}: its {said}")
    response = Response(b"")
    for setting in (
        lambda: response.headers.__setitem__(name, value),
        lambda: response.headers.append(name, value),
        lambda: response.headers.setdefault(name, value),
        lambda: Response(b"", headers={name: value}),
    ):
        with pytest.raises(ValueError, match=message):
            setting()
    assert response.wire_headers == []
    response.headers["x-tab"] = "a\tb"  # a tab, and text beyond ASCII, are allowed
    response.headers["x-text"] = "café"
    assert response.wire_headers == [("x-tab", "a\tb"), ("x-text", "café")]


def test_a_cookie_or_media_type_that_would_split_the_response_is_refused() -> None:
    with pytest.raises(ValueError, match="Response header 'set-cookie'"):
        Response(b"").set_cookie("session", "v", path="/\r\nSet-Cookie: evil=1")
    with pytest.raises(ValueError, match="Response header 'content-type'"):
        Response(b"", media_type="text/html\r\nX-A: 1")
    # Values the cookie module quotes itself are fine, CR LF included.
    response = Response(b"")
    response.set_cookie("session", "a\r\nb")
    assert response.wire_headers == [("set-cookie", 'session="a\\015\\012b"; Path=/; SameSite=lax')]


def test_a_handler_setting_such_a_header_is_a_logged_500(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    @app.get("/echo")
    async def echo(value: str) -> Response:
        return Response(b"ok", headers={"x-echo": value})

    client = serve(app, raise_server_exceptions=False)
    with caplog.at_level(logging.ERROR, logger="hasten.error"):
        response = client.get("/echo", params={"value": "a\r\nSet-Cookie: evil=1"})
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    assert "set-cookie" not in response.headers
    assert [record.exc_info[0] for record in caplog.records if record.exc_info] == [ValueError]
    assert "Response header 'x-echo'" in caplog.text


def test_json_response() -> None:
    response = JSONResponse({"a": [1, None]}, status=201, headers={"x": "y"})
    assert response.body == b'{"a":[1,null]}'
    assert response.status == 201
    assert response.wire_headers == [("content-type", "application/json"), ("x", "y")]


def test_redirect_response() -> None:
    response = RedirectResponse("/elsewhere", status=308)
    assert response.status == 308
    assert response.headers["location"] == "/elsewhere"


# Sending: what each kind hands its transport (the wire itself: tests/servers/e2e/test_sending.py).
def send(response: Response, head: bool = False) -> Sent:
    transport = RecordingTransport()
    asyncio.run(response.send(transport, request_for(transport, "HEAD" if head else "GET")))
    assert transport.sent is not None
    return transport.sent


def test_a_plain_response_goes_out_as_built() -> None:
    response = Response("hi")
    sent = send(response)
    assert sent == Sent("bytes", 200, [("content-type", "text/plain; charset=utf-8")], b"hi")
    assert sent.headers is response.wire_headers  # the server adds Content-Length


def test_head_empties_the_body_and_gives_its_length() -> None:
    sent = send(Response("hello"), head=True)
    assert sent == Sent(
        "bytes",
        200,
        [("content-type", "text/plain; charset=utf-8"), ("content-length", "5")],
        b"",
    )


def test_head_answered_by_hand_keeps_its_length() -> None:
    sent = send(Response(b"", headers={"content-length": "1234"}), head=True)
    assert sent == Sent("bytes", 200, [("content-length", "1234")], b"")


@pytest.mark.parametrize("status", [204, 304])
def test_no_body_statuses_send_neither_body_nor_length(status: int) -> None:
    sent = send(Response(b"ignored", status, headers={"content-length": "7", "etag": '"x"'}))
    assert sent == Sent("bytes", status, [("etag", '"x"')], b"")


def test_a_length_set_by_hand_is_never_sent_twice() -> None:
    sent = send(Response(b"abc", headers={"Content-Length": "99"}))
    assert sent == Sent("bytes", 200, [("content-length", "3")], b"abc")


def test_streaming_response_sends_chunks_and_closes_its_generator() -> None:
    closed: list[bool] = []

    async def chunks() -> AsyncIterator[str | bytes]:
        try:
            yield "a"
            yield b"b"
        finally:
            closed.append(True)

    sent = send(StreamingResponse(chunks(), media_type="text/plain"))
    assert sent == Sent("stream", 200, [("content-type", "text/plain; charset=utf-8")], b"ab")
    assert closed == [True]


def test_streaming_response_from_a_sync_iterable() -> None:
    chunks: list[bytes | str] = [b"x", "y"]
    sent = send(StreamingResponse(iter(chunks)))
    assert (sent.kind, sent.body) == ("stream", b"xy")


def test_streaming_head_sends_headers_only_and_closes_the_generator_unrun() -> None:
    produced: list[bytes] = []

    async def chunks() -> AsyncGenerator[bytes, None]:
        produced.append(b"never sent")
        yield b"never sent"

    generator = chunks()
    sent = send(StreamingResponse(generator), head=True)
    assert sent == Sent("stream", 200, [], b"")
    assert produced == []
    assert typing.cast(types.AsyncGeneratorType[bytes, None], generator).ag_frame is None


def test_file_response_hands_the_server_the_path(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes(b"0123456789")
    sent = send(FileResponse(path))
    assert (sent.kind, sent.status, sent.file) == ("file", 200, (str(path), 0, None))
    assert sent.headers[0] == ("content-type", "text/plain; charset=utf-8")
    assert [name for name, _ in sent.headers[1:]] == [
        "accept-ranges",
        "last-modified",
        "etag",
        "content-length",
    ]
    assert sent.headers[-1] == ("content-length", "10")
    head = send(FileResponse(path), head=True)
    assert head == Sent("bytes", 200, sent.headers, b"")
    assert repr(FileResponse(path, media_type="x/y")) == f"<FileResponse 200 x/y {str(path)!r}>"


def test_other_kinds() -> None:
    assert send(PlainTextResponse("t")).headers == [("content-type", "text/plain; charset=utf-8")]
    assert send(HTMLResponse("<p>")).headers == [("content-type", "text/html; charset=utf-8")]
    assert repr(StreamingResponse([])) == "<StreamingResponse 200 None>"


def test_starlette_keywords_content_media_type_and_render() -> None:
    xml = Response(content="<a/>", media_type="application/xml", status_code=201)
    assert (xml.status, xml.body, xml.media_type) == (201, b"<a/>", "application/xml")
    assert xml.wire_headers == [("content-type", "application/xml")]
    assert Response().body == b""
    assert JSONResponse(None).body == b"null"  # JSON's null, not an empty body
    with pytest.raises(TypeError, match="Response sends bytes or str, not dict"):
        Response({"a": 1})

    class IndentedJSON(Response):
        media_type = "application/json"

        def render(self, content: object) -> bytes:
            return f"<{content}>".encode()

    custom = IndentedJSON({"a": 1})
    assert (custom.body, custom.media_type) == (b"<{'a': 1}>", "application/json")
    assert custom.wire_headers == [("content-type", "application/json")]


def test_other_json_encoders_work_and_are_deprecated_as_in_fastapi() -> None:
    with pytest.warns(FastAPIDeprecationWarning, match="^ORJSONResponse is deprecated"):
        assert ORJSONResponse({1: "é"}).body == '{"1":"é"}'.encode()
    with pytest.warns(FastAPIDeprecationWarning, match="^UJSONResponse is deprecated"):
        assert UJSONResponse({"a": "é"}).body == '{"a":"é"}'.encode()
    assert ORJSONResponse.media_type == UJSONResponse.media_type == "application/json"


def test_set_and_delete_cookie() -> None:
    response = JSONResponse({})
    response.set_cookie("session", "a b", max_age=60, httponly=True, secure=True)
    response.set_cookie("plain", "v", path=None, samesite=None, partitioned=True)
    response.delete_cookie("old")
    cookies = [value for name, value in response.wire_headers if name == "set-cookie"]
    assert cookies[0] == 'session="a b"; HttpOnly; Max-Age=60; Path=/; SameSite=lax; Secure'
    assert cookies[1] == "plain=v; Partitioned"
    assert cookies[2].startswith('old=""; expires=')
    assert cookies[2].endswith(" GMT; Max-Age=0; Path=/; SameSite=lax")
    with pytest.raises(ValueError, match="samesite"):
        response.set_cookie("x", samesite="loose")  # type: ignore[arg-type]


def test_raw_headers_are_starlettes_latin_1_bytes_and_setting_them_checks_each() -> None:
    response = Response(b"", 204)
    response.set_cookie("session", "t")
    response.headers["x-name"] = "café"
    assert response.raw_headers == [
        (b"set-cookie", b"session=t; Path=/; SameSite=lax"),
        (b"x-name", "café".encode("latin-1")),
    ]
    response.raw_headers = [(b"X-One", b"1"), (b"x-two", "é".encode("latin-1"))]
    assert response.wire_headers == [("x-one", "1"), ("x-two", "é")]
    assert response.headers["x-one"] == "1"
    with pytest.raises(ValueError, match="x-bad"):
        response.raw_headers = [(b"x-bad", b"a\r\nb")]


def test_redirect_takes_url_and_quotes_it() -> None:
    redirect = RedirectResponse(url="/a b?q=1")
    assert (redirect.status, redirect.wire_headers) == (307, [("location", "/a%20b?q=1")])
    assert RedirectResponse("/x", status_code=302).status == 302


def test_cookies_background_and_content_through_the_app(serve: ClientFactory) -> None:
    app = App()
    done: list[str] = []

    @app.post("/cookie")
    def cookie() -> JSONResponse:
        tasks = BackgroundTasks()
        tasks.add_task(done.append, "sent")
        response = JSONResponse(content={"message": "cookies"}, background=tasks)
        response.set_cookie(key="fakesession", value="fake-cookie-session-value")
        return response

    @app.get("/legacy")
    def legacy() -> Response:
        return Response(content="<shampoo/>", media_type="application/xml")

    client = serve(app)
    answer = client.post("/cookie")
    assert (answer.status_code, answer.json()) == (200, {"message": "cookies"})
    assert (
        answer.headers["set-cookie"]
        == "fakesession=fake-cookie-session-value; Path=/; SameSite=lax"
    )
    assert answer.cookies["fakesession"] == "fake-cookie-session-value"
    assert done == ["sent"]
    legacy_answer = client.get("/legacy")
    assert (legacy_answer.status_code, legacy_answer.text) == (200, "<shampoo/>")
    assert legacy_answer.headers["content-type"] == "application/xml"


def test_file_response_takes_starlettes_arguments(
    serve: ClientFactory, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "report.txt"
    path.write_text("report")
    app = App()
    done: list[str] = []

    @app.get("/report")
    async def report() -> FileResponse:
        tasks = BackgroundTasks()
        tasks.add_task(done.append, "sent")
        return FileResponse(path, 200, None, None, tasks, "Report.txt")

    answer = serve(app).get("/report")
    assert (answer.status_code, answer.text) == (200, "report")
    assert answer.headers["content-disposition"] == 'attachment; filename="Report.txt"'
    assert done == ["sent"]


def test_one_background_task_runs_after_the_response(serve: ClientFactory) -> None:
    app = App()
    done: list[str] = []

    async def note(what: str, *, where: str) -> None:
        done.append(f"{what} {where}")

    @app.get("/one")
    def one() -> Response:
        return PlainTextResponse("sent", background=BackgroundTask(note, "task", where="after"))

    response = serve(app).get("/one")
    assert (response.status_code, response.text, done) == (200, "sent", ["task after"])
    tasks = BackgroundTasks([BackgroundTask(done.append, "first")])
    tasks.add_task(done.append, "second")
    asyncio.run(tasks())
    assert done[1:] == ["first", "second"]
    assert [task.func for task in tasks.tasks] == [done.append, done.append]


def test_a_background_task_with_a_call_of_its_own_is_awaited_as_it_is(
    serve: ClientFactory,
) -> None:
    """Starlette's BackgroundTasks await each ``task()``: a subclass's ``__call__`` runs."""
    app = App()
    done: list[str] = []

    class Announced(BackgroundTask):
        async def __call__(self) -> None:
            done.append("before")
            await super().__call__()
            done.append("after")

    @app.get("/")
    def endpoint() -> Response:
        tasks = BackgroundTasks([Announced(done.append, "task")])
        tasks.add_task(done.append, "plain")
        return PlainTextResponse("sent", background=tasks)

    assert serve(app).get("/").text == "sent"
    assert done == ["before", "task", "after", "plain"]


def test_a_response_is_an_asgi_app(serve: ClientFactory, tmp_path: pathlib.Path) -> None:
    # Starlette's: an ASGI middleware answers with ``await response(scope, receive, send)``,
    # the response's background task after it; hasten's Response raised TypeError (a 500).
    done: list[str] = []
    (tmp_path / "page.txt").write_text("from a file")

    async def chunks() -> AsyncIterator[bytes]:
        yield b"one "
        yield b"two"

    answers: dict[str, Response] = {
        "/text": PlainTextResponse("blocked", 403, background=BackgroundTask(done.append, "after")),
        "/json": JSONResponse({"ok": False}, 429, {"retry-after": "1"}),
        "/stream": StreamingResponse(chunks(), media_type="text/plain"),
        "/file": FileResponse(tmp_path / "page.txt"),
    }

    class Gate:
        def __init__(self, app: typing.Any) -> None:
            self.app = app

        async def __call__(self, scope: typing.Any, receive: typing.Any, send: typing.Any) -> None:
            answer = answers.get(scope.get("path", ""))
            if scope["type"] != "http" or answer is None:
                await self.app(scope, receive, send)
                return
            await answer(scope, receive, send)

    app = App()
    app.add_middleware(Gate)

    @app.get("/through")
    async def through() -> str:
        return "app"

    client = serve(app)
    response = client.get("/text")
    assert (response.status_code, response.text, done) == (403, "blocked", ["after"])
    assert response.headers["content-type"] == "text/plain; charset=utf-8"
    response = client.get("/json")
    assert (response.status_code, response.json()) == (429, {"ok": False})
    assert response.headers["retry-after"] == "1"
    response = client.get("/stream")
    assert (response.status_code, response.text) == (200, "one two")
    response = client.get("/file")
    assert (response.status_code, response.text) == (200, "from a file")
    assert client.get("/through").json() == "app"
