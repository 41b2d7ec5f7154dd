"""App and Starlette, its base: registration, startup and shutdown, the protocol entry points."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import logging
import warnings
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Self, TypeVar, Unpack, cast, overload

import anyio

from hasten import _switch
from hasten._flow.contracts import ASGIApp, Hook, Middleware, Receive, Scope, Send
from hasten._flow.in_flight import overloaded
from hasten._http.datastructures import State
from hasten._http.error_responses import (
    ExceptionHandler,
    error_response,
    http_error_handler,
    plain_text_error_response,
    request_validation_error_handler,
    server_error_response,
)
from hasten._http.errors import (
    FastAPIDeprecationWarning,
    HTTPError,
    RequestValidationError,
    WebSocketException,
)
from hasten._http.responses import Response
from hasten._params.dependencies import DependencyOverrides
from hasten._running import concurrency
from hasten._running.event_loop import clock, on_asyncio
from hasten._running.monitor import BlockStats
from hasten._running.threads import submit
from hasten._serve import stopping
from hasten._serve.matcher import ANY_METHOD
from hasten._serve.mounts import MountEndpoint
from hasten._serve.protocols import asgi, rsgi
from hasten._serve.request_routes import RequestRoute
from hasten._serve.routes import WEBSOCKET, BaseRoute, Lifespan, Mount, check_keywords
from hasten._serve.runtime import Runtime
from hasten._serve.warmup import warm_up
from hasten._settings import Settings, SettingsKeywords
from hasten.middleware import Middleware as MiddlewareEntry
from hasten.middleware.base import BaseHTTPMiddleware
from hasten.middleware.exceptions import ExceptionMiddleware
from hasten.routing import Router

if TYPE_CHECKING:
    from hasten.openapi.webhooks import Webhooks

__all__ = ["App", "RouteInfo", "Starlette"]

logger = logging.getLogger("hasten.error")

E = TypeVar("E", bound="ExceptionHandler")
M = TypeVar("M", bound=Middleware)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RouteInfo:
    """One row of ``hasten routes``: what serves which requests, and where it runs."""

    methods: tuple[str, ...]
    path: str
    handler: str
    runs_on: str
    blocked: BlockStats | None = None  # times it blocked the event loop, while running


# The URLs of the document and the docs pages: '' turns one off, as None does.


def _setting(name: str) -> Any:
    """A read-only attribute for the setting ``name``."""
    return property(lambda app: getattr(app.settings, name), doc=f"``settings.{name}``")


class Starlette(Router):
    """An application as Starlette's: routes, middleware, lifespan and exception handlers,
    served over RSGI (``__rsgi__``) and ASGI 3 (``__call__``), with no OpenAPI document or
    docs pages unless its settings ask for them. ``App``, FastAPI's application, is this with
    them on; both take the same keywords (``App(debug=True, max_body_size=...)``, see
    ``Settings``).

    Routes, middleware and hooks are registered first; on startup (the server's lifespan,
    ``__rsgi_init__``, or the first request) everything is compiled and frozen.
    """

    # The settings this class's apps have unless given: Starlette has no OpenAPI document,
    # nor telemetry of its own (FastAPI's; Starlette's is a middleware one adds).
    _default_settings: ClassVar[Mapping[str, Any]] = {"openapi_url": None, "tracing": False}
    # How its errors answer unless the app's own handlers say: Starlette's in plain text.
    _default_exception_handlers: ClassVar[Mapping[type[BaseException] | int, Any]] = {
        HTTPError: plain_text_error_response
    }

    def __init__(
        self,
        *,
        lifespan: Lifespan | None = None,
        on_startup: Sequence[Hook] | None = None,
        on_shutdown: Sequence[Hook] | None = None,
        routes: Sequence[BaseRoute] | None = None,
        middleware: Sequence[MiddlewareEntry] | None = None,
        dependencies: Sequence[Any] = (),
        exception_handlers: Mapping[type[BaseException] | int, ExceptionHandler] | None = None,
        responses: Mapping[int | str, Mapping[str, Any]] | None = None,
        callbacks: Sequence[Any] = (),
        deprecated: bool | None = None,
        include_in_schema: bool = True,
        default_response_class: type[Response] | None = None,
        generate_unique_id_function: Callable[[Any], str] | None = None,
        root_path: str = "",
        root_path_in_servers: bool = True,
        **settings: Unpack[SettingsKeywords],
    ) -> None:
        # Given to every route, as a Router's (FastAPI's keywords).
        super().__init__(
            routes=routes,
            on_startup=on_startup,
            on_shutdown=on_shutdown,
            lifespan=lifespan,
            dependencies=dependencies,
            responses=responses,
            callbacks=callbacks,
            deprecated=deprecated,
            include_in_schema=include_in_schema,
            default_response_class=default_response_class,
            generate_unique_id_function=generate_unique_id_function,
        )
        check_keywords(settings, _APP_KEYWORDS, f"{type(self).__name__}()")
        # A URL setting of "" is off, as FastAPI's.
        self.settings = Settings(**{**self._default_settings, **settings})
        if root_path:
            warnings.warn(
                "The `root_path` parameter is deprecated. Configure the server's root path "
                "instead, for example with `fastapi run --root-path /api/v1` (with hasten: "
                "the server's own setting, as uvicorn's --root-path).",
                FastAPIDeprecationWarning,
                stacklevel=2,
            )
        # The path the app is served under, as if a proxy had said so (FastAPI's keyword):
        # requests see it as their root_path, and the OpenAPI document as its first server
        # (unless ``root_path_in_servers=False``).
        self.root_path = root_path
        self.root_path_in_servers = root_path_in_servers
        # handler(request, exc) -> Response, by exception class (or HTTP status).
        self.exception_handlers: dict[type[BaseException] | int, ExceptionHandler] = dict(
            exception_handlers or {}
        )
        self._dependency_overrides = DependencyOverrides(self._overrides_changed)
        self.state = State()
        self._lifespan_stack: contextlib.AsyncExitStack | None = None
        # What the lifespans yielded, merged (the app's wins): each request's state starts so.
        self.lifespan_state: dict[str, Any] = {}
        # Set at the first startup: middleware and exception handlers are compiled then.
        self._frozen = False
        self._middlewares: list[Middleware] = []
        self._asgi_middlewares: list[
            tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]
        ] = []
        # Under RSGI, every connection goes through the ASGI stack (the RSGI → ASGI bridge).
        self.through_asgi = False
        self.call_replaced = False
        # Held by startup and shutdown: asyncio's lock, or AnyIO's on another loop (trio),
        # made there at its first use.
        self._start_lock = asyncio.Lock()
        self._portable_lock: anyio.Lock | None = None
        self._stopping = False
        self._startup_error: Exception | None = None
        # While started: the compiled routes, pools and gate, and the request path.
        self.runtime: Runtime | None = None
        # The app's ASGI 3 callable: its adapter, in the ASGI middleware added; ``__call__``
        # calls it. Which adapter it was built around: asyncio's (False), trio's (True).
        self.asgi: ASGIApp = asgi.ASGIAdapter(self)
        self._asgi_portable: bool | None = False
        # The OpenAPI document, once ``openapi()`` has generated it (FastAPI's name).
        self.openapi_schema: dict[str, Any] | None = None
        self._webhooks: Webhooks | None = None
        # In the list's order, the first outermost (as Starlette's), whichever end
        # ``add_middleware`` adds to.
        for entry in reversed(middleware or ()) if _switch.is_on() else middleware or ():
            cls, args, options = entry
            self.add_middleware(cls, *args, **options)

    # FastAPI's app attributes for the OpenAPI settings (``app.title``), read-only here.
    title = _setting("title")
    version = _setting("version")
    summary = _setting("summary")
    description = _setting("description")
    openapi_version = _setting("openapi_version")
    openapi_url = _setting("openapi_url")
    docs_url = _setting("docs_url")
    redoc_url = _setting("redoc_url")
    swagger_ui_oauth2_redirect_url = _setting("swagger_ui_oauth2_redirect_url")
    swagger_ui_parameters = _setting("swagger_ui_parameters")

    @property
    def router(self) -> Router:
        """The app's own router: the app itself (FastAPI's ``app.router``)."""
        return self

    # The protocol entry points: thin adapters into the same core.
    # perf: the server calls the adapter itself, with no frame of the App's between.
    __rsgi__ = rsgi.serve
    __call__ = asgi.serve

    async def serve_under_path_params(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a connection to this app mounted under path parameters (a Host's
        ``{tenant}``), which its requests' ``path_params`` hold too."""
        if type(self).__call__ is not asgi.serve:  # a subclass's own call (sentry-sdk's)
            await self(scope, receive, send)
            return
        await asgi.serve_under_path_params(self, scope, receive, send)

    def __rsgi_init__(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.run_until_complete(self.startup())

    def __rsgi_del__(self, loop: asyncio.AbstractEventLoop) -> None:
        loop.run_until_complete(self.shutdown())

    # Registration.
    @overload
    def middleware(self, middleware: M) -> M: ...

    @overload
    def middleware(self, middleware: Literal["http"]) -> Callable[[M], M]: ...

    def middleware(self, middleware: M | str) -> M | Callable[[M], M]:
        """Wrap every request: ``async def mw(request, call_next) -> Response``, registered
        with ``@app.middleware`` or, as FastAPI writes it, ``@app.middleware("http")``.

        The first middleware registered is the outermost.
        """
        if isinstance(middleware, str):
            if middleware != "http":
                raise ValueError(f"Unknown middleware type {middleware!r}: only 'http'")
            return self._use_middleware
        return self._use_middleware(middleware)

    def _use_middleware(self, middleware: M) -> M:
        self._check_open("add a middleware")
        _add_to(self._middlewares, cast("Middleware", middleware))
        return middleware

    def exception_handler(self, kind: type[BaseException] | int) -> Callable[[E], E]:
        """Answer exceptions of class ``kind`` (or HTTPErrors of status ``kind``) with
        ``handler(request, exc) -> Response``, sync or async. The most specific class along
        the exception's MRO wins; HTTPError and RequestValidationError have defaults."""

        def register(handler: E) -> E:
            self.add_exception_handler(kind, handler)
            return handler

        return register

    def add_exception_handler(
        self, kind: type[BaseException] | int, handler: ExceptionHandler
    ) -> None:
        """``app.exception_handler(kind)(handler)``."""
        self._check_open("add an exception handler")
        if not (
            isinstance(kind, int) or (isinstance(kind, type) and issubclass(kind, BaseException))
        ):
            raise TypeError(
                f"An exception handler is for an exception class or a status, not {kind!r}"
            )
        self.exception_handlers[kind] = handler

    @property
    def dependency_overrides(self) -> dict[Any, Callable[..., Any]]:
        """``app.dependency_overrides[dependency] = fake``: the app calls ``fake`` wherever
        ``dependency`` is asked for, at once (a request in its dependencies goes on with it
        from its next one, as in FastAPI). The overrides are compiled into each route's plan:
        a change while the app runs compiles every route again (once per change; no cost
        per request)."""
        return self._dependency_overrides

    @dependency_overrides.setter
    def dependency_overrides(self, overrides: Mapping[Any, Callable[..., Any]] | None) -> None:
        self._dependency_overrides.replace(overrides or {})  # None: none, as FastAPI reads it

    def _overrides_changed(self) -> None:
        if self.runtime is not None:
            self.runtime.use_overrides(self._dependency_overrides)

    def _changed(self) -> None:
        """The routes changed (a route added, a router included, here or in a router
        included): while the app runs, it serves them from the next request on, every route
        compiled again once per change (FastAPI allows it)."""
        super()._changed()
        self.openapi_schema = None
        if self.runtime is not None:
            self.runtime.use_routes(self._served_routes())

    def _served_routes(self) -> list[BaseRoute]:
        """The app's routes, and those serving its document and docs pages."""
        # Imported here, not with hasten: only a process that starts an app pays for it.
        from hasten.openapi.docs import docs_routes

        return [*self.routes, *docs_routes(self)]

    def _check_open(self, action: str) -> None:
        if self._frozen:
            raise RuntimeError(
                f"Cannot {action}: the app has started and its middleware, exception "
                "handlers and settings are compiled. Change them before the app starts."
            )

    @property
    def debug(self) -> bool:
        """Whether a 500 shows its exception and traceback (Starlette's and FastAPI's
        ``app.debug``; the ``debug`` setting)."""
        return self.settings.debug

    @debug.setter
    def debug(self, value: bool) -> None:
        self._check_open("change debug")
        self.settings = dataclasses.replace(self.settings, debug=value)

    @property
    def redirect_slashes(self) -> bool:
        """Whether a path that differs by a trailing slash is redirected (Starlette's router
        attribute; the ``redirect_slashes`` setting)."""
        return self.settings.redirect_slashes

    @redirect_slashes.setter
    def redirect_slashes(self, value: bool) -> None:
        self._check_open("change redirect_slashes")
        self.settings = dataclasses.replace(self.settings, redirect_slashes=value)

    def add_route(  # Starlette's app names the endpoint `route`, its router `endpoint`
        self,
        path: str,
        route: Callable[..., Any],
        methods: Iterable[str] | None = None,
        name: str | None = None,
        include_in_schema: bool = True,
    ) -> RequestRoute:
        """Register a Starlette endpoint, ``route(request)`` (Starlette's and FastAPI's
        ``app.add_route``; a router's calls it ``endpoint``)."""
        return super().add_route(path, route, methods, name, include_in_schema)

    def add_middleware(self, cls: Callable[..., Any], *args: Any, **options: Any) -> None:
        """Add a hasten middleware class (``CORSMiddleware``, ``GZipMiddleware``, ...) built
        with ``options``: ``app.add_middleware(CORSMiddleware, allow_origins=["*"])``. It runs
        inside the ones added before it. A subclass of Starlette's ``BaseHTTPMiddleware``
        runs its ``dispatch`` as ``@app.middleware("http")`` runs a function; any other
        Starlette-style ASGI middleware class (its first parameter is the ``app`` it wraps)
        is added as ``add_asgi_middleware`` adds it.
        """
        if _dispatches(cls):
            # Starlette's class over ASGI; here its dispatch runs as a middleware function.
            self._check_open("add a middleware")
            _add_to(self._middlewares, cls(self, *args, **options).dispatch_func)
            return
        if _wraps_an_app(cls):
            self.add_asgi_middleware(cls, *args, **options)
            return
        self._check_open("add a middleware")
        _add_to(self._middlewares, cls(*args, **options))

    def add_metrics(self, path: str = "/metrics") -> None:
        """Serve Prometheus metrics at ``path``: ``App(metrics_url=path)`` for an app made
        already (needs prometheus-client: ``pip install 'hasten[metrics]'``)."""
        self._check_open("add metrics")
        self.settings = dataclasses.replace(self.settings, metrics_url=path)

    def add_asgi_middleware(self, cls: Callable[..., ASGIApp], *args: Any, **options: Any) -> None:
        """Wrap the app's ASGI callable (``app.asgi``) in a third-party ASGI middleware:
        ``cls(app, *args, **options)``, the first added outermost. Under Granian RSGI every
        request then goes through the ASGI stack, over the RSGI → ASGI bridge (see the
        README)."""
        self._check_open("add an ASGI middleware")
        _add_to(self._asgi_middlewares, (cls, args, options))
        self.asgi = _BuiltAtFirstCall(self)
        self._asgi_portable = None
        self.through_asgi = True

    def _build_asgi(self) -> ASGIApp:
        """The ASGI middleware around the app's adapter, each made once (as Starlette builds
        its stack once): a middleware that registers something when made (a Prometheus
        metric, a tracer) would find it registered already by its first copy. Made again only
        for another loop (trio's adapter)."""
        portable = self._off_asyncio()
        if portable is not self._asgi_portable:
            self.asgi = self._stack(portable)
            self._asgi_portable = portable
        return self.asgi

    def _off_asyncio(self) -> bool:
        """Whether the app runs on another loop than asyncio's (trio): its portable adapter."""
        return self.runtime is not None and not self.runtime.on_asyncio

    def _stack(self, portable: bool) -> ASGIApp:
        handler: ASGIApp = (asgi.PortableASGIAdapter if portable else asgi.ASGIAdapter)(self)
        for cls, args, options in reversed(self._asgi_middlewares):
            handler = cls(handler, *args, **options)
        return handler

    def build_middleware_stack(self) -> ASGIApp:
        """The app's ASGI middleware around its adapter, made anew (Starlette's): to give
        ``app.middleware_stack``."""
        return self._stack(self._off_asyncio())

    @property
    def middleware_stack(self) -> ASGIApp:
        """What a connection goes through (Starlette's name for ``app.asgi``): set it to
        serve the app through another stack, as Starlette's allows."""
        return self._build_asgi()

    @middleware_stack.setter
    def middleware_stack(self, stack: ASGIApp | None) -> None:
        if stack is None:  # as in Starlette: built again at the next call
            self.asgi = _BuiltAtFirstCall(self)
            self._asgi_portable = None
            return
        self.asgi = stack
        self._asgi_portable = self._off_asyncio()
        self.through_asgi = True

    # Lifecycle.
    def _lock(self) -> asyncio.Lock | anyio.Lock:
        if on_asyncio():
            return self._start_lock
        if self._portable_lock is None:
            self._portable_lock = anyio.Lock()
        return self._portable_lock

    def _exception_handler_table(self) -> dict[type[BaseException] | int, Any]:
        """The app's exception handlers, by class and status, over its class's defaults.

        They are given to an ExceptionMiddleware through a ``Middleware`` entry, as
        Starlette's app builds its stack: code that wraps what ``Middleware`` is given and
        the handlers ``ExceptionMiddleware`` is made with (sentry-sdk reports HTTP errors
        so) wraps them here too. While neither is replaced, they are used as they are."""
        handlers = {**self._default_exception_handlers, **self.exception_handlers}
        given: dict[Any, Any] = {
            HTTPError: http_error_handler,
            RequestValidationError: request_validation_error_handler,
            **handlers,
        }
        entry = MiddlewareEntry(ExceptionMiddleware, handlers=given, debug=self.settings.debug)
        cls: Any = entry.cls
        if cls.__init__ is _EXCEPTION_MIDDLEWARE_INIT:
            return handlers
        built = cls(self, *entry.args, **entry.kwargs)
        table: dict[type[BaseException] | int, Any] = {
            **built._exception_handlers,
            **built._status_handlers,
        }
        if WebSocketException not in given:  # hasten closes those itself
            table.pop(WebSocketException, None)
        return table

    @property
    def started(self) -> bool:
        return self.runtime is not None

    async def startup(self) -> None:
        """Compile routes and middleware, start the pools, run startup hooks and enter the
        lifespans (the app's, then its routers'). Idempotent."""
        async with self._lock():
            if self.runtime is not None:
                return
            self._frozen = True
            # Code that replaced the app's ASGI entry (sentry-sdk wraps Starlette.__call__,
            # a subclass may override it) gets RSGI connections through it too.
            self.call_replaced = type(self).__call__ is not asgi.serve
            self.through_asgi = self.through_asgi or self.call_replaced
            self.lifespan_state = {}
            if self.settings.exports_telemetry:  # before the runtime looks for providers
                from hasten._observing.otlp import configure_from_environment

                configure_from_environment(self.settings.telemetry or {})
            runtime = Runtime(
                self.settings,
                self._served_routes(),
                self._middlewares,
                self._exception_handler_table(),
                self.dependency_overrides,
                state=self.lifespan_state,
            )
            routers = list(self._lifecycle())
            stack = contextlib.AsyncExitStack()
            try:
                # Ready only once the handlers' modules are imported where they run.
                await warm_up(runtime.pools, runtime.routes, Starlette)
                for router in routers:
                    for hook in router._startup_hooks:
                        await _run_hook(hook)
                for router in routers:
                    if router.lifespan is not None:
                        state = await _enter_lifespan(stack, router.lifespan, self)
                        for key, value in (state or {}).items():
                            self.lifespan_state.setdefault(key, value)  # the outer one wins
                for mounted in self._mounted_apps():
                    await mounted.startup()
                    stack.push_async_callback(mounted.shutdown)
                await runtime.dependencies.open()
                stack.push_async_callback(runtime.dependencies.close)
            except BaseException:
                await stack.aclose()
                runtime.stop()
                raise
            runtime.start()
            concurrency.use_threads(runtime.pools.threads)
            self._lifespan_stack = stack
            self._startup_error = None
            self.runtime = runtime
            self._build_asgi()

    def _mounted_apps(self) -> list[Starlette]:
        """The hasten apps mounted here, each once: they start after this app's startup hooks
        and lifespan, and stop before them (Starlette never starts a mounted app's lifespan;
        a hasten app would otherwise start at its first request and never stop)."""
        endpoints = [route.compiled for route in self.routes]
        # A route that serves an app over ASGI (one with Starlette's middleware=) names it.
        mounted = [
            item.mounted if isinstance(item, MountEndpoint) else getattr(item.func, "serves", None)
            for item in endpoints
        ]
        # A Router mounted (Starlette's Router(routes)) serves through an app of its own.
        apps = [
            app._app() if isinstance(app, Router) and not isinstance(app, Starlette) else app
            for app in mounted
        ]
        return list({id(app): app for app in apps if isinstance(app, Starlette)}.values())

    async def shutdown(self) -> None:
        """Let requests and WebSockets in flight finish, up to ``shutdown_timeout`` (from the
        SIGTERM that began the stop, if one did), cut those left, run shutdown hooks and the
        lifespan's exit, then stop the pools."""
        async with self._lock():
            runtime = self.runtime
            if runtime is None:
                return
            gate = runtime.in_flight
            gate.close()
            # The stop ends by the deadline SIGTERM set, where one began it.
            deadline = gate.deadline or clock() + self.settings.shutdown_timeout
            await stopping.end_by(runtime, deadline)
            self._stopping = True
            self.runtime = None
            try:
                if self._lifespan_stack is not None:
                    await self._lifespan_stack.aclose()
                for router in self._lifecycle():
                    for hook in router._shutdown_hooks:
                        await _run_hook(hook)
            finally:
                concurrency.forget_threads(runtime.pools.threads)
                # On the loop's own threads (asyncio's default pool, or AnyIO's on trio).
                await submit(None, runtime.stop)
                if self.settings.exports_telemetry:
                    from hasten._observing.otlp import flush

                    await submit(None, flush)  # what was recorded is sent before exit
                self._stopping = False

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[Self]:
        """``async with app.running():`` starts the app and stops it on exit."""
        await self.startup()
        try:
            yield self
        finally:
            await self.shutdown()

    async def start_for(self, path: str) -> Runtime | Response:
        """Start the app for a connection to ``path`` that came before any startup (a server
        without lifespan): its runtime, or the response refusing the connection. An app that
        failed to start answers 500, and is not started again; readiness answers 503 while
        it starts."""
        if self._stopping:
            return error_response(overloaded("The server is shutting down"))
        if path == self.settings.ready_url and self._lock().locked():
            return error_response(overloaded("The app is starting"))  # not ready yet
        if self._startup_error is None:
            try:
                await self.startup()
            except Exception as exc:
                self._startup_error = exc
                logger.error("The app failed to start", exc_info=exc)
        if self.runtime is not None:
            return self.runtime
        if self._startup_error is None:  # stopped while starting
            return error_response(overloaded("The server is shutting down"))
        return server_error_response(self._startup_error, self.settings.debug)

    # Inspection.
    @property
    def webhooks(self) -> Webhooks:
        """The webhooks the API sends, documented under OpenAPI's ``webhooks`` and never
        served: ``@app.webhooks.post("new-subscription")`` (FastAPI's)."""
        if self._webhooks is None:
            from hasten.openapi.webhooks import Webhooks

            self._webhooks = Webhooks()
        return self._webhooks

    def openapi(self) -> dict[str, Any]:
        """The app's OpenAPI document: generated on the first call (the first request for
        it), then kept in ``openapi_schema``."""
        if self.openapi_schema is None:
            from hasten.openapi.document import app_openapi

            self.openapi_schema = app_openapi(self)
        return self.openapi_schema

    def serves_websockets(self) -> bool:
        """Whether a route of the app, or of a hasten app mounted in it, serves WebSockets:
        ``hasten run`` and the TestClient then serve the app over ASGI, since Granian's RSGI
        sends no WebSocket close code (a WebSocket of a mounted ASGI app is not seen)."""
        own = any(WEBSOCKET in route.methods for route in self.routes)
        return own or any(app.serves_websockets() for app in self._mounted_apps())

    def describe_routes(self) -> list[RouteInfo]:
        """Each route, its methods, its handler, how the handler runs, and (while the app
        runs) how often it blocked the event loop."""
        blocked = self._block_stats()
        return [
            RouteInfo(
                tuple(sorted(route.methods - {ANY_METHOD})),  # "*": the matcher's own word
                route.path,
                route.compiled.name,
                route.compiled.runs_on,
                blocked.get(route.label),
            )
            for route in self.routes
        ]

    def stats(self) -> dict[str, Any]:
        """What the running app has seen: requests in flight, refused, and event-loop stalls
        by route (``{"GET /x": {"count": 2, "total_ms": 350.0, "max_ms": 190.0}}``)."""
        if self.runtime is None:
            return {"in_flight": 0, "refused": 0, "blocked": {}}
        return self.runtime.stats()

    def _block_stats(self) -> dict[str, BlockStats]:
        return {} if self.runtime is None else self.runtime.block_stats()


class App(Starlette):
    """A hasten application (FastAPI's ``FastAPI``): a Starlette app that serves its OpenAPI
    document at ``/openapi.json`` and its docs pages at ``/docs`` and ``/redoc`` by default.

    Routes, middleware and hooks are registered first; on startup (the server's lifespan,
    ``__rsgi_init__``, or the first request) everything is compiled and frozen.
    Settings are keywords: ``App(debug=True, max_body_size=...)``, see ``Settings``.
    """

    _default_settings: ClassVar[Mapping[str, Any]] = {}
    _default_exception_handlers: ClassVar[Mapping[type[BaseException] | int, Any]] = {}


# What ``_exception_handler_table`` tells apart from a replacement.
_EXCEPTION_MIDDLEWARE_INIT = ExceptionMiddleware.__init__


# A Mount made by hand with routes (Starlette's) serves them with an app of its own.
def _app_of_routes(
    routes: Sequence[BaseRoute], middleware: Sequence[Any], max_body_size: int | None
) -> Starlette:
    if max_body_size is None:  # the app's own default, not no limit
        return Starlette(routes=routes, middleware=middleware)
    return Starlette(routes=routes, middleware=middleware, max_body_size=max_body_size)


Mount.app_of_routes = _app_of_routes


def _app_of_router(router: Router) -> Starlette:
    app = Starlette(middleware=router.own_middleware, redirect_slashes=router.redirect_slashes)
    app.include_router(router)
    return app


# A router called as an app (Starlette's Router) serves with an app of its own.
Router.app_of_router = _app_of_router


class _BuiltAtFirstCall:
    """``app.asgi`` once ASGI middleware is added and until the stack is built (at startup,
    or by a call that comes before it)."""

    __slots__ = ("_app",)

    def __init__(self, app: Starlette) -> None:
        self._app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self._app._build_asgi()(scope, receive, send)


def _add_to(stack: list[T], middleware: T) -> None:
    """Add ``middleware`` to a stack, outermost first: inside the ones added before it
    (hasten's order); under the switch outside them, as Starlette's and FastAPI's
    ``add_middleware`` and ``@app.middleware`` add it, so that an app runs as written."""
    if _switch.is_on():
        stack.insert(0, middleware)
    else:
        stack.append(middleware)


def _dispatches(cls: Callable[..., Any]) -> bool:
    """Whether ``cls`` is Starlette's BaseHTTPMiddleware, or a subclass."""
    return isinstance(cls, type) and issubclass(cls, BaseHTTPMiddleware)


def _wraps_an_app(cls: Callable[..., Any]) -> bool:
    """Whether ``cls`` is an ASGI middleware: its first parameter is the ``app`` it wraps."""
    try:
        parameters = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):  # a builtin without a signature: not Starlette's shape
        return False
    return bool(parameters) and parameters[0].name == "app"


