"""App: registration, startup and shutdown, and the protocol entry points."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import Any, TypeVar, Unpack

from .errors import HTTPError, error_response, server_error_response
from .middleware import build_chain
from .monitor import BlockStats
from .overload import overloaded
from .protocols import asgi, rsgi
from .requests import Request
from .responses import Response
from .routing import Router
from .runtime import Runtime
from .settings import Settings, SettingsKeywords
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
    blocked: BlockStats | None = None  # times it blocked the event loop, while running


class App(Router):
    """A hasten application: an RSGI app (``__rsgi__``) and an ASGI 3 app (``__call__``).

    Routes, middleware and hooks are registered first; on startup (the server's lifespan,
    ``__rsgi_init__``, or the first request) everything is compiled and frozen.
    Settings are keywords: ``App(debug=True, max_body_size=...)``, see ``Settings``.
    """

    def __init__(
        self, *, lifespan: Lifespan | None = None, **settings: Unpack[SettingsKeywords]
    ) -> None:
        super().__init__()
        self.settings = Settings(**settings)
        self._lifespan = lifespan
        self._lifespan_stack: contextlib.AsyncExitStack | None = None
        self._startup_hooks: list[Hook] = []
        self._shutdown_hooks: list[Hook] = []
        self._middlewares: list[Middleware] = []
        self._runtime: Runtime | None = None
        self._start_lock = asyncio.Lock()
        self._stopping = False
        # The whole request path below the gate, middleware included: linked on startup.
        self.handle: Handler = self._not_started
        # Set while started without middleware: the RSGI adapter then skips respond().
        self.direct: Runtime | None = None

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
        """Run ``hook`` (sync or async) when the app stops, after requests in flight finish."""
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
        return self._runtime is not None

    async def startup(self) -> None:
        """Compile routes and middleware, start the pools, run startup hooks. Idempotent."""
        async with self._start_lock:
            if self._runtime is not None:
                return
            self._freeze()
            runtime = Runtime(self.settings, self.routes, self._middlewares)
            stack = contextlib.AsyncExitStack()
            try:
                for hook in self._startup_hooks:
                    await _run_hook(hook)
                if self._lifespan is not None:
                    await stack.enter_async_context(self._lifespan(self))
            except BaseException:
                await stack.aclose()
                runtime.stop()
                raise
            runtime.start()
            self._lifespan_stack = stack
            self._runtime = runtime
            self.handle = build_chain(self._middlewares, self._dispatch)
            self.direct = None if self._middlewares else runtime

    async def shutdown(self) -> None:
        """Let requests in flight finish (up to ``shutdown_timeout``), run shutdown hooks and
        the lifespan's exit, then stop the pools."""
        async with self._start_lock:
            runtime = self._runtime
            if runtime is None:
                return
            runtime.in_flight.close()
            if not await runtime.in_flight.drained(self.settings.shutdown_timeout):
                logger.warning(
                    "Shutting down with %d requests still in flight after %s s",
                    runtime.in_flight.count,
                    self.settings.shutdown_timeout,
                )
            self._stopping = True
            self._runtime = self.direct = None
            self.handle = self._not_started
            try:
                if self._lifespan_stack is not None:
                    await self._lifespan_stack.aclose()
                for hook in self._shutdown_hooks:
                    await _run_hook(hook)
            finally:
                await asyncio.to_thread(runtime.stop)
                self._stopping = False

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[App]:
        """``async with app.running():`` starts the app and stops it on exit."""
        await self.startup()
        try:
            yield self
        finally:
            await self.shutdown()

    # Inspection.
    def describe_routes(self) -> list[RouteInfo]:
        """Each route, its methods, its handler, how the handler runs, and (while the app
        runs) how often it blocked the event loop."""
        blocked = self._block_stats()
        return [
            RouteInfo(
                tuple(sorted(route.methods)),
                route.path,
                route.endpoint.name,
                route.endpoint.runs_on,
                blocked.get(route.label),
            )
            for route in self.routes
        ]

    def stats(self) -> dict[str, Any]:
        """What the running app has seen: requests in flight, refused, and event-loop stalls
        by route (``{"GET /x": {"count": 2, "total_ms": 350.0, "max_ms": 190.0}}``)."""
        runtime = self._runtime
        return {
            "in_flight": runtime.in_flight.count if runtime else 0,
            "refused": runtime.in_flight.refused if runtime else 0,
            "blocked": {
                label: {"count": item.count, "total_ms": item.total_ms, "max_ms": item.max_ms}
                for label, item in self._block_stats().items()
            },
        }

    def _block_stats(self) -> dict[str, BlockStats]:
        runtime = self._runtime
        if runtime is None or runtime.monitor is None:
            return {}
        return dict(runtime.monitor.stats)

    # The request path.
    async def respond(self, request: Request) -> Response:
        """Serve one request: the adapters' only call into the core. Never raises."""
        runtime = self._runtime
        if runtime is None:
            runtime = await self._start_for(request)
            if runtime is None:
                return error_response(overloaded("The server is shutting down"))
        in_flight = runtime.in_flight
        if not in_flight.try_enter():
            return in_flight.refuse()
        try:
            return await self.handle(request)
        except Exception as exc:  # a middleware's own error
            return self.error_response(request, exc)
        finally:
            in_flight.leave()

    async def _start_for(self, request: Request) -> Runtime | None:
        """A request came before any startup (a server without lifespan): start now, unless
        the app is stopping."""
        if self._stopping:
            return None
        await self.startup()
        return self._runtime

    async def _not_started(self, request: Request) -> Response:
        raise RuntimeError("The app has not started: serve it through respond()")

    async def _dispatch(self, request: Request) -> Response:
        """Route, run the handler, render: the innermost link of the middleware chain.

        The RSGI adapter inlines this (and respond) for an app without middleware.
        """
        assert self._runtime is not None
        try:
            target, request.path_params = self._runtime.matcher.match(request.method, request.path)
            return target.render(await target.invoke(request))
        except Exception as exc:
            # Middleware sees a handler's error as the response it becomes on the wire.
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
