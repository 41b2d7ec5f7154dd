"""Middleware: ``async (request, call_next) -> Response``, linked once at startup; and the
built-in ones, added with ``app.add_middleware(Cls, **options)``.

Each built-in lives in its own module and costs nothing to an app that does not add it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..params import describe_handler
from ..requests import Request
from ..responses import Response
from ..types import Handler, Middleware
from .cors import CORSMiddleware
from .gzip import GZipMiddleware
from .https_redirect import HTTPSRedirectMiddleware
from .proxy_headers import ProxyHeadersMiddleware
from .trusted_host import TrustedHostMiddleware

__all__ = [
    "CORSMiddleware",
    "GZipMiddleware",
    "HTTPSRedirectMiddleware",
    "ProxyHeadersMiddleware",
    "TrustedHostMiddleware",
    "build_chain",
]


class _Link:
    """One middleware bound to the rest of the chain; it checks what the middleware returns."""

    __slots__ = ("middleware", "name", "next")

    def __init__(self, middleware: Middleware, next_handler: Handler) -> None:
        self.middleware = middleware
        self.next = next_handler
        self.name = describe_handler(middleware)

    async def __call__(self, request: Request) -> Response:
        response = await self.middleware(request, self.next)
        if not isinstance(response, Response):
            raise TypeError(
                f"Middleware {self.name} returned {type(response).__name__} {response!r:.80}, "
                "not a Response: does it end with `return await call_next(request)`?"
            )
        return response


def build_chain(middlewares: Sequence[Middleware], innermost: Handler) -> Handler:
    """Wrap ``innermost`` so that the first middleware registered runs first."""
    handler = innermost
    for middleware in reversed(middlewares):
        handler = _Link(middleware, handler)
    return handler
