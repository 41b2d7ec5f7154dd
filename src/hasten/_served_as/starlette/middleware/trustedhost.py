"""``starlette.middleware.trustedhost``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.datastructures import URL, Headers
from hasten.middleware import TrustedHostMiddleware
from hasten.responses import PlainTextResponse, RedirectResponse, Response

__all__ = [
    "URL",
    "Headers",
    "PlainTextResponse",
    "RedirectResponse",
    "Response",
    "TrustedHostMiddleware",
]
