"""Middleware: ``async (request, call_next) -> Response``, linked once at startup; and the
built-in ones, added with ``app.add_middleware(Cls, **options)``.

Each built-in lives in its own module and costs nothing to an app that does not add it.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Iterator, Sequence
from types import FunctionType, MethodType
from typing import Any, NoReturn, cast

from hasten.middleware.cors import CORSMiddleware
from hasten.middleware.gzip import GZipMiddleware
from hasten.middleware.https_redirect import HTTPSRedirectMiddleware
from hasten.middleware.proxy_headers import ProxyHeadersMiddleware
from hasten.middleware.trusted_host import TrustedHostMiddleware
from hasten.params import describe_handler
from hasten.requests import Request
from hasten.responses import Response
from hasten.types import Handler
from hasten.types import Middleware as MiddlewareFunction

__all__ = [
    "CORSMiddleware",
    "GZipMiddleware",
    "HTTPSRedirectMiddleware",
    "Middleware",
    "ProxyHeadersMiddleware",
    "TrustedHostMiddleware",
    "build_chain",
    "not_a_response",
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


def build_chain(middlewares: Sequence[MiddlewareFunction], innermost: Handler) -> Handler:
    """Wrap ``innermost`` so that the first middleware registered runs first: each is handed
    the rest of the chain as its ``call_next``.

    perf: each link is a plain function that hands back the middleware's own coroutine, so
    a layer costs the middleware's call and nothing of ours beside it (a coroutine per link
    cost about 3,000 instructions, as much as the middleware's own). What the chain returns
    is checked once, by the serve step (see ``not_a_response``).
    """
    handler = innermost
    for middleware in reversed(middlewares):
        handler = _link(_callable(middleware), handler)
    return handler


def _link(middleware: MiddlewareFunction, call_next: Handler) -> Handler:
    def link(request: Request) -> Awaitable[Response]:
        return middleware(request, call_next)

    return link


def _callable(middleware: MiddlewareFunction) -> MiddlewareFunction:
    """A middleware as it is cheapest to call: a function itself, an instance (a built-in
    middleware) by its bound ``__call__`` (perf: an instance's call from Python goes through
    its type's slot, a bound method's does not)."""
    call = inspect.getattr_static(middleware, "__call__", None)
    if isinstance(call, FunctionType):
        return cast("MiddlewareFunction", MethodType(call, middleware))
    return middleware


def not_a_response(response: Any, middlewares: Sequence[MiddlewareFunction]) -> NoReturn:
    """The middleware chain returned ``response``, not a Response (a middleware that forgot
    to ``return`` gives None)."""
    names = ", ".join(describe_handler(middleware) for middleware in middlewares)
    which = names if len(middlewares) == 1 else f"chain {names}"
    raise TypeError(
        f"Middleware {which} returned {type(response).__name__} {response!r:.80}, not a "
        "Response: does each middleware end with `return await call_next(request)`?"
    )
