"""Starlette's side of the streams benchmarks (see ``streams_hasten`` for the paths), written
as Starlette's docs show; Server-Sent Events with sse-starlette, the usual companion."""

from __future__ import annotations

from collections.abc import AsyncIterator

from sse_starlette.sse import EventSourceResponse, ServerSentEvent
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from .streams_data import BIG_NAME, EVENTS_PER_STREAM, ensure

DATA = ensure()


async def hello(request: Request) -> JSONResponse:
    return JSONResponse({"message": "hello"})


async def big(request: Request) -> FileResponse:
    return FileResponse(DATA / BIG_NAME)


async def events(request: Request) -> EventSourceResponse:
    async def source() -> AsyncIterator[ServerSentEvent]:
        for number in range(EVENTS_PER_STREAM):
            yield ServerSentEvent(data=f"event {number}", id=str(number))

    return EventSourceResponse(source(), ping=3600)


async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    async for text in websocket.iter_text():
        await websocket.send_text(text)


app = Starlette(
    routes=[
        Route("/hello", hello),
        Route(f"/static/{BIG_NAME}", big),
        Route("/events", events),
        WebSocketRoute("/echo", echo),
        Mount("/static", StaticFiles(directory=DATA)),
    ]
)
