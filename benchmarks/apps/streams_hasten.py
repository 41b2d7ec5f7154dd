"""hasten's side of the streams benchmarks: ``benchmarks.apps.streams_hasten:app``.

- ``GET /static/big.bin``: the 10 MB file, as a ``FileResponse``
- ``GET /static/asset.css``: the 4 KB asset, from ``StaticFiles`` mounted at ``/static``
- ``GET /events``: Server-Sent Events, ``EVENTS_PER_STREAM`` of them as fast as they go
- ``WS /echo``: a WebSocket echoing every text message
- ``GET /hello``: ``{"message": "hello"}`` (``app_asgi_mw``: the same behind an ASGI middleware)
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from hasten import App, EventSourceResponse, FileResponse, ServerSentEvent, StaticFiles, WebSocket

from .streams_data import BIG_NAME, EVENTS_PER_STREAM, ensure

DATA = ensure()


def build() -> App:
    app = App()

    @app.get("/hello")
    async def hello() -> dict[str, str]:
        return {"message": "hello"}

    @app.get(f"/static/{BIG_NAME}")
    async def big() -> FileResponse:
        return FileResponse(DATA / BIG_NAME)

    @app.get("/events")
    async def events() -> EventSourceResponse:
        async def source() -> AsyncIterator[ServerSentEvent]:
            for number in range(EVENTS_PER_STREAM):
                yield ServerSentEvent(f"event {number}", id=str(number))

        return EventSourceResponse(source(), ping=None)

    @app.websocket("/echo")
    async def echo(websocket: WebSocket) -> None:
        await websocket.accept()
        async for text in websocket.iter_text():
            await websocket.send_text(text)

    app.mount("/static", StaticFiles(directory=DATA))
    return app


class PassThrough:
    """A pure ASGI middleware that does nothing: what the RSGI -> ASGI bridge costs alone."""

    def __init__(self, app: object) -> None:
        self.app = app

    async def __call__(self, scope: object, receive: object, send: object) -> None:
        await self.app(scope, receive, send)  # type: ignore[operator]


app = build()
app_asgi_mw = build()
app_asgi_mw.add_asgi_middleware(PassThrough)
