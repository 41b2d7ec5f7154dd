"""The app the end-to-end tests serve: every part of hasten's public API, one route each.

Served as ``tests.servers.e2e.app:app`` by Granian (RSGI, ASGI) and uvicorn. When the environment
names
a file in ``HASTEN_E2E_SHUTDOWN_MARKER``, the shutdown hook writes it, so a test can see that
stopping the server ran the hook; with ``HASTEN_E2E_STARTING_MARKER`` and
``HASTEN_E2E_STARTUP_SECONDS``, the startup hook writes its file (its process pool is running
by then) and takes that long, so a test can stop a worker that is still starting.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Annotated

import msgspec

from hasten import (
    App,
    HTTPError,
    JSONResponse,
    Query,
    RedirectResponse,
    Request,
    Response,
    Router,
)
from hasten.types import CallNext

MAX_BODY_SIZE = 1024
SHUTDOWN_MARKER_ENV = "HASTEN_E2E_SHUTDOWN_MARKER"
STARTING_MARKER_ENV = "HASTEN_E2E_STARTING_MARKER"
STARTUP_SECONDS_ENV = "HASTEN_E2E_STARTUP_SECONDS"
MIDDLEWARE_HEADER = "x-e2e-middleware"
SLEEP_SECONDS = 0.2

app = App(max_body_size=MAX_BODY_SIZE, max_processes=2)
state = {"started": False}


@app.on_startup
async def mark_started() -> None:
    marker = os.environ.get(STARTING_MARKER_ENV)
    if marker:
        Path(marker).write_text(f"starting {os.getpid()}")
        await asyncio.sleep(float(os.environ.get(STARTUP_SECONDS_ENV, "0")))
    state["started"] = True


@app.on_shutdown
def write_shutdown_marker() -> None:
    marker = os.environ.get(SHUTDOWN_MARKER_ENV)
    if marker:
        Path(marker).write_text(f"shutdown {os.getpid()}")


@app.middleware
async def tag_response(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    response.headers[MIDDLEWARE_HEADER] = "1"
    return response


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.api_route("/lookup", methods=["QUERY"])
async def query_hello(request: Request) -> dict[str, str]:
    return {"method": request.method, "body": (await request.body()).decode()}


@app.get("/started")
async def started() -> dict[str, bool]:
    return {"started": state["started"]}


@app.get("/items/{item_id}")
async def item(item_id: int, q: str | None = None, limit: int = 10) -> dict[str, object]:
    return {"id": item_id, "q": q, "limit": limit}


@app.get("/tags")
async def tags(
    tag: Annotated[list[str], Query()], id: Annotated[list[int] | None, Query()] = None
) -> dict[str, object]:
    return {"tag": tag, "id": id}


@app.get("/search")
async def search(q: str) -> dict[str, str]:
    return {"q": q}


@app.get("/typed/{n:int}")
async def typed(n: int) -> dict[str, int]:
    return {"n": n, "double": n * 2}


@app.get("/files/{path:path}")
async def files(path: str) -> dict[str, str]:
    return {"path": path}


@app.get("/text")
async def text() -> str:
    return "plain text é"


@app.get("/bytes")
async def raw_bytes() -> bytes:
    return b"\x00\x01binary"


class Order(msgspec.Struct):
    id: int
    name: str
    tags: list[str] = []


@app.post("/orders", status=201)
async def create_order(order: Order) -> Order:
    return order


@app.get("/fail")
async def fail() -> dict[str, str]:
    raise RuntimeError("secret")


@app.get("/teapot")
async def teapot() -> dict[str, str]:
    raise HTTPError(418, "I'm a teapot")


@app.get("/thread/sync")
def sync_thread() -> str:
    return threading.current_thread().name


@app.get("/thread/async")
async def async_thread() -> str:
    return threading.current_thread().name


sleepers_lock = threading.Lock()
sleepers = [0]


@app.get("/sleep")
def sleep(seconds: float = SLEEP_SECONDS) -> dict[str, float]:
    with sleepers_lock:
        sleepers[0] += 1
    try:
        time.sleep(seconds)
    finally:
        with sleepers_lock:
            sleepers[0] -= 1
    return {"slept": seconds}


@app.get("/sleepers")
async def count_sleepers() -> dict[str, int]:
    return {"sleeping": sleepers[0]}


@app.get("/inspect")
async def inspect_request(request: Request) -> dict[str, object]:
    client = request.client
    return {
        "method": request.method,
        "path": request.path,
        "token": request.headers.get("x-token"),
        "cookies": request.cookies,
        "query": request.query.get_all("q"),
        "client": None if client is None else [client.host, client.port],
    }


@app.post("/echo")
async def echo(request: Request) -> dict[str, object]:
    return {"json": await request.json(), "url": request.url, "scheme": request.scheme}


@app.post("/count")
async def count(request: Request) -> dict[str, int]:
    chunks = sizes = 0
    async for chunk in request.stream():
        chunks += 1
        sizes += len(chunk)
    return {"bytes": sizes, "chunks": chunks}


@app.get("/raw")
async def raw() -> Response:
    return Response(b"raw-body", status=202, media_type="text/plain", headers={"x-custom": "1"})


@app.get("/json-response")
async def json_response() -> JSONResponse:
    return JSONResponse({"made": "by hand"}, status=203, headers={"x-custom": "2"})


@app.get("/old")
async def old() -> RedirectResponse:
    return RedirectResponse("/hello")


api = Router(prefix="/api")


@api.get("/users/{user_id}")
async def user(user_id: int) -> dict[str, int]:
    return {"id": user_id}


admin = Router(prefix="/admin")


@admin.get("/stats")
def stats() -> dict[str, str]:
    return {"scope": "admin"}


# Body limits of their own (FastAPI's max_body_size=): the router's, and one route's under it.
uploads = Router(prefix="/uploads", max_body_size=4 * MAX_BODY_SIZE)


@uploads.post("/")
@uploads.post("/small", max_body_size=2 * MAX_BODY_SIZE)
async def upload_size(request: Request) -> dict[str, int]:
    return {"size": len(await request.body())}


app.include(api)
app.include(admin, prefix="/v1")
app.include(uploads)


def child_pid() -> int:
    """Runs in the app's process pool: tells which worker process served it."""
    return os.getpid()


app.add_api_route("/offload/pid", child_pid, offload="process")
