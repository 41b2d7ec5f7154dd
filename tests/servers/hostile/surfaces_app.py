"""The app the hostile suite attacks on the surfaces added since its first pass: forms and
uploads, files and static, WebSockets, streams and SSE, the control endpoints, the built-in
middleware, dependencies and background tasks. Every setting that guards them is on.

Served as ``tests.servers.hostile.surfaces_app:app`` by ``hasten run`` on Granian (RSGI, ASGI) and
uvicorn; ``benchmarks/apps/fastapi_surfaces.py`` is the same app in FastAPI, for the
red-team table; ``tests/servers/hostile/surface_state.py`` holds what the two share: the files they
serve, and ``/probe``, which tells what is left in the worker (spooled upload files, memory,
generators, tasks).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Annotated

from starlette.applications import Starlette
from starlette.requests import Request as StarletteRequest
from starlette.responses import StreamingResponse as StarletteStream
from starlette.routing import Route

from hasten import (
    App,
    BackgroundTasks,
    Depends,
    EventSourceResponse,
    FileResponse,
    Form,
    Header,
    Request,
    Response,
    StaticFiles,
    StreamingResponse,
    UploadFile,
    WebSocket,
    WebSocketDisconnect,
)
from hasten.middleware import (
    CORSMiddleware,
    GZipMiddleware,
    HTTPSRedirectMiddleware,
    ProxyHeadersMiddleware,
    TrustedHostMiddleware,
)
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

STATS_TOKEN = "hostile-stats-token-7f3a"

app = App(
    max_body_size=64 * 1024 * 1024,
    max_file_size=32 * 1024 * 1024,
    form_spool_size=64 * 1024,
    websocket_max_size=64 * 1024,
    websocket_allowed_origins=[ALLOWED_ORIGIN],
    metrics_url="/metrics",
    health_url="/healthz",
    ready_url="/readyz",
    stats_token=STATS_TOKEN,
    access_log="keyvalue",
    shutdown_timeout=1.0,
)
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
    await asyncio.sleep(1.0)  # the client hangs up meanwhile
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


@app.get("/events")
async def events(count: int = 1000) -> EventSourceResponse:
    live["produced"] = 0

    async def source() -> AsyncIterator[str]:
        async for _ in counted(fast(count)):
            yield "x" * 65536

    return EventSourceResponse(source(), ping=0.05)


async def starlette_stream(request: StarletteRequest) -> StarletteStream:
    live["produced"] = 0
    count = int(request.query_params.get("count", "1000"))
    return StarletteStream(counted(fast(count)), media_type="application/octet-stream")


app.mount("/mounted", Starlette(routes=[Route("/stream", starlette_stream)]))


# WebSockets.
@app.websocket("/ws/echo")
async def ws_echo(websocket: WebSocket) -> None:
    await websocket.accept()
    async for message in websocket.iter_text():
        await websocket.send_text(message)


@app.websocket("/ws/flood")
async def ws_flood(websocket: WebSocket) -> None:
    """Sends as fast as it may until the client leaves (or 4 s pass: under Granian ASGI a
    client that left is not noticed by a handler that only sends)."""
    await websocket.accept()
    live["websockets"] += 1
    live["sent"] = 0
    deadline = asyncio.get_running_loop().time() + 4.0
    try:
        while asyncio.get_running_loop().time() < deadline:
            await websocket.send_bytes(CHUNK)
            live["sent"] += 1
    except WebSocketDisconnect:
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
    """Takes the last subprotocol offered."""
    offered = websocket.subprotocols
    await websocket.accept(subprotocol=offered[-1] if offered else None)
    await websocket.send_text("chosen")
    await websocket.receive_text()


@app.websocket("/ws/goodbye")
async def ws_goodbye(websocket: WebSocket) -> None:
    """Notes how the client closed."""
    await websocket.accept()
    try:
        while True:
            await websocket.receive_text()
    except WebSocketDisconnect as exc:
        last_close.update(code=exc.code, reason=exc.reason)


# Dependencies, overload and background tasks.
Held = Annotated[str, Depends(resource_held)]


@app.get("/deps/slow")
async def deps_slow(held: Held) -> dict[str, str]:
    await asyncio.sleep(1.0)  # the client hangs up meanwhile
    return {"held": held}


@app.get("/deps/raise")
async def deps_raise(held: Held) -> None:
    raise RuntimeError(f"the handler failed holding {held}")


@app.get("/deps/busy", max_concurrency=1)
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
        "scheme": request.scheme,
        "url": str(request.url),
    }


@app.get("/link")
async def link(request: Request) -> dict[str, str]:
    return {"url": str(request.url_for("hello"))}


# Everything under /secure is redirected to https.
secure = App()
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


# Header values: read from the request, and set on the response from the client's input.
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
