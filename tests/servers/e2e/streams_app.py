"""The app the streams, files, WebSocket and mount end-to-end tests serve:
``tests.servers.e2e.streams_app:app`` on Granian (RSGI, ASGI) and uvicorn.

``/probe`` tells what is still running in the server: the generators not yet closed and the
asyncio tasks, so a test can check that a client that left took everything with it.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import fastapi
from starlette.applications import Starlette
from starlette.requests import Request as StarletteRequest
from starlette.responses import FileResponse as StarletteFile
from starlette.responses import JSONResponse as StarletteJSON
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket as StarletteWebSocket

from hasten import (
    App,
    EventSourceResponse,
    FileResponse,
    Header,
    HTMLResponse,
    HTTPException,
    Query,
    Request,
    Router,
    ServerSentEvent,
    StaticFiles,
    StreamingResponse,
    WebSocket,
    WebSocketDisconnect,
)

FOLDER = Path(tempfile.mkdtemp(prefix="hasten-e2e-streams-"))
FILE_BODY = bytes(range(256)) * 400  # 102,400 bytes
FILE_PATH = FOLDER / "data.bin"
FILE_PATH.write_bytes(FILE_BODY)
os.utime(FILE_PATH, (1_700_000_000, 1_700_000_000))
SITE = FOLDER / "site"
(SITE / "docs").mkdir(parents=True)
(SITE / "app.css").write_text("body{}")
(SITE / "docs" / "index.html").write_text("<h1>docs</h1>")
(SITE / "%2e%2e").write_text("literally %2e%2e")
(FOLDER / "secret.txt").write_text("SECRET")
os.symlink(FOLDER / "secret.txt", SITE / "outside.txt")
os.symlink(FOLDER, SITE / "linked")  # a directory outside the site, through a link

app = App(shutdown_timeout=1.0)
live = {"generators": 0, "closed": 0, "handlers": 0, "cancelled": 0, "produced": 0}
client_closes: list[int] = []  # the close codes /ws-listen's handler got from its clients
CHUNK = b"x" * 65536


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/probe")
async def probe() -> dict[str, int]:
    current = asyncio.current_task()
    others = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
    return {**live, "tasks": len(others)}


@app.get("/stream")
async def stream(count: int = 3, delay: float = 0.0) -> StreamingResponse:
    async def chunks() -> AsyncIterator[bytes]:
        live["generators"] += 1
        try:
            for number in range(count):
                yield f"chunk {number}\n".encode()
                if delay:
                    await asyncio.sleep(delay)
        finally:
            live["generators"] -= 1
            live["closed"] += 1

    return StreamingResponse(chunks(), media_type="text/plain")


@app.get("/sync-stream")
async def sync_stream(count: int = 3, delay: float = 0.0) -> StreamingResponse:
    def chunks() -> Iterator[bytes]:
        live["generators"] += 1
        try:
            for number in range(count):
                yield f"sync {number}\n".encode()
                if delay:
                    time.sleep(delay)
        finally:
            live["generators"] -= 1
            live["closed"] += 1

    return StreamingResponse(chunks(), media_type="text/plain")


@app.get("/lines")
async def lines(count: int = 3, delay: float = 0.0) -> AsyncIterator[dict[str, int]]:
    """A generator handler: JSON Lines, one item per line."""
    live["generators"] += 1
    try:
        for number in range(count):
            yield {"n": number}
            if delay:
                await asyncio.sleep(delay)
    finally:
        live["generators"] -= 1
        live["closed"] += 1


@app.get("/sync-lines")
def sync_lines(count: int = 3, delay: float = 0.0) -> Iterator[dict[str, int]]:
    live["generators"] += 1
    try:
        for number in range(count):
            yield {"n": number}
            if delay:
                time.sleep(delay)
    finally:
        live["generators"] -= 1
        live["closed"] += 1


@app.get("/big-stream")
async def big_stream(count: int = 800) -> StreamingResponse:
    live["produced"] = 0

    async def chunks() -> AsyncIterator[bytes]:
        live["generators"] += 1
        try:
            for _ in range(count):
                yield CHUNK
                live["produced"] += 1
        finally:
            live["generators"] -= 1
            live["closed"] += 1

    return StreamingResponse(chunks(), media_type="application/octet-stream")


@app.get("/events")
async def events(
    last_event_id: int = Header(0), count: int = 3, ping: float = 15.0, gap: float = 0.0
) -> EventSourceResponse:
    async def source() -> AsyncIterator[ServerSentEvent]:
        live["generators"] += 1
        try:
            for number in range(last_event_id + 1, last_event_id + 1 + count):
                if gap:
                    await asyncio.sleep(gap)
                yield ServerSentEvent({"n": number}, id=str(number), event="tick")
        finally:
            live["generators"] -= 1
            live["closed"] += 1

    return EventSourceResponse(source(), ping=ping)


@app.get("/slow", timeout=30)
async def slow() -> dict[str, str]:
    live["handlers"] += 1
    try:
        await asyncio.sleep(20)
    except asyncio.CancelledError:
        live["cancelled"] += 1
        raise
    finally:
        live["handlers"] -= 1
    return {"late": "yes"}


@app.get("/wait-for-disconnect")
async def wait_for_disconnect(request: Request) -> dict[str, int]:
    live["handlers"] += 1
    try:
        for _ in range(200):
            if await request.is_disconnected():
                live["cancelled"] += 1
                return {"gone": 1}
            await asyncio.sleep(0.05)
        return {"gone": 0}
    finally:
        live["handlers"] -= 1


@app.get("/file")
async def file() -> FileResponse:
    return FileResponse(FILE_PATH)


@app.get("/download")
async def download() -> FileResponse:
    return FileResponse(FILE_PATH, filename="données.bin")


app.mount("/static", StaticFiles(directory=SITE, html=True))


@app.websocket("/ws/{room}")
async def room(
    websocket: WebSocket, room: str, limit: int = Query(3), user_agent: str = Header("none")
) -> None:
    await websocket.accept()
    await websocket.send_json({"room": room, "limit": limit, "agent": user_agent})
    async for text in websocket.iter_text():
        if text == "close":
            await websocket.close(4000, "asked to")
            return
        await websocket.send_text(f"echo: {text}")


@app.websocket("/ws-bytes")
async def ws_bytes(websocket: WebSocket) -> None:
    await websocket.accept()
    async for data in websocket.iter_bytes():
        await websocket.send_bytes(data)


@app.websocket("/ws-chat")
async def chat(websocket: WebSocket) -> None:
    wanted = "v2.chat" if "v2.chat" in websocket.subprotocols else None
    try:
        await websocket.accept(subprotocol=wanted)
    except RuntimeError:  # Granian's RSGI cannot send a subprotocol
        await websocket.accept()
    await websocket.send_text(f"offered {websocket.subprotocols}")


@app.websocket("/ws-listen")
async def ws_listen(websocket: WebSocket) -> None:
    await websocket.accept()
    try:
        await websocket.receive_text()
    except WebSocketDisconnect as closed:
        client_closes.append(closed.code)


@app.get("/ws-listen/closes")
async def ws_listen_closes() -> list[int]:
    return client_closes


@app.websocket("/ws-denied")
async def ws_denied(websocket: WebSocket) -> None:
    raise HTTPException(401, "no", headers={"WWW-Authenticate": "Bearer"})


@app.websocket("/ws-fails")
async def ws_fails(websocket: WebSocket) -> None:
    await websocket.accept()
    raise ValueError("the handler failed")


@app.websocket("/ws-wait")
async def ws_wait(websocket: WebSocket) -> None:
    await websocket.accept()
    live["handlers"] += 1
    try:
        await websocket.receive_text()
    except WebSocketDisconnect:
        pass
    finally:
        live["handlers"] -= 1


@app.get("/http-only")
async def http_only() -> str:
    return "http"


@app.get("/ws-page")
async def ws_page() -> HTMLResponse:
    return HTMLResponse(BROWSER_PAGE)


BROWSER_PAGE = """<!doctype html><html><body><pre id="out"></pre><script>
const out = document.getElementById("out");
const log = (line) => { out.textContent += line + "\\n"; };
const ws = new WebSocket(`ws://${location.host}/ws/browser?limit=9`);
ws.onopen = () => ws.send("from chromium");
ws.onmessage = (event) => {
  log("ws " + event.data);
  if (event.data.startsWith("echo")) { ws.close(); }
};
const source = new EventSource("/events?count=2&gap=0.05");
let seen = 0;
source.addEventListener("tick", (event) => {
  log("sse " + event.lastEventId + " " + event.data);
  if (++seen === 2) { source.close(); log("sse done"); }
});
</script></body></html>"""


# Mounted ASGI apps.
async def star_hello(request: StarletteRequest) -> StarletteJSON:
    return StarletteJSON(
        {
            "path": request.url.path,
            "root_path": request.scope["root_path"],
            "url_for": str(request.url_for("star_hello")),
            "body": (await request.body()).decode(),
        }
    )


async def star_file(request: StarletteRequest) -> StarletteFile:
    return StarletteFile(FILE_PATH)


async def star_ws(websocket: StarletteWebSocket) -> None:
    await websocket.accept()
    await websocket.send_text(f"starlette: {await websocket.receive_text()}")
    await websocket.close()


starlette_app = Starlette(
    routes=[
        Route("/hello", star_hello, methods=["GET", "POST"], name="star_hello"),
        Route("/file", star_file),
        WebSocketRoute("/ws", star_ws),
    ]
)
app.mount("/star", starlette_app)
small = Router()  # the same app, within the 8-byte body limit of the router it is mounted on
small.mount("/star", starlette_app)
app.include_router(small, prefix="/small", max_body_size=8)


def _fastapi() -> Any:
    api = fastapi.FastAPI()

    @api.get("/items/{item_id}")
    async def item(item_id: int, request: fastapi.Request) -> dict[str, Any]:
        return {"id": item_id, "root_path": request.scope["root_path"]}

    return api


app.mount("/fast", _fastapi())
