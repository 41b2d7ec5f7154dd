"""``starlette.applications``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.app import Starlette
from hasten.datastructures import State
from hasten.middleware import Middleware
from hasten.middleware.exceptions import ExceptionMiddleware, ServerErrorMiddleware
from hasten.requests import Request
from hasten.responses import Response
from hasten.routing import BaseRoute, Router

__all__ = [
    "BaseRoute",
    "ExceptionMiddleware",
    "Middleware",
    "Request",
    "Response",
    "Router",
    "ServerErrorMiddleware",
    "Starlette",
    "State",
]
