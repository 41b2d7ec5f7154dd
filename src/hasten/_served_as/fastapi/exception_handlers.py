"""``fastapi.exception_handlers``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.encoders import jsonable_encoder
from hasten.errors import (
    HTTPException,
    RequestValidationError,
    WebSocketRequestValidationError,
    http_exception_handler,
    request_validation_exception_handler,
    websocket_request_validation_exception_handler,
)
from hasten.requests import Request
from hasten.responses import JSONResponse, Response
from hasten.status import WS_1008_POLICY_VIOLATION
from hasten.websockets import WebSocket

__all__ = [
    "WS_1008_POLICY_VIOLATION",
    "HTTPException",
    "JSONResponse",
    "Request",
    "RequestValidationError",
    "Response",
    "WebSocket",
    "WebSocketRequestValidationError",
    "http_exception_handler",
    "jsonable_encoder",
    "request_validation_exception_handler",
    "websocket_request_validation_exception_handler",
]
