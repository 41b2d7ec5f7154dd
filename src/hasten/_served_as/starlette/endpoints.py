"""``starlette.endpoints``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.concurrency import run_in_threadpool
from hasten.endpoints import HTTPEndpoint, WebSocketEndpoint
from hasten.errors import HTTPException
from hasten.requests import Request
from hasten.responses import PlainTextResponse, Response
from hasten.websockets import WebSocket

__all__ = [
    "HTTPEndpoint",
    "HTTPException",
    "PlainTextResponse",
    "Request",
    "Response",
    "WebSocket",
    "WebSocketEndpoint",
    "run_in_threadpool",
]
