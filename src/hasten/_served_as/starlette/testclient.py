"""``starlette.testclient``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.testing import TestClient, WebSocketDenialResponse, WebSocketTestSession
from hasten.websockets import WebSocketDisconnect

__all__ = ["TestClient", "WebSocketDenialResponse", "WebSocketDisconnect", "WebSocketTestSession"]
