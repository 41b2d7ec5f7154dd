"""``starlette.testclient``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeAlias

from hasten.errors import StarletteDeprecationWarning
from hasten.testing import TestClient, WebSocketDenialResponse, WebSocketTestSession
from hasten.types import Receive, Send
from hasten.websockets import WebSocketDisconnect

# Starlette's type of an ASGI 2 app's instance, for a test's annotations.
ASGIInstance: TypeAlias = Callable[[Receive, Send], Awaitable[None]]

__all__ = [
    "ASGIInstance",
    "StarletteDeprecationWarning",
    "TestClient",
    "WebSocketDenialResponse",
    "WebSocketDisconnect",
    "WebSocketTestSession",
]
