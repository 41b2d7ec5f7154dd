"""Middleware: ``async (request, call_next) -> Response``, linked once at startup; and the
built-in ones, added with ``app.add_middleware(Cls, **options)``.

Each built-in lives in its own module and costs nothing to an app that does not add it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from ..params import describe_handler
from ..requests import Request
from ..responses import Response
from ..types import Handler
from ..types import Middleware as MiddlewareFunction
from .cors import CORSMiddleware
from .gzip import GZipMiddleware
from .https_redirect import HTTPSRedirectMiddleware
from .proxy_headers import ProxyHeadersMiddleware
from .trusted_host import TrustedHostMiddleware

__all__ = [
    "CORSMiddleware",
    "GZipMiddleware",
    "HTTPSRedirectMiddleware",
    "Middleware",
    "ProxyHeadersMiddleware",
    "TrustedHostMiddleware",
    "build_chain",
]


class Middleware:
    """A middleware class and what to build it with, for ``App(middleware=[...])``
    (Starlette's): ``Middleware(CORSMiddleware, allow_origins=["*"])``. The first in the list
    is the outermost; each is added as ``app.add_middleware`` adds it."""

    __slots__ = ("args", "cls", "kwargs")

    def __init__(self, cls: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
        self.cls = cls
        self.args = args
        self.kwargs = kwargs

    def __iter__(self) -> Iterator[Any]:
        return iter((self.cls, self.args, self.kwargs))

    def __repr__(self) -> str:
        name = getattr(self.cls, "__name__", repr(self.cls))
        options = [*map(repr, self.args), *(f"{k}={v!r}" for k, v in self.kwargs.items())]
        return f"Middleware({', '.join([name, *options])})"


class _Link:
    """One middleware bound to the rest of the chain; it checks what the middleware returns."""

    __slots__ = ("middleware", "name", "next")

    def __init__(self, middleware: MiddlewareFunction, next_handler: Handler) -> None:
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


def build_chain(middlewares: Sequence[MiddlewareFunction], innermost: Handler) -> Handler:
    """Wrap ``innermost`` so that the first middleware registered runs first."""
    handler = innermost
    for middleware in reversed(middlewares):
        handler = _Link(middleware, handler)
    return handler
