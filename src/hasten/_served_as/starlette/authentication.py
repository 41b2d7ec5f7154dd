"""``starlette.authentication``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    BaseUser,
    SimpleUser,
    UnauthenticatedUser,
    has_required_scope,
    requires,
)
from hasten.errors import HTTPException
from hasten.requests import HTTPConnection, Request
from hasten.responses import RedirectResponse
from hasten.websockets import WebSocket

__all__ = [
    "AuthCredentials",
    "AuthenticationBackend",
    "AuthenticationError",
    "BaseUser",
    "HTTPConnection",
    "HTTPException",
    "RedirectResponse",
    "Request",
    "SimpleUser",
    "UnauthenticatedUser",
    "WebSocket",
    "has_required_scope",
    "requires",
]
