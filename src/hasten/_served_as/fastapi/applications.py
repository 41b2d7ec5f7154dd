"""``fastapi.applications``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten import Depends, FastAPI
from hasten.app import Starlette
from hasten.datastructures import Default, DefaultPlaceholder, State
from hasten.errors import (
    FastAPIDeprecationWarning,
    HTTPException,
    RequestValidationError,
    WebSocketRequestValidationError,
    http_exception_handler,
    request_validation_exception_handler,
    websocket_request_validation_exception_handler,
)
from hasten.middleware import Middleware
from hasten.middleware.base import BaseHTTPMiddleware
from hasten.middleware.exceptions import ExceptionMiddleware, ServerErrorMiddleware
from hasten.openapi import generate_unique_id, get_openapi
from hasten.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from hasten.requests import Request
from hasten.responses import HTMLResponse, JSONResponse, Response
from hasten.routing import BaseRoute
from hasten.telemetry import TelemetryConfig

__all__ = [
    "BaseHTTPMiddleware",
    "BaseRoute",
    "Default",
    "DefaultPlaceholder",
    "Depends",
    "ExceptionMiddleware",
    "FastAPI",
    "FastAPIDeprecationWarning",
    "HTMLResponse",
    "HTTPException",
    "JSONResponse",
    "Middleware",
    "Request",
    "RequestValidationError",
    "Response",
    "ServerErrorMiddleware",
    "Starlette",
    "State",
    "TelemetryConfig",
    "WebSocketRequestValidationError",
    "generate_unique_id",
    "get_openapi",
    "get_redoc_html",
    "get_swagger_ui_html",
    "get_swagger_ui_oauth2_redirect_html",
    "http_exception_handler",
    "request_validation_exception_handler",
    "websocket_request_validation_exception_handler",
]
