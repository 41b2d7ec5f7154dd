"""App: registration, startup and shutdown, and the protocol entry points."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import HTTPError, error_response, server_error_response
from .matcher import Matcher
from .middleware import build_chain
from .pools import ThreadPool
from .protocols import asgi, rsgi
from .requests import Request
from .responses import Response
from .routing import Router
from .settings import DEFAULT_MAX_BODY_SIZE, DEFAULT_MAX_THREADS, Settings
from .types import Handler, Hook, Middleware

__all__ = ["App", "RouteInfo"]

logger = logging.getLogger("hasten.error")

H = TypeVar("H", bound=Hook)
M = TypeVar("M", bound=Middleware)
Lifespan = Callable[["App"], AbstractAsyncContextManager[Any]]


@dataclass(frozen=True, slots=True)
class RouteInfo:
    """One row of ``hasten routes``: what serves which requests, and where it runs."""

    methods: tuple[str, ...]
    path: str
    handler: str
    runs_on: str


class App(Router):
    """A hasten application: an RSGI app (``__rsgi__``) and an ASGI 3 app (``__call__``).

    Routes, middleware and hooks are registered first; on startup (the server's lifespan,
    ``__rsgi_init__``, or the first request) everything is compiled and frozen.
    """

    def __init__(
        self,
        *,
        debug: bool = False,
        max_body_size: int = DEFAULT_MAX_BODY_SIZE,
        max_threads: int = DEFAULT_MAX_THREADS,
        lifespan: Lifespan | None = None,
    ) -> None:
        super().__init__()
        self.settings = Settings(debug=debug, max_body_size=max_body_size, max_threads=max_threads)
        self._lifespan = lifespan
        self._lifespan_stack: contextlib.AsyncExitStack | None = None
        self._startup_hooks: list[Hook] = []
        self._shutdown_hooks: list[Hook] = []
        self._middlewares: list[Middleware] = []
        self._thread_pool: ThreadPool | None = None
        self._matcher = Matcher([])
        self._start_lock = asyncio.Lock()
        self._started = False
        # The whole request path, middleware included: relinked on startup and shutdown.
        self.handle: Handler = self._start_on_first_request

    # The protocol entry points: thin adapters into the same core.
    __call__ = asgi.serve
    __rsgi__ = rsgi.serve

    def __rsgi_init__(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.run_until_complete(self.startup())

    def __rsgi_del__(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.run_until_complete(self.shutdown())

    # Registration.
    def on_startup(self, hook: H) -> H:
        """Run ``hook`` (sync or async) when the app starts, before the first request."""
        self._check_open("add a startup hook")
        self._startup_hooks.append(hook)
        return hook

    def on_shutdown(self, hook: H) -> H:
        """Run ``hook`` (sync or async) when the app stops."""
        self._check_open("add a shutdown hook")
        self._shutdown_hooks.append(hook)
        return hook

    def middleware(self, middleware: M) -> M:
        """Wrap every request: ``async def mw(request, call_next) -> Response``.

        The first middleware registered is the outermost.
        """
        self._check_open("add a middleware")
        self._middlewares.append(middleware)
        return middleware

    # Lifecycle.
    @property
    def started(self) -> bool:
        return self._started

    async def startup(self) -> None:
        """Compile routes and middleware, start the thread pool, run startup hooks. Idempotent."""
        async with self._start_lock:
            if self._started:
                return
            self._compile()
            self._thread_pool = ThreadPool(self.settings.max_threads)
            for route in self.routes:
                route.endpoint.executor = self._thread_pool
            stack = contextlib.AsyncExitStack()
            try:
                for hook in self._startup_hooks:
                    await _run_hook(hook)
                if self._lifespan is not None:
                    await stack.enter_async_context(self._lifespan(self))
            except BaseException:
                await stack.aclose()
                self._thread_pool.shutdown(wait=False)
                raise
            self._lifespan_stack = stack
            self.handle = build_chain(self._middlewares, self._dispatch)
            self._started = True

    async def shutdown(self) -> None:
        """Run shutdown hooks and the lifespan's exit, then stop the thread pool."""
        async with self._start_lock:
            if not self._started:
                return
            self._started = False
            self.handle = self._start_on_first_request
            try:
                if self._lifespan_stack is not None:
                    await self._lifespan_stack.aclose()
                for hook in self._shutdown_hooks:
                    await _run_hook(hook)
            finally:
                if self._thread_pool is not None:
                    await asyncio.to_thread(self._thread_pool.shutdown)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[App]:
        """``async with app.running():`` starts the app and stops it on exit."""
        await self.startup()
        try:
            yield self
        finally:
            await self.shutdown()

    def _compile(self) -> None:
        self._freeze()
        self._matcher = Matcher([route.compile() for route in self.routes])

    # Inspection.
    def describe_routes(self) -> list[RouteInfo]:
        """Each route, its methods, its handler and how the handler runs."""
        return [
            RouteInfo(
                tuple(sorted(route.methods)),
                route.path,
                route.endpoint.name,
                route.endpoint.runs_on,
            )
            for route in self.routes
        ]

    # The request path. The adapters call ``handle`` and, if it raises, ``error_response``.
    async def _start_on_first_request(self, request: Request) -> Response:
        await self.startup()
        return await self.handle(request)

    async def _dispatch(self, request: Request) -> Response:
        handler, request.path_params = self._matcher.match(request.method, request.path)
        try:
            return await handler(request)
        except Exception as exc:
            return self.error_response(request, exc)

    def error_response(self, request: Request, exc: Exception) -> Response:
        """The response for an exception: its own for an HTTPError, else a logged 500."""
        if isinstance(exc, HTTPError):
            return error_response(exc)
        logger.error(
            "Unhandled exception while serving %s %s", request.method, request.path, exc_info=exc
        )
        return server_error_response(exc, self.settings.debug)


async def _run_hook(hook: Hook) -> None:
    result = hook()
    if inspect.isawaitable(result):
        await result
