"""Middleware: ``async (request, call_next) -> Response``, linked once at startup (see
``hasten._serve.chain``); and the built-in ones, added with ``app.add_middleware(Cls, **options)``.

Each built-in lives in its own module and costs nothing to an app that does not add it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from hasten.middleware.cors import CORSMiddleware
from hasten.middleware.gzip import GZipMiddleware
from hasten.middleware.https_redirect import HTTPSRedirectMiddleware
from hasten.middleware.proxy_headers import ProxyHeadersMiddleware
from hasten.middleware.trusted_host import TrustedHostMiddleware

__all__ = [
    "CORSMiddleware",
    "GZipMiddleware",
    "HTTPSRedirectMiddleware",
    "Middleware",
    "ProxyHeadersMiddleware",
    "TrustedHostMiddleware",
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
