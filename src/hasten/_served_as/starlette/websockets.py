"""``starlette.websockets``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.requests import HTTPConnection
from hasten.responses import Response
from hasten.websockets import WebSocket, WebSocketDisconnect, WebSocketDisconnected, WebSocketState

__all__ = [
    "HTTPConnection",
    "Response",
    "WebSocket",
    "WebSocketDisconnect",
    "WebSocketDisconnected",
    "WebSocketState",
]
