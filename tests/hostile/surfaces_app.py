"""The app the hostile suite attacks on the surfaces added since its first pass: forms and
uploads, files and static, WebSockets, streams and SSE, the control endpoints, the built-in
middleware, dependencies and background tasks. Every setting that guards them is on.

Served as ``tests.hostile.surfaces_app:app`` by ``hasten run`` on Granian (RSGI, ASGI) and
uvicorn; ``benchmarks/apps/fastapi_surfaces.py`` is the same app in FastAPI, for the
red-team table. ``$HOSTILE_SITE`` is the folder of its files (a test truncates them), and
``/probe`` tells what is left in the worker: spooled upload files, memory, generators, tasks.
"""

from __future__ import annotations

import asyncio
import os
import resource
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
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
    ProxyHeadersMiddleware,
    TrustedHostMiddleware,
)

SITE_ENV = "HOSTILE_SITE"
STATS_TOKEN = "hostile-stats-token-7f3a"
ALLOWED_ORIGIN = "https://app.example"
PROXY = "127.0.0.2"  # the one trusted proxy: a test connects from it
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "app.example", "*.app.example"]
CHUNK = b"x" * 65536
BIG_FILE_SIZE = 16 * 1024 * 1024


def make_site(folder: Path) -> Path:
    """The files the app serves, under ``folder``: the site, and a secret beside it."""
    site = folder / "site"
    site.mkdir(parents=True, exist_ok=True)
    (site / "small.txt").write_bytes(bytes(range(256)) * 4)  # 1,024 bytes
    big = site / "big.bin"
    if not big.exists() or big.stat().st_size != BIG_FILE_SIZE:
        big.write_bytes(os.urandom(1024) * (BIG_FILE_SIZE // 1024))
    (folder / "secret.txt").write_text("SECRET")
    for name, target in (("outside.txt", folder / "secret.txt"), ("up", folder)):
        link = site / name
        if not link.is_symlink():
            link.symlink_to(target)
    return site


FOLDER = Path(os.environ.get(SITE_ENV) or tempfile.mkdtemp(prefix="hasten-hostile-site-"))
SITE = make_site(FOLDER)

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
app.add_middleware(TrustedHostMiddleware, allowed_hosts=ALLOWED_HOSTS, www_redirect=False)
app.add_middleware(
    CORSMiddleware, allow_origins=[ALLOWED_ORIGIN], allow_credentials=True, allow_methods=["*"]
)
app.add_middleware(GZipMiddleware)

live = {
    "generators": 0,
    "closed": 0,
    "produced": 0,
    "entered": 0,
    "cleaned": 0,
    "websockets": 0,
    "sent": 0,
    "background": 0,
}


def spooled_files() -> int:
    """Upload files open in this worker: descriptors of files under the temporary folder."""
    folder = tempfile.gettempdir()
    count = 0
    for name in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{name}")
        except OSError:
            continue
        count += target.startswith(folder + os.sep)
    return count


def rss() -> int:
    """This worker's resident memory now, in bytes."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize()


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/probe")
async def probe() -> dict[str, int]:
    current = asyncio.current_task()
    others = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
    spooled = await asyncio.to_thread(spooled_files)
    return {**live, "tasks": len(others), "spooled": spooled, "rss": rss()}


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
async def counted(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    live["generators"] += 1
    try:
        async for chunk in chunks:
            yield chunk
            live["produced"] += 1
    finally:
        live["generators"] -= 1
        live["closed"] += 1


async def fast(count: int) -> AsyncIterator[bytes]:
    for _ in range(count):
        yield CHUNK


async def trickle() -> AsyncIterator[bytes]:
    while True:
        yield b"tick\n"
        await asyncio.sleep(0.01)


@app.get("/stream")
async def stream(count: int = 1000) -> StreamingResponse:
    live["produced"] = 0
    return StreamingResponse(counted(fast(count)), media_type="application/octet-stream")


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


# Dependencies, overload and background tasks.
async def resource_held() -> AsyncIterator[str]:
    live["entered"] += 1
    try:
        yield "resource"
    finally:
        live["cleaned"] += 1


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


def failing_task() -> None:
    raise RuntimeError("the first background task fails")


async def counting_task() -> None:
    live["background"] += 1


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


@app.get("/text")
async def text(size: int = 4 * 1024 * 1024) -> Response:
    return Response(bytes(range(256)) * (size // 256), media_type="text/plain")


@app.get("/image")
async def image() -> Response:
    return Response(b"\x89PNG\r\n\x1a\n" + bytes(100_000), media_type="image/png")
