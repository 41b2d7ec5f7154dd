"""Route registration: ``Router`` and the decorators ``get``, ``post``, ... ``route``."""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar, Unpack

from .dependencies import AppDependencies
from .endpoints import Endpoint, Offload, RouteOptions, check_dependencies
from .errors import one_status
from .matcher import CompiledRoute
from .models import IncEx
from .mounts import MOUNT_PATH, MountEndpoint, is_native
from .params import Dependency, Parameter
from .paths import PathTemplate
from .pools import Pools
from .responses import Response

__all__ = ["Route", "Router"]

F = TypeVar("F", bound=Callable[..., Any])
HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"})
# What a WebSocket route is registered under, beside the HTTP methods: one matcher serves both.
WEBSOCKET = "WEBSOCKET"


class OptionKeywords(TypedDict, total=False):
    """``RouteOptions``' fields, as keywords."""

    status: int
    offload: Offload | None
    executor: Executor | None
    max_concurrency: int | None
    timeout: float | None
    tags: Sequence[str]
    summary: str | None
    description: str | None
    response_description: str
    responses: Mapping[int | str, Mapping[str, Any]]
    deprecated: bool
    operation_id: str | None
    include_in_schema: bool
    openapi_extra: Mapping[str, Any] | None
    dependencies: Sequence[Any]
    response_model: Any
    validate_response: bool
    response_class: type[Response] | None
    response_model_include: IncEx | None
    response_model_exclude: IncEx | None
    response_model_by_alias: bool
    response_model_exclude_unset: bool
    response_model_exclude_defaults: bool
    response_model_exclude_none: bool


class RouteKeywords(OptionKeywords, total=False):
    """The keywords every route decorator takes (see ``RouteOptions``)."""

    status_code: int  # FastAPI's name for ``status``


def route_options(
    status_code: int | None = None, **options: Unpack[OptionKeywords]
) -> RouteOptions:
    """A decorator's keywords as ``RouteOptions``: ``status_code=`` is ``status=``."""
    if status_code is not None:
        options["status"] = one_status(options.get("status"), status_code, 200)
    return RouteOptions(**options)


@dataclass(frozen=True, slots=True)
class Child:
    """A router included in another, with the include's options."""

    prefix: str
    router: Router
    tags: tuple[str, ...]
    dependencies: tuple[Dependency, ...]
    default_response_class: type[Response] | None


@dataclass(frozen=True, slots=True)
class Route:
    """A registered route: its parsed path, methods and compiled endpoint, and the OpenAPI
    tags and the dependencies of the routers (and app) it was included through."""

    template: PathTemplate
    methods: frozenset[str]
    endpoint: Endpoint
    tags: tuple[str, ...] = ()
    dependencies: tuple[Dependency, ...] = ()

    @property
    def path(self) -> str:
        return self.template.path

    def with_prefix(
        self,
        prefix: str,
        tags: Sequence[str] = (),
        dependencies: Sequence[Dependency] = (),
        response_class: type[Response] | None = None,
    ) -> Route:
        """This route under ``prefix``, with its router's tags, dependencies and default
        response class (``response_class``: the route's own, or an inner router's, wins)."""
        template = self.template.with_prefix(prefix)
        return Route(
            template,
            self.methods,
            self.endpoint.under(template).with_default_response_class(response_class),
            (*tags, *self.tags),
            (*dependencies, *self.dependencies),
        )

    @property
    def request_parameters(self) -> tuple[Parameter, ...]:
        """Every request value this route reads: its handler's, and those of every
        dependency of the handler, the route, its routers and the app (for OpenAPI)."""
        return self.endpoint.request_parameters_with(self.dependencies)

    @property
    def security(self) -> list[tuple[Any, tuple[str, ...]]]:
        """The security schemes among this route's dependencies, with the scopes asked."""
        return self.endpoint.security_with(self.dependencies)

    @property
    def label(self) -> str:
        """``GET /items/{id}``: how logs and errors name the route."""
        return f"{'|'.join(sorted(self.methods))} {self.path}"

    def compile(self, pools: Pools, dependencies: AppDependencies | None = None) -> CompiledRoute:
        """What the matcher serves for this route in one app: its endpoint bound to ``pools``
        and, where it has dependencies, to the app's (overrides, app-scoped values)."""
        if not self.path:
            raise ValueError(
                f"Route '' of {self.endpoint.name}: a path may be '' only under a router prefix, "
                "which it then serves"
            )
        target = self.endpoint.bind(pools, self.label, self.dependencies, dependencies)
        target.websocket = WEBSOCKET in self.methods
        return CompiledRoute(self.template, self.methods, target, f"{self.label} ({target.name})")


