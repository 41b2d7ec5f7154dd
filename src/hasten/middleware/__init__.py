"""The middleware chain: ``async (request, call_next) -> Response``, linked once at startup."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence

from ..requests import Request
from ..responses import Response
from ..types import Handler, Middleware

__all__ = ["build_chain"]


class _Link:
    """One middleware bound to the rest of the chain."""

    __slots__ = ("middleware", "next")

    def __init__(self, middleware: Middleware, next_handler: Handler) -> None:
        self.middleware = middleware
        self.next = next_handler

    def __call__(self, request: Request) -> Awaitable[Response]:
        # perf: returns the middleware's coroutine instead of awaiting it in one more frame.
        return self.middleware(request, self.next)


def build_chain(middlewares: Sequence[Middleware], innermost: Handler) -> Handler:
    """Wrap ``innermost`` so that the first middleware registered runs first."""
    handler = innermost
    for middleware in reversed(middlewares):
        handler = _Link(middleware, handler)
    return handler
