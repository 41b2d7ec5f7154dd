"""``fastapi.routing``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

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
    "jsonable_encoder",
    "request_response",
    "websocket_session",
]