class Router:
    """A group of routes under a common prefix, included into an App with ``app.include``
    (or ``app.include_router``, FastAPI's name)."""

    def __init__(
        self,
        prefix: str = "",
        *,
        tags: Sequence[str] = (),
        dependencies: Sequence[Any] = (),
        default_response_class: type[Response] | None = None,
    ) -> None:
        if prefix and (not prefix.startswith("/") or prefix.endswith("/")):
            raise ValueError(f"Router prefix {prefix!r} must start with '/' and not end with it")
        self.prefix = prefix
        self.tags = tuple(tags)  # OpenAPI tags of every route here, before the route's own
        # Depends() run before every route's own, for each request (their values unused).
        self.dependencies = check_dependencies(dependencies, f"Router({prefix!r})")
        # What a route's result is built into where the route gives no response_class.
        self.default_response_class = default_response_class
        self._routes: list[Route] = []
        self._children: list[Child] = []
        self._frozen = False

    def route(
        self, path: str, methods: Iterable[str] = ("GET",), **options: Unpack[RouteKeywords]
    ) -> Callable[[F], F]:
        """Register the decorated function for ``methods`` on ``path``.

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
            self.add_route(path, func, methods, **options)
            return func

        return register

    def add_route(
        self,
        path: str,
        func: Callable[..., Any],
        methods: Iterable[str] = ("GET",),
        **options: Unpack[RouteKeywords],
    ) -> Route:
        """Register ``func``; its signature is analysed now, so mistakes surface at import."""
        self._check_open(f"add the route {path!r}")
        wanted = frozenset(method.upper() for method in methods)
        unknown = wanted - HTTP_METHODS
        if unknown or not wanted:
            raise ValueError(f"Route {path!r}: unknown HTTP method(s) {sorted(unknown) or '[]'}")
        template = PathTemplate.parse(path)
        # Described under the router's own prefix: a parameter in it is a path parameter.
        endpoint = Endpoint(func, template.with_prefix(self.prefix), route_options(**options))
        _check_connection_types(endpoint, websocket=False)
        route = Route(template, wanted, endpoint)
        self._routes.append(route)
        return route

    def websocket(self, path: str) -> Callable[[F], F]:
        """Register the decorated ``async def`` for WebSocket connections to ``path``.

        It takes the same path, query, header and cookie parameters as an HTTP handler, and
        the connection as a ``WebSocket`` parameter.
        """

        def register(func: F) -> F:
            self.add_websocket_route(path, func)
            return func

        return register

    def add_websocket_route(self, path: str, func: Callable[..., Any]) -> Route:
        """Register ``func`` for WebSocket connections to ``path``."""
        self._check_open(f"add the WebSocket route {path!r}")
        template = PathTemplate.parse(path)
        endpoint = Endpoint(func, template.with_prefix(self.prefix), RouteOptions())
        if endpoint.runs_on != "event loop":
            raise TypeError(f"WebSocket handler {endpoint.name} must be an async def")
        _check_connection_types(endpoint, websocket=True)
        route = Route(template, frozenset({WEBSOCKET}), endpoint)
        self._routes.append(route)
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

    def mount(self, prefix: str, app: Any) -> None:
        """Serve ``app`` under ``prefix``: any ASGI app (a Starlette or FastAPI app, with
        ``root_path`` set to the prefix), or ``StaticFiles``. Routes of this app under the
        prefix still win; the mount catches the rest."""
        self._check_open(f"mount {prefix!r}")
        if not prefix.startswith("/") or prefix.endswith("/") or "{" in prefix:
            raise ValueError(
                f"Mount prefix {prefix!r} must start with '/', not end with it, and hold no "
                "path parameters"
            )
        if not (is_native(app) or callable(app)):
            raise TypeError(f"Cannot mount {app!r}: it is neither an ASGI app nor StaticFiles")
        methods: frozenset[str] = (
            frozenset(app.methods) if is_native(app) else HTTP_METHODS | {WEBSOCKET}
        )
        endpoint = MountEndpoint(app)
        for path in (prefix, f"{prefix}/{{{MOUNT_PATH}:path}}"):
            self._routes.append(Route(PathTemplate.parse(path), methods, endpoint))

    def include(
        self,
        router: Router,
        prefix: str = "",
        *,
        tags: Sequence[str] = (),
        dependencies: Sequence[Any] = (),
        default_response_class: type[Response] | None = None,
    ) -> None:
        """Serve ``router``'s routes here, under ``prefix`` + the router's own prefix
        (``tags``: OpenAPI tags for each of them, before the router's own; ``dependencies``:
        run before the router's own; ``default_response_class``: for its routes that have
        none, theirs or their router's)."""
        self._check_open("include a router")
        if router is self:
            raise ValueError("A router cannot include itself")
        checked = check_dependencies(dependencies, f"include({prefix!r})")
        self._children.append(Child(prefix, router, tuple(tags), checked, default_response_class))

    include_router = include  # FastAPI's name

    @property
    def routes(self) -> list[Route]:
        """Every route, included routers' too, with full paths."""
        own = self.dependencies
        default = self.default_response_class
        collected = [
            route.with_prefix(self.prefix, self.tags, own, default) for route in self._routes
        ]
        for child in self._children:
            # An inner default wins: the include's, then this router's.
            child_default = child.default_response_class or default
            collected.extend(
                route.with_prefix(
                    self.prefix + child.prefix,
                    (*self.tags, *child.tags),
                    (*own, *child.dependencies),
                    child_default,
                )
                for route in child.router.routes
            )
        return collected

    def _freeze(self) -> None:
        self._frozen = True
        for child in self._children:
            child.router._freeze()

    def _check_open(self, action: str) -> None:
        if self._frozen:
            raise RuntimeError(
                f"Cannot {action}: the app has started and its routes are compiled. "
                "Register routes before the app starts."
            )


def _check_connection_types(endpoint: Endpoint, *, websocket: bool) -> None:
    """An HTTP handler takes the Request, a WebSocket handler the WebSocket, and no body."""
    from .requests import Request
    from .websockets import WebSocket

    wanted, other = (WebSocket, Request) if websocket else (Request, WebSocket)
    for parameter in endpoint.parameters:
        annotation = parameter.annotation
        if parameter.source == "request" and _names(annotation, other):
            raise TypeError(
                f"{endpoint.name}: parameter {parameter.name!r} is a {other.__name__}, but this "
                f"is {'a WebSocket' if websocket else 'an HTTP'} route: take a {wanted.__name__}"
            )
        if websocket and parameter.source == "body":
            raise TypeError(
                f"{endpoint.name}: a WebSocket handler has no request body to read "
                f"{parameter.name!r} from; receive it with websocket.receive_json()"
            )


def _names(annotation: Any, kind: type) -> bool:
    members = typing.get_args(annotation) or (annotation,)
    return any(isinstance(member, type) and issubclass(member, kind) for member in members)
