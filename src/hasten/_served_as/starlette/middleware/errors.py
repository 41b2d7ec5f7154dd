"""``starlette.middleware.errors``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.middleware.exceptions import ServerErrorMiddleware
from hasten.requests import Request
from hasten.responses import HTMLResponse, PlainTextResponse, Response

__all__ = ["HTMLResponse", "PlainTextResponse", "Request", "Response", "ServerErrorMiddleware"]
