"""Testing: ``TestClient``, Starlette's TestClient over hasten's RSGI or ASGI adapter.

``TestClient(app).get("/hello").json()``. Its requests, and its WebSockets
(``client.websocket_connect``), are served in-process on one event loop shared by every
client, by doubles of Granian (RSGI) and uvicorn (ASGI) as strict as the real servers.
"""

from __future__ import annotations

from hasten.testing.client import TestClient
from hasten.testing.websocket import WebSocketDenialResponse, WebSocketTestSession

__all__ = ["TestClient", "WebSocketDenialResponse", "WebSocketTestSession"]
