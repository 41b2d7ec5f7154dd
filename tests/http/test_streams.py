"""Streams and Server-Sent Events: sync sources on the thread pool, a departed client stops the
stream and closes its source, events encoded as EventSource reads them, keep-alive pings."""

from __future__ import annotations

import asyncio
import threading
import time
import types
import typing
from collections.abc import AsyncIterator, Generator, Iterator, MutableMapping
from typing import Any

import anyio
import pydantic
import pytest

from hasten import App, EventSourceResponse, Header, Request, ServerSentEvent, StreamingResponse
from hasten._http.responses import InThreads
from hasten.requests import Request as StarletteRequest
from hasten.responses import PlainTextResponse
from hasten.sse import format_sse_event
from hasten.testing import TestClient
from hasten.types import Receive, Scope, Send
from tests.conftest import ClientFactory
from tests.recording import RecordingTransport, request_for


def test_a_sync_source_runs_on_the_apps_thread_pool(serve: ClientFactory) -> None:
    app = App()

    def names() -> Iterator[str]:
        for _ in range(3):
            yield threading.current_thread().name + "\n"

    @app.get("/names")
    async def stream() -> StreamingResponse:
        return StreamingResponse(names(), media_type="text/plain")

    lines = serve(app).get("/names").text.splitlines()
    assert len(lines) == 3
    assert all(line.startswith("hasten-thread") for line in lines), lines


def test_a_stream_stops_and_its_generator_closes_when_the_client_leaves() -> None:
    events: list[str] = []

    async def forever() -> AsyncIterator[bytes]:
        try:
            while True:
                yield b"tick"
                await asyncio.sleep(0.01)
        finally:
            events.append("closed")

    async def scenario() -> None:
        transport = RecordingTransport()
        baseline = len(asyncio.all_tasks())
        sending = asyncio.ensure_future(
            StreamingResponse(forever()).send(transport, request_for(transport))
        )
        await asyncio.sleep(0.05)
        assert transport.gone is not None
        transport.gone.set()  # the client leaves
        await asyncio.wait_for(sending, 1)
        assert events == ["closed"]
        assert len(transport.chunks) >= 2
        await asyncio.sleep(0)
        assert len(asyncio.all_tasks()) == baseline

    asyncio.run(scenario())


def test_a_sync_generator_is_closed_after_its_running_step_when_the_client_leaves() -> None:
    events: list[str] = []

    def slow() -> Iterator[bytes]:
        try:
            while True:
                time.sleep(0.02)
                yield b"x"
        finally:
            events.append("closed")

    async def scenario() -> None:
        transport = RecordingTransport()
        sending = asyncio.ensure_future(
            StreamingResponse(slow()).send(transport, request_for(transport))
        )
        await asyncio.sleep(0.1)
        assert transport.gone is not None
        transport.gone.set()
        await asyncio.wait_for(sending, 1)
        for _ in range(100):
            if events:
                break
            await asyncio.sleep(0.01)
        assert events == ["closed"]

    asyncio.run(scenario())


def test_a_failing_source_propagates_its_error() -> None:
    async def broken() -> AsyncIterator[bytes]:
        yield b"a"
        raise ValueError("boom")

    async def scenario() -> None:
        transport = RecordingTransport()
        with pytest.raises(ValueError, match="boom"):
            await StreamingResponse(broken()).send(transport, request_for(transport))

    asyncio.run(scenario())


def test_a_sync_source_without_close_and_an_unrun_one() -> None:
    async def scenario() -> None:
        transport = RecordingTransport()
        await StreamingResponse([b"a", "b"]).send(transport, request_for(transport))
        assert transport.chunks == [b"a", b"b"]
        closed: list[bool] = []

        def never() -> Generator[bytes, None, None]:
            try:
                yield b"x"
            finally:
                closed.append(True)

        generator = never()
        source = InThreads(generator, None)
        await source.aclose()  # before it ever ran
        assert typing.cast("types.GeneratorType[bytes, None, None]", generator).gi_frame is None

    asyncio.run(scenario())


# Server-Sent Events.
@pytest.mark.parametrize(
    ("event", "wire"),
    [
        (ServerSentEvent("hello"), b'data: "hello"\n\n'),  # data is JSON, as FastAPI's
        (ServerSentEvent(raw_data="hello"), b"data: hello\n\n"),
        (ServerSentEvent(raw_data="a\nb\r\nc\rd"), b"data: a\ndata: b\ndata: c\ndata: d\n\n"),
        # FastAPI's order and spacing: event, data, id, retry; data as json.dumps writes it.
        (
            ServerSentEvent({"n": 1}, event="tick", id="7"),
            b'event: tick\ndata: {"n": 1}\nid: 7\n\n',
        ),
        (ServerSentEvent(raw_data="x", id="1", retry=5), b"data: x\nid: 1\nretry: 5\n\n"),
        (ServerSentEvent(retry=3000), b"retry: 3000\n\n"),
        (ServerSentEvent(comment="keep\nwarm"), b": keep\n: warm\n\n"),
        (ServerSentEvent(raw_data=""), b"data: \n\n"),
    ],
)
def test_events_are_encoded_line_by_line(event: ServerSentEvent, wire: bytes) -> None:
    assert event.encode() == wire


@pytest.mark.parametrize(
    "kwargs",
    [{"id": "a\nb"}, {"event": "x\ry"}, {"id": "\0"}, {"retry": -1}, {"raw_data": "x"}],
)
def test_invalid_event_fields_are_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the message names the field
        ServerSentEvent("x", **kwargs)  # type: ignore[arg-type]


