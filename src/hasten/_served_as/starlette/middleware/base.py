"""``starlette.middleware.base``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.middleware.base import BaseHTTPMiddleware, DispatchFunction, RequestResponseEndpoint
from hasten.requests import ClientDisconnected as ClientDisconnect
from hasten.requests import Request
from hasten.responses import Response
from hasten.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "ASGIApp",
    "BaseHTTPMiddleware",
    "ClientDisconnect",
    "DispatchFunction",
    "Message",
    "Receive",
    "Request",
    "RequestResponseEndpoint",
    "Response",
    "Scope",
    "Send",
]
