"""``starlette.middleware.httpsredirect``, served by hasten: its names, as hasten's."""

from __future__ import annotations

from hasten.datastructures import URL
from hasten.middleware import HTTPSRedirectMiddleware
from hasten.responses import PlainTextResponse, RedirectResponse

__all__ = ["URL", "HTTPSRedirectMiddleware", "PlainTextResponse", "RedirectResponse"]
