"""Route registration: ``Router`` and the decorators ``get``, ``post``, ... ``route``."""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Awaitable, Callable, Iterable, Iterator, Sequence
from typing import Any, ClassVar, Literal, SupportsIndex, TypeVar, Unpack

from hasten._flow.contracts import ASGIApp, Hook, Receive, Scope, Send
from hasten._http.connection import MOUNT_PATH
from hasten._http.datastructures import URLPath
from hasten._http.errors import FastAPIError
from hasten._http.paths import PathTemplate
from hasten._http.requests import Request
from hasten._http.websockets import WebSocket
from hasten._params.descriptions import describe_handler
from hasten._params.endpoints import Endpoint, RouteOptions
from hasten._params.markers import Dependency
from hasten._running.concurrency import run_in_threadpool
from hasten._serve.frontend import Fallback, Frontend, frontend_path
from hasten._serve.host_routes import Host
from hasten._serve.mounts import is_native
from hasten._serve.registration import (
    check_connection_types,
    registering,
)
from hasten._serve.request_routes import (
    RequestRoute,
    WebSocketSessionRoute,
    request_route_parts,
    websocket_route_parts,
)
from hasten._serve.routes import (
    HTTP_METHODS,
    WEBSOCKET,
    APIRoute,
    APIWebSocketRoute,
    AppRoute,
    BaseRoute,
    FrontendRoute,
    Inherited,
    InheritedKeywords,
    Lifespan,
    Match,
    Mount,
    NoMatchFound,
    Route,
    RouteKeywords,
    WebSocketRoute,
    http_route_parts,
)

__all__ = [
    "APIRoute",
    "APIRouter",
    "APIWebSocketRoute",
    "BaseRoute",
    "FrontendRoute",
    "Host",
    "Inherited",
    "Lifespan",
    "Match",
    "Mount",
    "NoMatchFound",
    "RequestRoute",
    "Route",
    "Router",
    "WebSocketRoute",
    "WebSocketSessionRoute",
]

F = TypeVar("F", bound=Callable[..., Any])
H = TypeVar("H", bound=Hook)


