"""FastAPI's side of the red-team table's surfaces: ``tests/servers/hostile/surfaces_app.py`` as
FastAPI and Starlette write it, with their own middleware and whatever limits they have.
Served by ``benchmarks/redteam.py --surfaces`` on uvicorn, from .venv-peers.

What FastAPI has no counterpart for is left out (metrics, stats, health, a WebSocket origin
check, per-route concurrency limits): those cases meet a 404 or an unguarded route there.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import (
    BackgroundTasks,
    Depends,
    FastAPI,
    Form,
    Header,
    Request,
    Response,
    UploadFile,
    WebSocket,
    WebSocketDisconnect,
)
from fastapi.responses import FileResponse, StreamingResponse
from fastapi.sse import EventSourceResponse
from fastapi.staticfiles import StaticFiles
from starlette.applications import Starlette
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.middleware.httpsredirect import HTTPSRedirectMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Route
from uvicorn.middleware.proxy_headers import ProxyHeadersMiddleware

from tests.servers.hostile.surface_cases import PRECOMPRESSED
from tests.servers.hostile.surface_state import (
    ALLOWED_HOSTS,
    ALLOWED_ORIGIN,
    CHUNK,
    PROXY,
    SITE,
    counted,
    counting_task,
    failing_task,
    fast,
    last_close,
    live,
    noise,
    probe,
    resource_held,
    trickle,
)

app = FastAPI()
app.add_middleware(ProxyHeadersMiddleware, trusted_hosts=[PROXY])
app.add_middleware(TrustedHostMiddleware, allowed_hosts=ALLOWED_HOSTS)
app.add_middleware(
    CORSMiddleware, allow_origins=[ALLOWED_ORIGIN], allow_credentials=True, allow_methods=["*"]
)
app.add_middleware(GZipMiddleware)


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/probe")
async def probed() -> dict[str, int | str]:
    return await probe()


# Forms and uploads.
@app.post("/upload")
async def upload(file: UploadFile, note: Annotated[str, Form()] = "") -> dict[str, object]:
    return {"filename": file.filename, "size": file.size, "note": len(note)}


@app.post("/upload/fail")
async def upload_fail(file: UploadFile) -> None:
    raise RuntimeError(f"the handler failed with {file.filename} open")


@app.post("/upload/slow")
async def upload_slow(file: UploadFile) -> dict[str, object]:
    await asyncio.sleep(1.0)
    return {"size": file.size}


@app.post("/form")
async def form(request: Request) -> dict[str, int]:
    parsed = await request.form()
    return {"parts": len(parsed.multi_items())}


@app.post("/json")
async def json_body(request: Request) -> dict[str, str]:
    return {"type": type(await request.json()).__name__}


# Files and static.
app.mount("/static", StaticFiles(directory=SITE))


@app.get("/file")
async def file() -> FileResponse:
    return FileResponse(SITE / "big.bin")


# Streams and Server-Sent Events.
@app.get("/stream")
async def stream(count: int = 1000) -> StreamingResponse:
    live["produced"] = 0
    return StreamingResponse(counted(fast(count)), media_type="application/octet-stream")


@app.get("/stream/noise")
async def noisy(count: int = 1000) -> StreamingResponse:
    live["produced"] = 0
    return StreamingResponse(counted(noise(count)), media_type="text/plain")


@app.get("/stream/endless")
async def endless() -> StreamingResponse:
    return StreamingResponse(counted(trickle()), media_type="text/plain")


@app.get("/events", response_class=EventSourceResponse)
async def events(count: int = 1000) -> AsyncIterator[str]:
    live["produced"] = 0
    async for _ in counted(fast(count)):
        yield "x" * 65536


async def starlette_stream(request: Request) -> StreamingResponse:
    live["produced"] = 0
    count = int(request.query_params.get("count", "1000"))
    return StreamingResponse(counted(fast(count)), media_type="application/octet-stream")


app.mount("/mounted", Starlette(routes=[Route("/stream", starlette_stream)]))


# WebSockets.
@app.websocket("/ws/echo")
async def ws_echo(websocket: WebSocket) -> None:
    await websocket.accept()
    async for message in websocket.iter_text():
        await websocket.send_text(message)


@app.websocket("/ws/flood")
async def ws_flood(websocket: WebSocket) -> None:
    await websocket.accept()
    live["websockets"] += 1
    live["sent"] = 0
    deadline = asyncio.get_running_loop().time() + 4.0
    try:
        while asyncio.get_running_loop().time() < deadline:
            await websocket.send_bytes(CHUNK)
            live["sent"] += 1
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        live["websockets"] -= 1


@app.websocket("/ws/idle")
async def ws_idle(websocket: WebSocket) -> None:
    await websocket.accept()
    live["websockets"] += 1
    try:
        async for _ in websocket.iter_bytes():
            pass
    finally:
        live["websockets"] -= 1


@app.websocket("/ws/raise")
async def ws_raise(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.receive_text()
    raise RuntimeError("the WebSocket handler failed")


@app.websocket("/ws/json")
async def ws_json(websocket: WebSocket) -> None:
    await websocket.accept()
    while True:
        await websocket.send_json(await websocket.receive_json())


@app.websocket("/ws/close")
async def ws_close(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.receive_text()
    await websocket.close(4000, "asked to")


@app.websocket("/ws/chat")
async def ws_chat(websocket: WebSocket) -> None:
    offered = websocket.scope.get("subprotocols") or [None]
    await websocket.accept(subprotocol=offered[-1])
    await websocket.send_text("chosen")
    await websocket.receive_text()


@app.websocket("/ws/goodbye")
async def ws_goodbye(websocket: WebSocket) -> None:
    await websocket.accept()
    try:
        while True:
            await websocket.receive_text()
    except WebSocketDisconnect as exc:
        last_close.update(code=exc.code, reason=exc.reason)


# Dependencies and background tasks (FastAPI has no per-route concurrency limit).
Held = Annotated[str, Depends(resource_held)]


@app.get("/deps/slow")
async def deps_slow(held: Held) -> dict[str, str]:
    await asyncio.sleep(1.0)
    return {"held": held}


@app.get("/deps/raise")
async def deps_raise(held: Held) -> None:
    raise RuntimeError(f"the handler failed holding {held}")


@app.get("/deps/busy")
async def deps_busy(held: Held) -> dict[str, str]:
    await asyncio.sleep(0.5)
    return {"held": held}


class Refused(Exception):
    """What /exception-handler-fails raises: its exception handler fails too."""


@app.exception_handler(Refused)
async def refused(request: Request, exc: Refused) -> Response:
    raise ValueError("the exception handler itself fails, with a secret: hunter2")


@app.get("/exception-handler-fails")
async def exception_handler_fails() -> None:
    raise Refused


@app.post("/signup")
async def signup(tasks: BackgroundTasks) -> dict[str, bool]:
    tasks.add_task(failing_task)
    tasks.add_task(counting_task)
    return {"ok": True}


# Middleware.
@app.get("/who")
async def who(request: Request) -> dict[str, object]:
    client = request.client
    return {
        "client": None if client is None else client.host,
        "scheme": request.url.scheme,
        "url": str(request.url),
    }


@app.get("/link")
async def link(request: Request) -> dict[str, str]:
    return {"url": str(request.url_for("hello"))}


# Everything under /secure is redirected to https.
secure = FastAPI()
secure.add_middleware(HTTPSRedirectMiddleware)


@secure.get("/hello")
async def secure_hello() -> dict[str, str]:
    return {"message": "hello"}


app.mount("/secure", secure)


@app.get("/text")
async def text(size: int = 4 * 1024 * 1024) -> Response:
    return Response(bytes(range(256)) * (size // 256), media_type="text/plain")


@app.get("/image")
async def image() -> Response:
    return Response(b"\x89PNG\r\n\x1a\n" + bytes(100_000), media_type="image/png")


@app.get("/header")
async def header(x_note: Annotated[str, Header()] = "none") -> dict[str, str]:
    return {"note": x_note}


@app.get("/cookies")
async def cookies(request: Request) -> dict[str, str]:
    return request.cookies


@app.get("/echo-header")
async def echo_header(value: str) -> Response:
    return Response(b"echoed", headers={"x-echo": value})


@app.get("/precompressed")
async def precompressed() -> Response:
    return Response(PRECOMPRESSED, media_type="text/plain", headers={"Content-Encoding": "gzip"})
