"""``starlette.routing``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

import sys
from typing import Any

from hasten.concurrency import run_in_threadpool
from hasten.datastructures import URL, Headers
from hasten.errors import HTTPException, StarletteDeprecationWarning
from hasten.middleware import Middleware
from hasten.requests import Request
from hasten.responses import PlainTextResponse, RedirectResponse, Response
from hasten.routing import (
    BaseRoute,
    Host,
    Match,
    Mount,
    NoMatchFound,
    Router,
    request_response,
    websocket_session,
)
from hasten.routing import (
    RequestRoute as Route,
)
from hasten.routing import (
    WebSocketSessionRoute as WebSocketRoute,
)
from hasten.websockets import WebSocket

__all__ = [
    "URL",
    "BaseRoute",
    "HTTPException",
    "Headers",
    "Host",
    "Match",
    "Middleware",
    "Mount",
    "NoMatchFound",
    "PlainTextResponse",
    "RedirectResponse",
    "Request",
    "Response",
    "Route",
    "Router",
    "StarletteDeprecationWarning",
    "WebSocket",
    "WebSocketRoute",
    "request_response",
    "run_in_threadpool",
    "websocket_session",
]


def _called_for(endpoint: Any) -> Any:
    current = sys.modules[__name__].request_response
    if current is _ORIGINAL:
        return None
    return getattr(current(endpoint), "request_endpoint", None)


_ORIGINAL = request_response
Route.called_for = _called_for
