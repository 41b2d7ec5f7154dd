"""Runtime: what an app builds when it starts: the compiled matcher, the pools bound to each
endpoint, the serve step for the app's shape (steps.py: the request path both adapters call),
the blocking monitor, the gate on requests in flight and the serve context. They depend only on
the app, so they are decided once. WebSockets are served here, as are the exception handlers'
responses every step asks for.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from functools import partial
from types import CodeType
from typing import TYPE_CHECKING, Any, cast

import anyio

from hasten._flow.body_wait import BodyWait
from hasten._flow.context import ServeContext
from hasten._flow.in_flight import InFlight
from hasten._http.connection import unhandled
from hasten._http.error_responses import ExceptionHandler, ExceptionHandlers, server_error_response
from hasten._http.errors import (
    EndpointContext,
    HTTPError,
    RequestValidationError,
    ValidationException,
    WebSocketException,
    report_unhandled,
)
from hasten._http.requests import Request
from hasten._http.responses import Response
from hasten._http.websockets import (
    INTERNAL_ERROR,
    POLICY_VIOLATION,
    WebSocket,
    WebSocketDisconnect,
)
from hasten._observing.drain import Stopping, stop_on_sigterm
from hasten._observing.observe import WHERE, Observer, RouteTag, Sink, Tracer, queue_timer
from hasten._observing.tallies import Tallies
from hasten._params.dependencies import AppDependencies
from hasten._params.descriptions import describe_handler, unwrap
from hasten._running.event_loop import on_asyncio, report_off
from hasten._running.monitor import BlockStats, LoopMonitor
from hasten._running.pools import Pools
from hasten._running.threads import being_cancelled, shielded
from hasten._serve import stopping
from hasten._serve.chain import (
    header_steps,
)
from hasten._serve.matcher import CompiledRoute, Matcher, RouteConflict
from hasten._serve.steps import Bare, Chained, Headed, Step
from hasten._settings import Settings

if TYPE_CHECKING:
    from hasten._flow.contracts import Middleware, Target
    from hasten._flow.transport import Outbound
    from hasten._http.connection import Connection
    from hasten._observing.metrics import Metrics
    from hasten._observing.stats import RouteCounts
    from hasten._observing.tracing import Telemetry
    from hasten._serve.routes import BaseRoute

__all__ = ["Runtime"]

logger = logging.getLogger("hasten.error")
routes_logger = logging.getLogger("hasten.routes")
LOGGED_PATH_LENGTH = 200


class Runtime:
    """The started state of an app, and its request path."""

    metrics: Metrics | None  # with metrics_url
    route_counts: RouteCounts | None  # with stats_token

    def __init__(
        self,
        settings: Settings,
        routes: Sequence[BaseRoute],
        middlewares: Sequence[Middleware],
        exception_handlers: Mapping[type[BaseException] | int, ExceptionHandler],
        overrides: Mapping[Any, Any],
        *,
        state: dict[str, Any] | None = None,
    ) -> None:
        from hasten._serve.health import control_routes

        self.settings = settings
        # Decided once: asyncio's loop, or another that AnyIO runs (trio; see event_loop.py).
        self.on_asyncio = on_asyncio()
        needs_processes = any(route.compiled.runs_on == "process pool" for route in routes)
        self.pools = Pools(
            settings.max_threads,
            settings.max_processes,
            settings.process_threads,
            needs_processes,
            self.on_asyncio,
        )
        self.exception_handlers = ExceptionHandlers(exception_handlers)
        # The overrides in force and the values of scope="app" dependencies, for this run.
        self.dependencies = AppDependencies(overrides)
        self.in_flight = InFlight(settings.max_in_flight)
        self.telemetry = _telemetry(settings)
        self.context = ServeContext.of(
            settings,
            BodyWait(self.in_flight, settings.body_timeout),
            self.pools.threads,
            {} if state is None else state,
            telemetry=self.telemetry,
            on_asyncio=self.on_asyncio,
        )
        self.observer = self._observer(settings)
        # Where the access log or a tracer reports it, the handlers' pools note how long each
        # call waited for a thread.
        # (AnyIO's threads, off asyncio, are not timed.)
        timed = self.observer is not None and self.observer.times_queues and self.on_asyncio
        self._route_pools = self.pools.timed(queue_timer) if timed else self.pools
        self._control = control_routes(settings, self)
        _check_control_routes(routes, self._control)
        self.routes = [*routes, *self._control]
        # Held while the matcher is rebuilt (a late route, changed overrides), from any thread.
        self._rebuilding = threading.Lock()
        try:
            self._compiled = [self._compile(route) for route in self.routes]
            self._use(self._matcher(self._compiled))
        except BaseException:
            self.pools.shutdown()
            raise
        # Open WebSockets and the tasks serving them: a stop closes them with 1001 (stopping.py).
        self.sockets: dict[WebSocket, asyncio.Task[Any] | anyio.CancelScope | None] = {}
        self.middlewares = tuple(middlewares)
        self.step = self._step(self.middlewares)
        # What the adapters call for each request (see steps.py).
        self.serve: Callable[[Request, Outbound], Awaitable[None]] = self.step.serve
        if self.observer is not None:
            self.observer.step = self.step.serve
            self.serve = self.observer.serve
        self.monitor: LoopMonitor | None = None
        if settings.block_threshold is not None:
            self.monitor = LoopMonitor(settings.block_threshold, _codes(self.routes, middlewares))
            if self.metrics is not None:
                self.monitor.listener = self.metrics.stalled

    def _compile(self, route: BaseRoute) -> CompiledRoute:
        compiled = route.compile(self._route_pools, self.dependencies, self.context)
        if self.observer is not None:
            compiled.target.tag = RouteTag(route.path, WHERE[route.compiled.runs_on])
        return compiled

    def _matcher(self, compiled: Sequence[CompiledRoute]) -> Matcher:
        return Matcher(compiled, redirect_slashes=self.settings.redirect_slashes)

    def _use(self, matcher: Matcher) -> None:
        for shadowed in matcher.shadowed:
            routes_logger.warning(shadowed)
        # One reference each, swapped whole: a request in flight matched on the old matcher.
        self.matcher = matcher
        self.match = matcher.match
        step = getattr(self, "step", None)  # none yet as the app starts
        if step is not None:
            step.use(matcher)

    def _step(self, middlewares: tuple[Middleware, ...]) -> Step:
        """The serve step for the app's shape (see steps.py). Header middlewares alone (CORS)
        run as their two steps; any other middleware, and every one with it, runs as the
        chain: the first registered outermost, ``dispatch`` innermost."""
        if not middlewares:
            return Bare(self, self.matcher)
        steps = header_steps(middlewares)
        if steps is not None:
            return Headed(self, self.matcher, steps)
        return Chained(self, self.matcher, middlewares)

    def use_routes(self, routes: Sequence[BaseRoute]) -> None:
        """Serve ``routes`` from the next request on (routes added, or routers included,
        after the app started, as FastAPI allows): every route is compiled again and the
        matcher built again, once per change; a request matched before it sees the old
        one."""
        with self._rebuilding:
            _check_control_routes(routes, self._control)
            every = [*routes, *self._control]
            compiled = [self._compile(route) for route in every]
            self._check_app_values("A route added while the app runs")
            self.routes = every
            self._compiled = compiled
            self._use(self._matcher(compiled))

    def use_overrides(self, overrides: Mapping[Any, Any]) -> None:
        """Apply ``overrides`` (``app.dependency_overrides`` changed while the app runs): every
        route is compiled again with them, since the plans hold the dependencies they
        resolved; a request in the dependencies of one goes on with them from its next one
        (``AppDependencies.use``)."""
        with self._rebuilding:
            self.dependencies.use(overrides)
            compiled = [self._compile(route) for route in self.routes]
            self._check_app_values("An override changed while the app runs")
            self._compiled = compiled
            self._use(self._matcher(compiled))

    def _check_app_values(self, what: str) -> None:
        """App-scoped values are created at startup: what comes later cannot ask for new ones."""
        missing = self.dependencies.not_created()
        if missing:
            raise RuntimeError(
                f"{what} needs the app-scoped dependencies {missing}, which are created when "
                "the app starts: register or override it before startup"
            )

    def _observer(self, settings: Settings) -> Observer | None:
        """What observes each request, as the settings ask: nothing by default. Each module
        is imported only by an app that uses it."""
        self.metrics = self.route_counts = None
        tallies = Tallies()  # what the metrics and the live stats read, when either is on
        if settings.metrics_url is not None:
            from hasten._observing.metrics import Metrics

            self.metrics = Metrics(self.pools, self.in_flight, tallies)
        if settings.stats_token is not None:
            from hasten._observing.stats import RouteCounts

            self.route_counts = RouteCounts(self.stats, tallies)
        counted = self.metrics is not None or self.route_counts is not None
        sinks: list[Sink] = []
        if settings.access_log is not None:
            from hasten._observing.access_log import AccessLog

            sinks.append(AccessLog(settings.access_log))
        tracer: Tracer | None = self.telemetry
        if not counted and not sinks and tracer is None:
            return None
        return Observer(tallies if counted else None, sinks, tracer)

    def start(self) -> None:
        """Start what needs the running loop (call from the loop's thread). Off asyncio's
        loop, what needs it stays off, said once in the log."""
        if not self.on_asyncio:
            report_off(self._off_asyncio())
            return
        self.context.body_wait.start()
        if self.monitor is not None:
            self.monitor.start()
        if self.metrics is not None:
            self.metrics.start()
        if self.route_counts is not None:
            self.route_counts.start()
        stop_on_sigterm(
            Stopping(
                self.in_flight,
                self.settings.shutdown_timeout,
                drains=self.settings.ready_url is not None,
                close=partial(stopping.going_away, self),
                cut=partial(stopping.cut, self),
            )
        )

    def _off_asyncio(self) -> list[str]:
        """What this app turns on that needs asyncio's loop (off on another)."""
        settings = self.settings
        off = []
        if settings.body_timeout is not None:
            off.append("body_timeout")
        if self.monitor is not None:
            off.append("the blocking monitor (block_threshold)")
        if self.metrics is not None or self.route_counts is not None:
            off.append("the periodic flush of metrics and stats")
        if settings.ready_url is not None:
            off.append("the drain on SIGTERM")
        if any(route.compiled.runs_on == "process pool" for route in self.routes):
            off.append("offload='process' (its handlers run on the threads)")
        return off

    def stop(self) -> None:
        self.context.body_wait.stop()
        if self.monitor is not None:
            self.monitor.stop()
        if self.metrics is not None:
            self.metrics.close()
        if self.route_counts is not None:
            self.route_counts.close()
        self.pools.shutdown()

    async def serve_websocket(self, websocket: WebSocket) -> None:
        """Serve one WebSocket connection: match, invoke the handler, close what it left open.

        A path without a WebSocket route refuses the handshake (404, or 403 where an HTTP route
        has the path); a handler's HTTPError before ``accept()`` refuses it with its status.
        """
        path = websocket.path
        target, params = self.match("WEBSOCKET", path)
        if not target.websocket:
            status = 403 if self.matcher.allowed_methods(path) else 404
            await self._end_websocket(websocket, status, 1000)
            return
        websocket.path_params = params
        websocket._target = target
        telemetry = self.telemetry
        observed = None if telemetry is None else telemetry.start_websocket(websocket)
        try:
            await self._run_websocket(websocket, target)
        finally:
            if observed is not None:
                assert telemetry is not None
                telemetry.end_websocket(observed, target.tag)

    async def _run_websocket(self, websocket: WebSocket, target: Target) -> None:
        try:
            await self._invoke_websocket(websocket, target)
        except WebSocketDisconnect as exc:
            report_unhandled(exc)  # a TestClient raises it in the test, as Starlette's does
        except WebSocketException as exc:  # before accept(), a refused handshake (403)
            await self._end_websocket(websocket, 403, exc.code, exc.reason)
        except HTTPError as exc:
            if websocket.connection_state == "connecting":
                await self._deny_websocket(websocket, exc)
            else:
                await self._end_websocket(websocket, exc.status, POLICY_VIOLATION)
        except Exception as exc:
            await self._websocket_error(websocket, exc)
        if websocket.connection_state != "closed":
            await self._end_websocket(websocket, 403, 1000)
        if websocket._cleanup is not None:  # yield dependencies' exits, background tasks
            cleanup, websocket._cleanup = websocket._cleanup, None
            done = cleanup.after_response()
            await (shielded(done) if being_cancelled() else done)

    async def _invoke_websocket(self, websocket: WebSocket, target: Target) -> None:
        """Run the handler, listed in ``sockets`` for the stop to close and cancel; the stop's
        cut ends it quietly (see stopping.py)."""
        # What the stop cancels: the task, or off asyncio (trio) a cancel scope around it.
        scope = None if self.on_asyncio else anyio.CancelScope()
        self.sockets[websocket] = asyncio.current_task() if scope is None else scope
        try:
            if scope is None:
                await target.invoke(websocket)
            else:
                with scope:
                    await target.invoke(websocket)
        except asyncio.CancelledError as exc:
            if not stopping.was_cut(exc):
                raise
        finally:
            del self.sockets[websocket]

    async def _deny_websocket(self, websocket: WebSocket, exc: HTTPError) -> None:
        """An HTTPError before ``accept()``: the handshake is refused with the response its
        exception handler makes (FastAPI's: the JSON ``detail``, the error's headers)."""
        # An exception handler takes the WebSocket in the request's place, as in Starlette.
        response = await self.error_response(cast("Request", websocket), exc)
        with contextlib.suppress(Exception):  # the client may have gone already
            await websocket.send_denial_response(response)

    async def _websocket_error(self, websocket: WebSocket, exc: Exception) -> None:
        """An exception a WebSocket's handler raised: the app's handler for its class, as
        Starlette's ExceptionMiddleware calls it (``handler(websocket, exc)``), else logged
        and the socket closed with 1011."""
        handler = self.exception_handlers.for_websocket(exc)
        if handler is not None:
            try:
                # A handler for a WebSocket's errors takes the WebSocket (Starlette's).
                done = cast("Callable[[WebSocket, Exception], Any]", handler)(websocket, exc)
                if inspect.isawaitable(done):
                    await done
                return
            except Exception as failure:
                exc = failure  # its handler failed: as if it had none
        logger.error(
            "Unhandled exception in WebSocket %s", websocket.path[:LOGGED_PATH_LENGTH], exc_info=exc
        )
        report_unhandled(exc)
        await self._end_websocket(websocket, 500, INTERNAL_ERROR)

    @staticmethod
    async def _end_websocket(
        websocket: WebSocket, status: int, code: int, reason: str = ""
    ) -> None:
        with contextlib.suppress(Exception):  # the client may have gone already
            if websocket.connection_state == "connecting":
                await websocket.refuse(status)
            else:
                await websocket.shut(code, reason)

    async def error_response(self, request: Request, exc: Exception) -> Response:
        """The response for an exception: its exception handler's (the app's, else the
        default for HTTPError and RequestValidationError), else a logged 500. A handler that
        fails is a logged 500 too."""
        if isinstance(exc, ValidationException) and exc.endpoint_ctx is None:
            exc.endpoint_ctx = endpoint_context(request)
        if self.telemetry is not None and isinstance(exc, RequestValidationError):
            self.telemetry.validation_failed(exc)
        handler = self.exception_handlers.lookup(exc)
        if handler is None:
            self._log(request, "Unhandled exception while serving", exc)
            report_unhandled(exc)
            unhandled(request, exc)
            return server_error_response(exc, self.context.debug)
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
            unhandled(request, failure)
            return server_error_response(failure, self.context.debug)

    def stats(self) -> dict[str, Any]:
        """Requests in flight, refused, and event-loop stalls by route."""
        return {
            "in_flight": self.in_flight.count,
            "refused": self.in_flight.refused,
            "blocked": {
                label: {"count": item.count, "total_ms": item.total_ms, "max_ms": item.max_ms}
                for label, item in self.block_stats().items()
            },
        }

    def block_stats(self) -> dict[str, BlockStats]:
        """How often each route blocked the event loop (empty without the monitor)."""
        return {} if self.monitor is None else dict(self.monitor.stats)

    @staticmethod
    def _log(request: Connection, what: str, exc: BaseException) -> None:
        logger.error(
            "%s %s %s", what, request.method, request.path[:LOGGED_PATH_LENGTH], exc_info=exc
        )


def _telemetry(settings: Settings) -> Telemetry | None:
    """The app's OpenTelemetry (hasten._observing.tracing), where a signal of it has a provider:
    one the app gives (``telemetry={...}``), or one set globally by now. An app that never imported
    opentelemetry cannot have one set, and does not import it either."""
    if not settings.tracing:
        return None
    if settings.telemetry is None and "opentelemetry" not in sys.modules:
        return None
    from hasten._observing.tracing import Telemetry

    return Telemetry.of(settings)


def _check_control_routes(routes: Sequence[BaseRoute], control: Sequence[BaseRoute]) -> None:
    """A URL the settings give the app (health, readiness, metrics) must be free."""
    for added in control:
        for route in routes:
            both = sorted(added.methods & route.methods)
            if route.path == added.path and both:
                raise RouteConflict(
                    f"Routes {route.label} and {added.label} both catch {both[0]} requests to "
                    f"{added.path!r}: give the setting another URL"
                )


def endpoint_context(connection: Connection) -> EndpointContext:
    """Where a validation error arose, as FastAPI names it in the error's text: the handler
    (its function, file and first line) and its route, under the path the app is mounted at."""
    target = connection._target
    route = getattr(target, "route", None)
    if target is None or route is None:
        return {}
    func = unwrap(route.compiled.func)
    context: EndpointContext = {"function": getattr(func, "__name__", repr(func))}
    code = getattr(func, "__code__", None)
    if code is not None:
        context["file"] = code.co_filename
        context["line"] = code.co_firstlineno  # the first decorator's, as inspect says it
    method = "WS" if target.websocket else connection.method
    context["path"] = f"{method} {connection.root_path.rstrip('/')}{route.path}"
    return context


def _codes(routes: Sequence[BaseRoute], middlewares: Sequence[Middleware]) -> dict[CodeType, str]:
    """The code objects that run on the event loop, and what to call them in a report."""
    codes: dict[CodeType, str] = {}
    for route in routes:
        if route.compiled.runs_on == "event loop":
            code = getattr(unwrap(route.compiled.func), "__code__", None)
            if code is not None:
                codes[code] = route.label
    for middleware in middlewares:
        code = getattr(unwrap(middleware), "__code__", None)
        if code is not None:
            codes[code] = f"middleware {getattr(middleware, '__qualname__', middleware)}"
    return codes
