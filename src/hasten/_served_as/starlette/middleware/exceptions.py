"""``starlette.middleware.exceptions``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.errors import HTTPException, WebSocketException
from hasten.middleware.exceptions import ExceptionMiddleware
from hasten.requests import Request
from hasten.responses import PlainTextResponse, Response
from hasten.websockets import WebSocket

__all__ = [
    "ExceptionMiddleware",
    "HTTPException",
    "PlainTextResponse",
    "Request",
    "Response",
    "WebSocket",
    "WebSocketException",
]
