"""``fastapi.websockets``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.websockets import WebSocket, WebSocketDisconnect, WebSocketState

__all__ = ["WebSocket", "WebSocketDisconnect", "WebSocketState"]
