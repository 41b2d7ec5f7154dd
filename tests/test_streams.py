"""Streams and Server-Sent Events: sync sources on the thread pool, a departed client stops the
stream and closes its source, events encoded as EventSource reads them, keep-alive pings."""

from __future__ import annotations

import asyncio
import threading
import time
import types
import typing
from collections.abc import AsyncIterator, Generator, Iterator

import pytest

from hasten import App, EventSourceResponse, Header, Request, ServerSentEvent, StreamingResponse
from hasten.responses import InThreads
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
        (ServerSentEvent({"n": 1}, event="tick", id="7"), b'event: tick\nid: 7\ndata: {"n":1}\n\n'),
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
    assert response.text == "id: 6\ndata: 6\n\nid: 7\ndata: 7\n\ndata: done\n\n: raw\n\n"


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