class Router:
    """A group of routes under a common prefix, included into an App with ``app.include``
    (or ``app.include_router``, FastAPI's name).

    Routes, and routers included, may be added at any time, also once an app that includes
    this router has started (as FastAPI allows): the app compiles its routes again, once per
    change. ``on_startup``, ``on_shutdown`` and ``lifespan`` run with the app that includes
    the router, after the app's own.
    """

    # How a router called as an ASGI app serves (hasten.app's Starlette, which sits above).
    app_of_router: ClassVar[Callable[[Router], ASGIApp] | None] = None

    def __init__(
        self,
        prefix: str | Sequence[BaseRoute] = "",
        *,
        route_class: type[Route] | None = None,
        routes: Sequence[BaseRoute] | None = None,
        on_startup: Sequence[Hook] | None = None,
        on_shutdown: Sequence[Hook] | None = None,
        lifespan: Lifespan | None = None,
        redirect_slashes: bool = True,
        middleware: Sequence[Any] | None = None,
        **keywords: Unpack[InheritedKeywords],
    ) -> None:
        if not isinstance(prefix, str):  # Starlette's Router(routes)
            routes, prefix = prefix, ""
        _check_prefix(prefix, "Router prefix")
        self.prefix = prefix
        # What every route here gets: OpenAPI tags before the route's own, Depends() run
        # before its own for each request (their values unused), ...
        self.inherited = Inherited.given(f"Router({prefix!r})", **keywords)
        # The class of the routes registered here from now on (FastAPI's custom APIRoute).
        self.route_class = route_class or Route
        # The hosts (Starlette's Host routes) among them, in order: each is tried on them.
        self._hosts: list[Host] = []
        # A Mount made by hand (Starlette's) comes with the route for the paths under it.
        self._routes: list[BaseRoute] = [
            item for route in routes or () for item in self._brought(route)
        ]
        self._children: list[tuple[str, Router, Inherited]] = []
        # The routers that include this one: told of every change (see ``_changed``).
        self._parents: list[Router] = []
        self._names: dict[str, list[BaseRoute]] | None = None
        self._startup_hooks: list[Hook] = list(on_startup or ())
        self._shutdown_hooks: list[Hook] = list(on_shutdown or ())
        self.lifespan = lifespan
        # How it serves when called as an app of its own (Starlette's Router is one); where
        # an app includes it, the app's settings and middleware hold.
        self._own_redirect_slashes = redirect_slashes
        # The middleware (``Middleware`` entries) it serves with as an app of its own.
        self.own_middleware = list(middleware or ())
        self._as_app: ASGIApp | None = None

    @property
    def redirect_slashes(self) -> bool:
        """Whether a path that matches with its trailing slash added or removed is redirected
        there, where this router serves as an app of its own."""
        return self._own_redirect_slashes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve these routes as an ASGI app of their own, as Starlette's Router does: with
        an app made for them on the first call, which includes this router."""
        await self._app()(scope, receive, send)

    async def serve_under_path_params(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a connection under a mount's or host's path parameters: its requests'
        ``path_params`` hold them too (see ``App.serve_under_path_params``)."""
        await self._app().serve_under_path_params(scope, receive, send)

    def _app(self) -> Any:
        """The app made for these routes on the first call, which includes this router."""
        app = self._as_app
        if app is None:
            assert Router.app_of_router is not None, "hasten.app sets it when it is imported"
            app = self._as_app = Router.app_of_router(self)
        return app

    @property
    def tags(self) -> tuple[str, ...]:
        return self.inherited.tags

    @property
    def dependencies(self) -> tuple[Dependency, ...]:
        return self.inherited.dependencies

    def route(
        self, path: str, methods: Iterable[str] | None = None, **options: Unpack[RouteKeywords]
    ) -> Callable[[F], F]:
        """Register the decorated function for ``methods`` (default GET) on ``path``.

        ``path`` may be ``""`` in a router with a prefix (or included under one): the route
        serves the prefix itself. Keywords: ``status`` (default 200; ``status_code`` is
        FastAPI's name for it); ``offload="process"`` to run it in the app's
        process pool; ``executor=`` any ``concurrent.futures.Executor`` (a Dask cluster's);
        ``max_concurrency`` (503 past it); ``timeout`` in seconds (504 past it). For OpenAPI,
        as FastAPI names them: ``tags``, ``summary``, ``description``,
        ``response_description``, ``responses``, ``deprecated``, ``operation_id``,
        ``include_in_schema``, ``openapi_extra``. ``dependencies=[Depends(...)]`` run before
        the handler; ``response_model=`` (else the return annotation) filters what is sent,
        validated too with ``validate_response=True``.
        """

        def register(func: F) -> F:
            self.add_api_route(path, func, methods, **options)
            return func

        return register

    api_route = route  # FastAPI's name

    def add_api_route(
        self,
        path: str,
        endpoint: Callable[..., Any],
        methods: Iterable[str] | None = None,
        **options: Unpack[RouteKeywords],
    ) -> Route:
        """Register ``endpoint`` (FastAPI's name for it, by keyword too), its parameters read
        from the request as ``@app.get`` reads them; its signature is analysed now, so
        mistakes surface at import."""
        template, wanted, compiled = http_route_parts(path, endpoint, methods, self.prefix, options)
        route = self.route_class(template, wanted, compiled, tuple(compiled.options.tags))
        self._register(route)
        return route

    def add_route(
        self,
        path: str,
        endpoint: Callable[..., Any],
        methods: Iterable[str] | None = None,
        name: str | None = None,
        include_in_schema: bool = True,
    ) -> RequestRoute:
        """Register a Starlette endpoint, as Starlette's and FastAPI's ``add_route`` do:
        ``endpoint(request)`` returns a Response (sync or async), or ``endpoint`` is an ASGI
        app. For a handler whose parameters are read from the request, ``add_api_route``."""
        _check_starlette_endpoint(path, endpoint)
        parts = request_route_parts(
            path,
            endpoint,
            methods=methods,
            name=name,
            include_in_schema=include_in_schema,
            prefix=self.prefix,
        )
        template, methods_, compiled, original = parts
        route = RequestRoute(template, methods_, compiled, original=original)
        self._register(route)
        return route

    def websocket(
        self, path: str, name: str | None = None, *, dependencies: Sequence[Any] = ()
    ) -> Callable[[F], F]:
        """Register the decorated ``async def`` for WebSocket connections to ``path``.

        It takes the same path, query, header and cookie parameters as an HTTP handler, and
        the connection as a ``WebSocket`` parameter; ``dependencies=[Depends(...)]`` run
        before it. ``name``: what ``url_for`` calls it.
        """

        def register(func: F) -> F:
            self.add_api_websocket_route(path, func, name, dependencies=dependencies)
            return func

        return register

    def websocket_route(self, path: str, name: str | None = None) -> Callable[[F], F]:
        """Register the decorated Starlette endpoint, ``await endpoint(websocket)``, for
        WebSocket connections to ``path`` (FastAPI's and Starlette's decorator)."""

        def register(func: F) -> F:
            self.add_websocket_route(path, func, name)
            return func

        return register

    def add_websocket_route(
        self, path: str, endpoint: Callable[..., Any], name: str | None = None
    ) -> WebSocketSessionRoute:
        """Register a Starlette endpoint, ``await endpoint(websocket)``, for WebSocket
        connections to ``path``. For a handler whose parameters are read from the connection,
        ``add_api_websocket_route``."""
        template, methods, compiled, original = websocket_route_parts(
            path, endpoint, name=name, prefix=self.prefix
        )
        route = WebSocketSessionRoute(template, methods, compiled, original=original)
        self._register(route)
        return route

    def add_api_websocket_route(
        self,
        path: str,
        endpoint: Callable[..., Any],
        name: str | None = None,
        *,
        dependencies: Sequence[Any] = (),
    ) -> WebSocketRoute:
        """Register ``endpoint`` for WebSocket connections to ``path``."""
        template = PathTemplate.parse(path)
        options = RouteOptions(name=name, dependencies=dependencies)
        with registering(endpoint, f"WEBSOCKET {path}"):
            compiled = Endpoint(endpoint, template.with_prefix(self.prefix), options)
            if compiled.runs_on != "event loop":
                raise TypeError(f"WebSocket handler {compiled.name} must be an async def")
            check_connection_types(compiled, websocket=True)
        route = WebSocketRoute(template, frozenset({WEBSOCKET}), compiled)
        self._register(route)
        return route

    def get(self, path: str, **options: Unpack[RouteKeywords]) -> Callable[[F], F]:
        return self.route(path, ("GET",), **options)

    def post(self, path: str, **options: Unpack[RouteKeywords]) -> Callable[[F], F]:
        return self.route(path, ("POST",), **options)

    def put(self, path: str, **options: Unpack[RouteKeywords]) -> Callable[[F], F]:
        return self.route(path, ("PUT",), **options)

    def patch(self, path: str, **options: Unpack[RouteKeywords]) -> Callable[[F], F]:
        return self.route(path, ("PATCH",), **options)

    def delete(self, path: str, **options: Unpack[RouteKeywords]) -> Callable[[F], F]:
        return self.route(path, ("DELETE",), **options)

    def head(self, path: str, **options: Unpack[RouteKeywords]) -> Callable[[F], F]:
        return self.route(path, ("HEAD",), **options)

    def options(self, path: str, **options: Unpack[RouteKeywords]) -> Callable[[F], F]:
        return self.route(path, ("OPTIONS",), **options)

    def trace(self, path: str, **options: Unpack[RouteKeywords]) -> Callable[[F], F]:
        return self.route(path, ("TRACE",), **options)

    def mount(self, path: str, app: Any, name: str | None = None) -> None:
        """Serve ``app`` under ``path``: any ASGI app (a Starlette or FastAPI app, with
        ``root_path`` set to the prefix), or ``StaticFiles``. Routes of this app under the
        prefix still win; the mount catches the rest. ``name``: what ``url_for`` calls it
        (``url_for("static", path="/site.css")``)."""
        if not path:
            raise ValueError(f"Mount prefix {path!r} must not be empty")
        _check_prefix(path, "Mount prefix")
        if isinstance(app, BaseRoute):
            # A Starlette route is an ASGI app too: served by an app of that one route.
            assert Mount.app_of_routes is not None, "hasten.app sets it when it is imported"
            app = Mount.app_of_routes([app], (), None)
        if not (is_native(app) or callable(app)):
            raise TypeError(f"Cannot mount {app!r}: it is neither an ASGI app nor StaticFiles")
        for route in Mount(path, app=app, name=name).both():
            self._register(route)

    def frontend(
        self,
        path: str,
        *,
        directory: str | os.PathLike[str],
        fallback: Fallback = "auto",
        check_dir: bool | Literal["auto"] = "auto",
    ) -> None:
        """Serve a frontend build (``dist``) under ``path``, as FastAPI's ``frontend()``: its
        files are found only where no route serves the path; a path with no file gets
        ``fallback``: ``"404.html"`` (its 404 page), ``"index.html"`` (for a browser's
        navigation: a single-page app's routes), ``"auto"`` (404.html if there is one, else
        index.html) or None. The router's dependencies run for it. ``check_dir``: the
        directory must exist now (``"auto"``: unless ``FASTAPI_ENV`` is ``development``)."""
        serve = Frontend(directory, fallback, check_dir).respond
        template = PathTemplate.parse(frontend_path(path))
        options = RouteOptions(include_in_schema=False)
        endpoint = Endpoint(serve, template.with_prefix(self.prefix), options)
        self._register(FrontendRoute(template, HTTP_METHODS, endpoint))

    # Lifecycle: run by the app that includes this router (see App.startup).
    def on_startup(self, hook: H) -> H:
        """Run ``hook`` (sync or async) when the app starts, before the first request."""
        self._startup_hooks.append(hook)
        return hook

    def on_shutdown(self, hook: H) -> H:
        """Run ``hook`` (sync or async) when the app stops, after requests in flight finish."""
        self._shutdown_hooks.append(hook)
        return hook

    def add_event_handler(self, event: Literal["startup", "shutdown"], hook: Hook) -> None:
        """``on_startup(hook)`` or ``on_shutdown(hook)``, by the event's name (Starlette's)."""
        if event == "startup":
            self.on_startup(hook)
        elif event == "shutdown":
            self.on_shutdown(hook)
        else:
            raise ValueError(f"Unknown event {event!r}: 'startup' or 'shutdown'")

    def on_event(self, event: Literal["startup", "shutdown"]) -> Callable[[H], H]:
        """``@router.on_event("startup")``: FastAPI's older form of ``on_startup`` and
        ``on_shutdown``, deprecated there (a DeprecationWarning, as FastAPI's)."""
        warnings.warn(
            "on_event is deprecated, use lifespan event handlers instead (in hasten: "
            "lifespan=..., or @app.on_startup and @app.on_shutdown).",
            DeprecationWarning,
            stacklevel=2,
        )
        if event not in ("startup", "shutdown"):
            raise ValueError(f"Unknown event {event!r}: 'startup' or 'shutdown'")

        def register(hook: H) -> H:
            self.add_event_handler(event, hook)
            return hook

        return register

    def _lifecycle(self) -> Iterator[Router]:
        """This router and every router it includes, each once, in order: whose hooks and
        lifespans the app runs."""
        seen: set[int] = set()
        pending: list[Router] = [self]
        while pending:
            router = pending.pop(0)
            if id(router) in seen:
                continue
            seen.add(id(router))
            yield router
            pending[:0] = [child for _, child, _ in router._children]

    def include(
        self,
        router: Router,
        prefix: str = "",
        **keywords: Unpack[InheritedKeywords],
    ) -> None:
        """Serve ``router``'s routes here, under ``prefix`` + the router's own prefix. The
        keywords are ``Router``'s, for this inclusion: each route gets them after the
        router's own (``tags`` before the router's, ``dependencies`` run before its own).
        Its hooks and lifespan run with the app, after this router's."""
        # AssertionError, FastAPI's class for these: each is a mistake in the app's code.
        if router is self:
            raise AssertionError(
                "Cannot include the same APIRouter instance into itself. "
                "Did you mean to include a different router?"
            )
        if any(inner is self for inner in router._lifecycle()):
            raise AssertionError(
                "Cannot include an APIRouter instance that already includes this router. "
                "Did you mean to include a different router?"
            )
        _check_prefix(prefix, "include() prefix")
        if not prefix:
            for route in router.routes:
                if not route.template.path:
                    raise FastAPIError(
                        f"Prefix and path cannot be both empty (path operation: {route.name})"
                    )
        inherited = Inherited.given(f"include({prefix!r})", **keywords)
        child = (prefix, router, inherited)
        self._children.append(child)
        router._parents.append(self)
        try:
            self._changed()
        except BaseException:  # a running app refused it: it is not included
            self._children.remove(child)
            router._parents.remove(self)
            raise

    include_router = include  # FastAPI's name

    def url_path_for(self, name: str, /, **values: Any) -> URLPath:
        """The path of the route called ``name`` (see ``Route.name``), its parameters given
        ``values``; NoMatchFound if no route has that name and those parameters."""
        for route in self._named().get(name, ()):
            path = route.url_path(values)
            if path is not None:
                return route.url_path_of(path)
        for route in self.routes:
            if isinstance(route, AppRoute):  # a name of the app it serves
                path = route.inner_path(name, values)
                if path is not None:
                    return route.url_path_of(path)
        raise NoMatchFound(name, values)

    def _named(self) -> dict[str, list[BaseRoute]]:
        # Kept until the routes change: url_for asks for it on requests.
        if self._names is None:
            names: dict[str, list[BaseRoute]] = {}
            for route in self.routes:
                names.setdefault(route.name, []).append(route)
            self._names = names
        return self._names

    @property
    def routes(self) -> list[BaseRoute]:
        """Every route, included routers' too, with full paths. A route appended to the
        list (or inserted, or extended with) is registered here, as on Starlette's router,
        whose list this is (``router.routes.append(Mount(...))``)."""
        own = self.inherited
        collected = RouteList(self, [self._full(route) for route in self._routes])
        for prefix, child, inherited in self._children:
            list.extend(
                collected,
                (
                    route.with_prefix(self.prefix + prefix, inherited.within(own))
                    for route in child.routes
                ),
            )
        return collected

    @routes.setter
    def routes(self, routes: Sequence[BaseRoute]) -> None:
        """Replace every route, included routers' too, by ``routes``, as ``Router(routes=
        ...)`` takes them (Starlette's ``router.routes = [...]``, as sqladmin sets them)."""
        previous = self._routes, self._children, self._hosts
        self._hosts = []
        given = [
            item
            for route in routes
            if not _under_half(route, routes)
            for item in self._brought(route)
        ]
        self._routes, self._children = given, []
        try:
            self._changed()
        except BaseException:  # a running app refused them: the routes stay as they were
            self._routes, self._children, self._hosts = previous
            raise

    def _brought(self, route: BaseRoute) -> tuple[BaseRoute, ...]:
        """``route``, and what it brings: for a Mount made by hand the route for the paths
        under it; a Host joins this router's hosts."""
        if isinstance(route, Host):
            self._hosts.append(route)
            object.__setattr__(route, "group", self._hosts)
        return _with_what_it_brings(route)

    def _register(self, route: BaseRoute) -> None:
        """Add ``route``: served from the next request on, also where an app that includes
        this router runs already."""
        self._routes.append(route)
        try:
            self._changed()
        except BaseException:  # a running app refused it: it is not registered
            self._routes.remove(route)
            raise

    def host(self, host: str, app: Any, name: str | None = None) -> None:
        """Serve ``app`` (any ASGI app) for the requests to ``host`` (``"api.example.com"``,
        ``"{tenant}.example.com"``), where no other route of this router serves the path
        (Starlette's ``Host``, FastAPI's ``app.host``)."""
        self._add_given(Host(host, app, name))

    def _add_given(self, route: BaseRoute) -> None:
        """Register a route made by hand (Starlette's), and what it brings; a host a running
        app refused leaves this router's hosts as they were."""
        hosts = len(self._hosts)
        try:
            for item in self._brought(route):
                self._register(item)
        except BaseException:
            del self._hosts[hosts:]
            raise

    def _changed(self) -> None:
        """The routes changed: what is derived from them is made again, here and in every
        router (and app) that includes this one."""
        self._names = None
        for parent in self._parents:
            parent._changed()

    def _full(self, route: BaseRoute) -> BaseRoute:
        """One of this router's own routes as ``routes`` lists it."""
        return route.with_prefix(self.prefix, self.inherited)


