"""``starlette.testclient``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.errors import StarletteDeprecationWarning
from hasten.testing import TestClient, WebSocketDenialResponse, WebSocketTestSession
from hasten.websockets import WebSocketDisconnect

__all__ = [
    "StarletteDeprecationWarning",
    "TestClient",
    "WebSocketDenialResponse",
    "WebSocketDisconnect",
    "WebSocketTestSession",
]
