"""``starlette.responses``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from collections.abc import AsyncIterable, Iterable
from typing import TypeAlias

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

# Starlette's types of a StreamingResponse's content, for annotations.
Content: TypeAlias = str | bytes | memoryview
SyncContentStream: TypeAlias = Iterable[Content]
AsyncContentStream: TypeAlias = AsyncIterable[Content]
ContentStream: TypeAlias = AsyncContentStream | SyncContentStream

__all__ = [
    "URL",
    "AsyncContentStream",
    "BackgroundTask",
    "ClientDisconnect",
    "Content",
    "ContentStream",
    "FileResponse",
    "HTMLResponse",
    "Headers",
    "JSONResponse",
    "MutableHeaders",
    "PlainTextResponse",
    "RedirectResponse",
    "Response",
    "StreamingResponse",
    "SyncContentStream",
    "iterate_in_threadpool",
]
