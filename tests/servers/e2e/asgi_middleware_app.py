"""An app wrapped in third-party ASGI middleware (Starlette's GZipMiddleware), served as
``tests.servers.e2e.asgi_middleware_app:app``: under Granian RSGI every connection then goes through
the RSGI -> ASGI bridge."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from starlette.middleware.gzip import GZipMiddleware

from hasten import App, JSONResponse, StreamingResponse, WebSocket


class Gate:
    """A pure ASGI middleware that answers /gated itself, with hasten's Response as an ASGI
    app (Starlette's ``await response(scope, receive, send)``)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == "/gated":
            await JSONResponse({"detail": "gated"}, 403)(scope, receive, send)
            return
        await self.app(scope, receive, send)


app = App()
app.add_asgi_middleware(GZipMiddleware, minimum_size=100)
app.add_asgi_middleware(Gate)


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/big")
async def big() -> str:
    return "hasten " * 500


@app.get("/stream")
async def stream() -> StreamingResponse:
    async def chunks() -> AsyncIterator[bytes]:
        for number in range(3):
            yield f"part {number}\n".encode()

    return StreamingResponse(chunks(), media_type="text/plain")


@app.websocket("/ws")
async def echo(websocket: WebSocket) -> None:
    await websocket.accept()
    async for text in websocket.iter_text():
        await websocket.send_text(text.upper())
