"""``starlette.responses``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.background import BackgroundTask
from hasten.concurrency import iterate_in_threadpool
from hasten.datastructures import URL, Headers, MutableHeaders
from hasten.requests import ClientDisconnected as ClientDisconnect
from hasten.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)

__all__ = [
    "URL",
    "BackgroundTask",
    "ClientDisconnect",
    "FileResponse",
    "HTMLResponse",
    "Headers",
    "JSONResponse",
    "MutableHeaders",
    "PlainTextResponse",
    "RedirectResponse",
    "Response",
    "StreamingResponse",
    "iterate_in_threadpool",
]
