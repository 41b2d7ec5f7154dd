"""``fastapi.exceptions``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.errors import (
    DependencyScopeError,
    EndpointContext,
    FastAPIDeprecationWarning,
    FastAPIError,
    HTTPException,
    PydanticV1NotSupportedError,
    RequestValidationError,
    ResponseValidationError,
    ValidationException,
    WebSocketException,
    WebSocketRequestValidationError,
)
from hasten.errors import (
    HTTPException as StarletteHTTPException,
)
from hasten.errors import (
    WebSocketException as StarletteWebSocketException,
)

__all__ = [
    "DependencyScopeError",
    "EndpointContext",
    "FastAPIDeprecationWarning",
    "FastAPIError",
    "HTTPException",
    "PydanticV1NotSupportedError",
    "RequestValidationError",
    "ResponseValidationError",
    "StarletteHTTPException",
    "StarletteWebSocketException",
    "ValidationException",
    "WebSocketException",
    "WebSocketRequestValidationError",
]