def test_an_event_stream_with_last_event_id(serve: ClientFactory) -> None:
    app = App()

    @app.get("/events")
    async def events(last_event_id: int = Header(0)) -> EventSourceResponse:
        async def source() -> AsyncIterator[object]:
            for number in range(last_event_id + 1, last_event_id + 3):
                yield ServerSentEvent(number, id=str(number))
            yield "done"
            yield b": raw\n\n"

        return EventSourceResponse(source(), ping=None)

    client = serve(app)
    response = client.get("/events", headers={"last-event-id": "5"})
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["cache-control"] == "no-cache"
    assert "content-length" not in response.headers
    assert response.text == "data: 6\nid: 6\n\ndata: 7\nid: 7\n\ndata: done\n\n: raw\n\n"


def test_a_quiet_source_gets_keep_alive_pings() -> None:
    async def quiet() -> AsyncIterator[str]:
        await asyncio.sleep(0.25)
        yield "late"

    async def scenario() -> None:
        transport = RecordingTransport()
        await EventSourceResponse(quiet(), ping=0.1).send(transport, request_for(transport))
        assert transport.chunks == [b": ping\n\n", b": ping\n\n", b"data: late\n\n"]

    asyncio.run(scenario())


def test_ping_must_be_positive() -> None:
    with pytest.raises(ValueError, match="ping"):
        EventSourceResponse([], ping=0)


def test_is_disconnected_through_both_adapters(serve: ClientFactory) -> None:
    app = App()

    @app.get("/check")
    async def check(request: Request) -> dict[str, bool]:
        return {"gone": await request.is_disconnected()}

    assert serve(app).get("/check").json() == {"gone": False}


def test_a_request_whose_response_is_complete_is_disconnected() -> None:
    """After its response, a client's departure is known: ``is_disconnected()`` says so at
    once (Starlette's test: the server's receive gives ``http.disconnect`` then)."""
    seen: list[bool] = []

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        request = StarletteRequest(scope, receive)
        await request.body()
        seen.append(await request.is_disconnected())
        await PlainTextResponse("done")(scope, receive, send)
        seen.append(await request.is_disconnected())

    assert TestClient(app).post("/", content=b"x").text == "done"
    assert seen == [False, True]


class Measured(pydantic.BaseModel):
    value: float


class MeasuredAsText(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(ser_json_inf_nan="strings")
    value: float


def test_stream_items_are_written_as_fastapi_writes_them(serve: ClientFactory) -> None:
    app = App()
    items: list[object] = [
        float("nan"),
        {"nested": [float("inf"), {"value": float("-inf")}]},
        Measured(value=float("nan")),
        {"keys": {None: "null key", float("inf"): "infinite key"}, "text": "NaN"},
    ]

    @app.get("/jsonl")
    @app.get("/sse", response_class=EventSourceResponse)
    async def undeclared():  # type: ignore[no-untyped-def]  # no annotation: FastAPI's json.dumps
        for item in items:
            yield item

    @app.get("/typed")
    @app.get("/typed-sse", response_class=EventSourceResponse)
    async def typed() -> AsyncIterator[MeasuredAsText]:
        yield MeasuredAsText(value=float("nan"))  # the model's own JSON settings hold

    @app.get("/events", response_class=EventSourceResponse)
    async def events() -> AsyncIterator[ServerSentEvent]:
        yield ServerSentEvent(data={"key": "value", "none": float("nan")}, event="e", id="1")
        yield ServerSentEvent(data=MeasuredAsText(value=float("inf")))

    client = serve(app)
    undeclared_lines = [
        "null",
        '{"nested": [null, {"value": null}]}',
        '{"value": null}',
        '{"keys": {"null": "null key", "Infinity": "infinite key"}, "text": "NaN"}',
    ]
    assert client.get("/jsonl").text == "".join(f"{line}\n" for line in undeclared_lines)
    assert client.get("/sse").text == "".join(f"data: {line}\n\n" for line in undeclared_lines)
    assert client.get("/typed").text == '{"value":"NaN"}\n'
    assert client.get("/typed-sse").text == 'data: {"value":"NaN"}\n\n'
    assert client.get("/events").text == (
        'event: e\ndata: {"key": "value", "none": null}\nid: 1\n\ndata: {"value":"Infinity"}\n\n'
    )


def test_a_stream_that_never_awaits_can_be_cancelled() -> None:
    app = App()

    @app.get("/forever", response_class=StreamingResponse)
    async def forever() -> AsyncIterator[str]:
        number = 0
        while True:
            yield f"{number}\n"
            number += 1

    sent: list[bytes] = []

    async def receive() -> dict[str, object]:
        await anyio.sleep_forever()
        raise AssertionError  # never reached

    async def send(message: MutableMapping[str, Any]) -> None:
        sent.append(message.get("body", b""))

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "path": "/forever",
        "raw_path": b"/forever",
        "query_string": b"",
        "root_path": "",
        "headers": [],
        "server": ("test", 80),
    }

    async def cancelled() -> bool:
        async with app.running():
            with anyio.move_on_after(0.2) as scope_of_request:
                await app(scope, receive, send)
        return scope_of_request.cancelled_caught

    assert anyio.run(cancelled)
    assert sent[1:3] == [b"0\n", b"1\n"]


def test_format_sse_event_and_fastapis_refusals() -> None:
    assert format_sse_event(data_str="a\nb", event="e", id="1", retry=3, comment="c") == (
        b": c\nevent: e\ndata: a\ndata: b\nid: 1\nretry: 3\n\n"
    )
    with pytest.raises(ValueError, match="SSE 'id' must not contain null characters"):
        ServerSentEvent("x", id="a\0b")
    with pytest.raises(ValueError, match="SSE 'event' must be a single line"):
        ServerSentEvent("x", event="a\r\nb")
    with pytest.raises(ValueError, match="Cannot set both 'data' and 'raw_data'"):
        ServerSentEvent("x", raw_data="y")