async def _run_hook(hook: Hook) -> None:
    result = hook()
    if inspect.isawaitable(result):
        await result


async def _enter_lifespan(
    stack: contextlib.AsyncExitStack, lifespan: Lifespan, app: Starlette
) -> Mapping[str, Any] | None:
    """Enter ``lifespan(app)`` on ``stack``: what it yields, the state requests start with.
    It may be an async or a sync context manager, or an (async) generator function, as
    FastAPI takes each."""
    if inspect.isasyncgenfunction(lifespan):
        lifespan = contextlib.asynccontextmanager(lifespan)
    elif inspect.isgeneratorfunction(lifespan):
        lifespan = contextlib.contextmanager(lifespan)
    context = lifespan(app)
    if isinstance(context, AbstractAsyncContextManager):
        state = await stack.enter_async_context(context)
    else:
        state = stack.enter_context(context)
    if state is not None and not isinstance(state, Mapping):
        raise TypeError(
            f"The lifespan {lifespan!r} yielded {state!r}: a lifespan yields nothing, or a dict "
            "of the state every request starts with"
        )
    return state


# What App() takes: its own keywords and the settings' (a typo is named with the closest).
_APP_KEYWORDS = frozenset(SettingsKeywords.__optional_keys__) | (
    frozenset(inspect.signature(Starlette.__init__).parameters) - {"self", "settings"}
)