APIRouter = Router  # FastAPI's name for it


class RouteList(list[BaseRoute]):
    """``router.routes``: the routes as a list, where a route added is registered on the
    router (at the end: hasten's matcher orders routes by their paths, not by the list)."""

    def __init__(self, router: Router, routes: Iterable[BaseRoute]) -> None:
        super().__init__(routes)
        self.router = router

    def append(self, route: BaseRoute) -> None:
        self.router._add_given(route)
        super().append(route)

    def insert(self, index: SupportsIndex, route: BaseRoute) -> None:
        self.router._add_given(route)
        super().insert(index, route)

    def extend(self, routes: Iterable[BaseRoute]) -> None:
        for route in routes:
            self.append(route)


def request_response(func: Callable[[Request], Any]) -> ASGIApp:
    """Starlette's: ``func(request)`` returning a Response (sync: on the thread pool) as an
    ASGI app. Its ``request_endpoint`` is ``func``: where code has replaced Starlette's
    ``request_response`` with a wrapper that hands it another function (sentry-sdk's), a
    Starlette route calls that one."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        if inspect.iscoroutinefunction(func):
            response = await func(request)
        else:
            response = await run_in_threadpool(func, request)
        await response(scope, receive, send)

    app.request_endpoint = func  # type: ignore[attr-defined]  # what a route calls: see below
    return app


def websocket_session(func: Callable[[WebSocket], Awaitable[None]]) -> ASGIApp:
    """Starlette's: ``await func(websocket)`` as an ASGI app."""

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        await func(WebSocket(scope, receive=receive, send=send))

    return app


