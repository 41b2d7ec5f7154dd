"""Runtime: what an app builds when it starts, and the one request path both adapters call.

The compiled matcher, the pools bound to each endpoint, the middleware chain, the blocking
monitor and the gate on requests in flight depend only on the app, so they are decided once.
``serve`` is the request path: gate, match, invoke, render, error handling and send.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import Callable
from types import CodeType
from typing import TYPE_CHECKING, Any

from .body_wait import BodyWait
from .connection import NO_PATH_PARAMS, PathParams
from .dependencies import AppDependencies
from .errors import ExceptionHandlers, HTTPError, report_unhandled, server_error_response
from .matcher import Matcher
from .middleware import build_chain
from .monitor import LoopMonitor
from .observe import WHERE, Observer, QueueTimer, RouteTag, Sink, Tracer
from .overload import InFlight
from .params import describe_handler, unwrap
from .pools import Pools
from .requests import Request
from .responses import Response
from .transport import Sending, Transport
from .websockets import (
    GOING_AWAY,
    INTERNAL_ERROR,
    POLICY_VIOLATION,
    WebSocket,
    WebSocketDisconnect,
)

if TYPE_CHECKING:
    from .app import App
    from .metrics import Metrics
    from .routing import Route
    from .settings import Settings
    from .stats import RouteCounts
    from .types import Middleware

__all__ = ["RequestReader", "Runtime"]

logger = logging.getLogger("hasten.error")
LOGGED_PATH_LENGTH = 200

# An adapter's Request class: built from the server's objects only when something reads it.
RequestReader = Callable[["App", int, Any, Transport, PathParams], Request]


class Runtime:
    """The started state of an app, and its request path."""

    metrics: Metrics | None  # with metrics_url
    route_counts: RouteCounts | None  # with stats_token

    def __init__(self, app: App, routes: list[Route], middlewares: list[Middleware]) -> None:
        settings = app.settings
        self.app = app
        self.body_limit = settings.max_body_size
        self.debug = settings.debug
        needs_processes = any(route.endpoint.runs_on == "process pool" for route in routes)
        self.pools = Pools(
            settings.max_threads, settings.max_processes, settings.process_threads, needs_processes
        )
        self.exception_handlers = ExceptionHandlers(app.exception_handlers)
        # The overrides in force and the values of scope="app" dependencies, for this run.
        self.dependencies = AppDependencies(app.dependency_overrides)
        self.in_flight = InFlight(settings.max_in_flight)
        sinks, tracer = self._observers(settings)
        observed = bool(sinks) or tracer is not None
        # Observed, the handlers' pools note how long each call waited for a thread.
        pools = self.pools.timed(QueueTimer) if observed else self.pools
        try:
            compiled = [route.compile(pools, self.dependencies) for route in routes]
            self.matcher = Matcher(compiled)
        except BaseException:
            self.pools.shutdown()
            raise
        self.match = self.matcher.match
        self.match_dynamic = self.matcher.match_dynamic
        self.static_targets = self.matcher.static_targets
        self.body_wait = BodyWait(self.in_flight, settings.body_timeout)
        # Open WebSockets and the tasks serving them: shutdown closes those left with 1001.
        self.sockets: dict[WebSocket, asyncio.Task[Any] | None] = {}
        self.chain = build_chain(middlewares, self.dispatch) if middlewares else None
        self.monitor: LoopMonitor | None = None
        if settings.block_threshold is not None:
            self.monitor = LoopMonitor(settings.block_threshold, _codes(routes, middlewares))
            if self.metrics is not None:
                self.monitor.listener = self.metrics.stalled
        if observed:
            tags = {
                done.target: RouteTag(route.path, WHERE[route.endpoint.runs_on])
                for route, done in zip(routes, compiled, strict=True)
            }
            observer = Observer(self.serve, self.matcher, tags=tags, sinks=sinks, tracer=tracer)
            # Decided once: this instance serves every request through the observer.
            setattr(self, "serve", observer.serve)  # noqa: B010

    def _observers(self, settings: Settings) -> tuple[list[Sink], Tracer | None]:
        """What observes each request, as the settings ask: nothing by default. Each module
        is imported only by an app that uses it."""
        sinks: list[Sink] = []
        self.metrics = self.route_counts = None
        if settings.metrics_url is not None:
            from .metrics import Metrics

            self.metrics = Metrics(self.pools, self.in_flight)
            sinks.append(self.metrics)
        if settings.stats_token is not None:
            from .stats import RouteCounts

            self.route_counts = RouteCounts()
            sinks.append(self.route_counts)
        if settings.access_log is not None:
            from .access_log import AccessLog

            sinks.append(AccessLog(settings.access_log))
        tracer = None
        if settings.tracing:
            from . import tracing

            # Without a tracer provider every span would be a no-op: skip them all.
            tracer = tracing.Tracing() if tracing.configured() else None
        return sinks, tracer

    def start(self) -> None:
        """Start what needs the running loop (call from the loop's thread)."""
        self.body_wait.start()
        if self.monitor is not None:
            self.monitor.start()
        if self.metrics is not None:
            self.metrics.start()
        settings = self.app.settings
        if settings.ready_url is not None:
            from .drain import drain_on_sigterm

            drain_on_sigterm(self.in_flight, settings.shutdown_timeout)

    def stop(self) -> None:
        self.body_wait.stop()
        if self.monitor is not None:
            self.monitor.stop()
        if self.metrics is not None:
            self.metrics.close()
        self.pools.shutdown()

    async def serve(
        self, method: str, path: str, scope: Any, transport: Transport, reader: RequestReader
    ) -> None:
        """Serve one request: the adapters' only call into the core. Never raises, unless
        sending itself fails (the server then drops the connection).

        ``path`` is what the app routes on; ``scope`` and ``transport`` are the server's
        objects, which ``reader`` turns into a Request when the handler or a middleware needs
        one. The in-flight slot is held until the response is sent.
        """
        gate = self.in_flight
        head = method == "HEAD"
        if gate.count >= gate.limit:
            await _sent(gate.refuse().send(transport, head, None))
            return
        gate.count += 1
        request = None
        try:
            try:
                if self.chain is None:
                    # perf: without middleware nothing needs the Response object, nor a
                    # Request unless the handler takes arguments; a static path is looked up
                    # here without a call into the matcher (benchmarks/overhead.py).
                    targets = self.static_targets.get(path)
                    target = targets.get(method) if targets is not None else None
                    if target is None:
                        target, params = self.match_dynamic(method, path)
                    else:
                        params = NO_PATH_PARAMS
                    if target.takes_request:
                        request = reader(self.app, self.body_limit, scope, transport, params)
                        result = await target.invoke(request)
                    else:
                        result = await target.invoke()
                    sending = target.send(result, transport, head, request)
                else:
                    request = reader(self.app, self.body_limit, scope, transport, NO_PATH_PARAMS)
                    sending = (await self.chain(request)).send(transport, head, request)
            except Exception as exc:
                if request is None:
                    request = reader(self.app, self.body_limit, scope, transport, NO_PATH_PARAMS)
                sending = (await self.error_response(request, exc)).send(transport, head, request)
            if sending is not None:
                await sending
        finally:
            # After-send work (yield dependencies' cleanup, background tasks) hangs on the
            # Request of the routes that have any: for every other request this is one
            # check. It runs with the in-flight slot still held, so shutdown drains it too.
            if request is not None and request._cleanup is not None:
                cleanup, request._cleanup = request._cleanup, None
                await cleanup.after_response()
            gate.count -= 1

    async def serve_websocket(self, path: str, websocket: WebSocket) -> None:
        """Serve one WebSocket connection: match, invoke the handler, close what it left open.

        A path without a WebSocket route refuses the handshake (404, or 403 where an HTTP route
        has the path); a handler's HTTPError before ``accept()`` refuses it with its status.
        """
        target, params = self.match("WEBSOCKET", path)
        if not target.websocket:
            status = 403 if self.matcher.allowed_methods(path) else 404
            await self._end_websocket(websocket, status, 1000)
            return
        websocket.path_params = params
        self.sockets[websocket] = asyncio.current_task()
        try:
            if target.takes_request:
                await target.invoke(websocket)
            else:
                await target.invoke()
        except WebSocketDisconnect as exc:
            report_unhandled(exc)  # a TestClient raises it in the test, as Starlette's does
        except HTTPError as exc:
            await self._end_websocket(websocket, exc.status, POLICY_VIOLATION)
        except Exception as exc:
            logger.error(
                "Unhandled exception in WebSocket %s", path[:LOGGED_PATH_LENGTH], exc_info=exc
            )
            report_unhandled(exc)
            await self._end_websocket(websocket, 500, INTERNAL_ERROR)
        finally:
            del self.sockets[websocket]
        if websocket.connection_state != "closed":
            await self._end_websocket(websocket, 403, 1000)
        if websocket._cleanup is not None:  # yield dependencies' exits, background tasks
            cleanup, websocket._cleanup = websocket._cleanup, None
            await cleanup.after_response()

    @staticmethod
    async def _end_websocket(websocket: WebSocket, status: int, code: int) -> None:
        with contextlib.suppress(Exception):  # the client may have gone already
            if websocket.connection_state == "connecting":
                await websocket.refuse(status)
            else:
                await websocket.close(code)

    async def close_websockets(self, timeout: float) -> None:
        """Shutdown: wait up to ``timeout`` seconds for WebSockets to end, then close those
        left with 1001 (going away) and stop their handlers."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while self.sockets and loop.time() < deadline:
            await asyncio.sleep(0.01)
        for websocket, task in list(self.sockets.items()):
            with contextlib.suppress(Exception):
                await websocket.close(GOING_AWAY, "server shutting down")
            if task is not None:
                task.cancel()

    async def dispatch(self, request: Request) -> Response:
        """Route, run the handler, render: the innermost link of the middleware chain.

        Middleware sees a handler's error as the response it becomes on the wire.
        """
        try:
            target, request.path_params = self.match(request.method, request.path)
            if target.takes_request:
                return target.render(await target.invoke(request))
            return target.render(await target.invoke())
        except Exception as exc:
            return await self.error_response(request, exc)

    async def error_response(self, request: Request, exc: Exception) -> Response:
        """The response for an exception: its exception handler's (the app's, else the
        default for HTTPError and RequestValidationError), else a logged 500. A handler that
        fails is a logged 500 too."""
        handler = self.exception_handlers.lookup(exc)
        if handler is None:
            self._log(request, "Unhandled exception while serving", exc)
            report_unhandled(exc)
            return server_error_response(exc, self.debug)
        try:
            response = handler(request, exc)
            if inspect.isawaitable(response):
                response = await response
            if not isinstance(response, Response):
                raise TypeError(
                    f"The exception handler {describe_handler(handler)} returned "
                    f"{type(response).__name__}, not a Response"
                )
            return response
        except Exception as failure:
            self._log(request, f"The exception handler for {exc!r} failed while serving", failure)
            report_unhandled(failure)
            return server_error_response(failure, self.debug)

    @staticmethod
    def _log(request: Request, what: str, exc: BaseException) -> None:
        logger.error(
            "%s %s %s", what, request.method, request.path[:LOGGED_PATH_LENGTH], exc_info=exc
        )


async def _sent(sending: Sending) -> None:
    if sending is not None:
        await sending


def _codes(routes: list[Route], middlewares: list[Middleware]) -> dict[CodeType, str]:
    """The code objects that run on the event loop, and what to call them in a report."""
    codes: dict[CodeType, str] = {}
    for route in routes:
        if route.endpoint.runs_on == "event loop":
            code = getattr(unwrap(route.endpoint.func), "__code__", None)
            if code is not None:
                codes[code] = route.label
    for middleware in middlewares:
        code = getattr(unwrap(middleware), "__code__", None)
        if code is not None:
            codes[code] = f"middleware {getattr(middleware, '__qualname__', middleware)}"
    return codes
