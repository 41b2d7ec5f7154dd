"""The app the stop's tests drive: an endless stream, a request that never answers, an idle
WebSocket, and a shutdown hook that notes when it ran, with a short ``shutdown_timeout``.

``$HOSTILE_STOP_DIR`` is a folder the test shares with the server: ``/forever`` marks its
arrival there (``entered``), and the shutdown hook writes the time it ran (``stopped``, epoch
seconds), so that the test can tell how long after SIGTERM the hooks ran. With
``$HOSTILE_READY_URL`` set, the app has that readiness endpoint (and so drains first).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path

from hasten import App, StreamingResponse, WebSocket

STOP_TIMEOUT = 2.0  # shutdown_timeout
TICK = 0.1  # seconds between the stream's chunks
STOP_DIR_ENV = "HOSTILE_STOP_DIR"
STOP_DIR = Path(os.environ.get(STOP_DIR_ENV, "."))
READY_URL_ENV = "HOSTILE_READY_URL"

app = App(shutdown_timeout=STOP_TIMEOUT, ready_url=os.environ.get(READY_URL_ENV) or None)


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/endless")
async def endless() -> StreamingResponse:
    async def ticks() -> AsyncIterator[bytes]:
        while True:
            yield b"tick\n"
            await asyncio.sleep(TICK)

    return StreamingResponse(ticks(), media_type="text/plain")


@app.get("/forever")
async def forever() -> str:
    (STOP_DIR / "entered").touch()
    await asyncio.sleep(3600)
    return "never"


@app.websocket("/idle")
async def idle(websocket: WebSocket) -> None:
    await websocket.accept()
    await websocket.receive_text()  # the client never sends


@app.on_shutdown
def note_the_stop() -> None:
    (STOP_DIR / "stopped").write_text(repr(time.time()))