def _with_what_it_brings(route: BaseRoute) -> tuple[BaseRoute, ...]:
    """``route``, and for a Mount made by hand the route for the paths under it."""
    if isinstance(route, Mount) and MOUNT_PATH not in route.template.names:
        return route.both()
    return (route,)


def _under_half(route: BaseRoute, routes: Sequence[BaseRoute]) -> bool:
    """Whether ``route`` is the route for the paths under a Mount also in ``routes`` (as
    ``router.routes`` lists a mount), which brings it again."""
    return (
        isinstance(route, Mount)
        and MOUNT_PATH in route.template.names
        and any(
            isinstance(other, Mount) and other.compiled is route.compiled and other is not route
            for other in routes
        )
    )


def _check_starlette_endpoint(path: str, endpoint: Callable[..., Any]) -> None:
    """A TypeError for a handler written to have its parameters read (hasten's, FastAPI's),
    given to ``add_route``, which would call it with the request alone."""
    if inspect.isclass(endpoint):
        return  # an ASGI app's class (an HTTPEndpoint)
    try:
        parameters = list(inspect.signature(endpoint).parameters.values())
    except (TypeError, ValueError):
        return  # an ASGI app, or a callable Python cannot read: served as Starlette would
    required = [p for p in parameters if p.default is p.empty and p.kind in _POSITIONAL]
    plain = [p for p in required if p.annotation in (p.empty, "Request", Request)]
    if len(required) in (1, 3) and len(plain) == len(required):
        return  # (request), or an ASGI app's (scope, receive, send)
    raise TypeError(
        f"add_route({path!r}, {describe_handler(endpoint)}): add_route registers a Starlette "
        "endpoint, called with the request alone; a handler whose parameters are read from "
        "the request is registered with add_api_route (or @app.get and the others)"
    )


_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


def _check_prefix(prefix: str, what: str) -> None:
    if prefix and (not prefix.startswith("/") or prefix.endswith("/")):
        raise ValueError(f"{what} {prefix!r} must start with '/' and not end with it")
