"""WebSocket: what a WebSocket handler talks to, whichever protocol carried it.

The public names; the code is in ``hasten._http.websockets``."""

from hasten._http.websockets import (
    ConnectionState,
    WebSocket,
    WebSocketDisconnect,
    WebSocketDisconnected,
    WebSocketState,
)

__all__ = [
    "ConnectionState",
    "WebSocket",
    "WebSocketDisconnect",
    "WebSocketDisconnected",
    "WebSocketState",
]
