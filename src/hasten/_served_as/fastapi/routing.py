"""``fastapi.routing``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hasten._flow.contracts import Handler
from hasten.datastructures import Default, DefaultPlaceholder
from hasten.encoders import jsonable_encoder
from hasten.errors import (
    EndpointContext,
    FastAPIError,
    RequestValidationError,
    ResponseValidationError,
    WebSocketRequestValidationError,
)
from hasten.requests import Request
from hasten.responses import JSONResponse, Response, StreamingResponse
from hasten.routing import (
    APIRoute,
    APIRouter,
    APIWebSocketRoute,
    BaseRoute,
    Match,
    Mount,
    NoMatchFound,
    Route,
    Router,
    WebSocketRoute,
    request_response,
    websocket_session,
)
from hasten.websockets import WebSocket

__all__ = [
    "APIRoute",
    "APIRouter",
    "APIWebSocketRoute",
    "BaseRoute",
    "Default",
    "DefaultPlaceholder",
    "EndpointContext",
    "FastAPIError",
    "JSONResponse",
    "Match",
    "Mount",
    "NoMatchFound",
    "Request",
    "RequestValidationError",
    "Response",
    "ResponseValidationError",
    "Route",
    "Router",
    "StreamingResponse",
    "WebSocket",
    "WebSocketRequestValidationError",
    "WebSocketRoute",
    "get_request_handler",
    "jsonable_encoder",
    "request_response",
    "websocket_session",
]


@dataclass
class Dependant:
    """What FastAPI's ``get_request_handler`` is given of a route: its handler, as ``call``.
    (hasten's compiled endpoint serves the route: a ``call`` replaced here is not called.)"""

    call: Callable[..., Any] | None
    path: str


def get_request_handler(
    dependant: Dependant | None = None, *, handler: Handler | None = None, **options: Any
) -> Handler:
    """FastAPI's: what serves a route, ``async (request) -> Response``; here the handler
    hasten compiled for it. Code may replace this function (sentry-sdk's integration does)
    to wrap what it returns: each route is then served by the wrapper."""
    if handler is None:
        raise TypeError("get_request_handler() makes a handler of the one hasten compiled")
    return handler


def _through_get_request_handler(route: APIRoute, handler: Handler) -> Handler | None:
    current = sys.modules[__name__].get_request_handler
    if current is _ORIGINAL:
        return None
    dependant = Dependant(route.endpoint, route.path)
    return current(dependant=dependant, handler=handler)  # type: ignore[no-any-return]


_ORIGINAL = get_request_handler
APIRoute.wrapped_handler = _through_get_request_handler
