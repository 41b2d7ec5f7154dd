"""``starlette.middleware.authentication``, served by hasten: its names, as hasten's."""

from __future__ import annotations

from hasten.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    UnauthenticatedUser,
)
from hasten.middleware.authentication import AuthenticationMiddleware
from hasten.requests import HTTPConnection
from hasten.responses import PlainTextResponse, Response

__all__ = [
    "AuthCredentials",
    "AuthenticationBackend",
    "AuthenticationError",
    "AuthenticationMiddleware",
    "HTTPConnection",
    "PlainTextResponse",
    "Response",
    "UnauthenticatedUser",
]
