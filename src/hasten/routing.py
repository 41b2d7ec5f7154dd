"""Route registration: ``Router`` and the decorators ``get``, ``post``, ... ``route``."""

from __future__ import annotations

import contextlib
import dataclasses
import difflib
import os
import types
import typing
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal, Self, TypedDict, TypeVar, Unpack

from hasten.context import ServeContext
from hasten.dependencies import AppDependencies
from hasten.endpoints import Endpoint, Offload, RouteOptions, check_dependencies
from hasten.errors import FastAPIError, PydanticV1NotSupportedError, one_status
from hasten.frontend import Fallback, Frontend, frontend_path
from hasten.matcher import CompiledRoute
from hasten.models import IncEx, describable, pydantic_v1_model
from hasten.mounts import MOUNT_PATH, MountEndpoint, is_native
from hasten.params import Dependency, Parameter, defined_at, describe_handler
from hasten.paths import PathTemplate
from hasten.pools import Pools
from hasten.renderers import Renderer
from hasten.requests import Request
from hasten.responses import Response
from hasten.settings import FormLimitsKeywords, check_body_size, check_form_limits
from hasten.types import Handler, Hook, Target

__all__ = [
    "APIRoute",
    "APIWebSocketRoute",
    "BaseRoute",
    "FrontendRoute",
    "Inherited",
    "Lifespan",
    "Match",
    "Mount",
    "NoMatchFound",
    "Route",
    "Router",
    "WebSocketRoute",
]

F = TypeVar("F", bound=Callable[..., Any])
H = TypeVar("H", bound=Hook)
# ``lifespan(app)``: a context manager, async or not, around the app's run (what it yields,
# a dict, is the state every request starts with); an (async) generator function is one too.
Lifespan = Callable[[Any], Any]
HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"})
# What a WebSocket route is registered under, beside the HTTP methods: one matcher serves both.
WEBSOCKET = "WEBSOCKET"


class NoMatchFound(LookupError):
    """``url_path_for``: no route has that name and those parameters (Starlette's name)."""


class OptionKeywords(TypedDict, total=False):
    """``RouteOptions``' fields, as keywords."""

    status: int
    name: str | None
    offload: Offload | None
    executor: Executor | None
    max_concurrency: int | None
    timeout: float | None
    tags: Sequence[str | Enum]
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
    callbacks: Sequence[Any]
    generate_unique_id_function: Callable[[Any], str] | None
    response_class: type[Response] | None
    response_model_include: IncEx | None
    response_model_exclude: IncEx | None
    response_model_by_alias: bool
    response_model_exclude_unset: bool
    response_model_exclude_defaults: bool
    response_model_exclude_none: bool
    max_body_size: int | None
    form_limits: FormLimitsKeywords | None
    strict_content_type: bool | None


class RouteKeywords(OptionKeywords, total=False):
    """The keywords every route decorator takes (see ``RouteOptions``)."""

    status_code: int  # FastAPI's name for ``status``


def route_options(
    status_code: int | None = None, **options: Unpack[OptionKeywords]
) -> RouteOptions:
    """A decorator's keywords as ``RouteOptions``: ``status_code=`` is ``status=``."""
    check_keywords(options, RouteKeywords.__optional_keys__, "route")
    if status_code is not None:
        options["status"] = one_status(options.get("status"), status_code, 200)
    fields: dict[str, Any] = dict(options)  # checked as keywords; tags become text here
    if "tags" in fields:
        fields["tags"] = tag_names(fields["tags"])
    if fields.get("form_limits", ()) is None:
        del fields["form_limits"]
    return RouteOptions(**fields)


def check_keywords(given: Iterable[str], known: Iterable[str], what: str) -> None:
    """A TypeError for a keyword not in ``known``, naming the closest one (a typo: offlaod)."""
    for keyword in given:
        if keyword not in known:
            close = difflib.get_close_matches(keyword, known, n=1, cutoff=0.6)
            hint = (
                f"did you mean {close[0]!r}?" if close else f"it takes {', '.join(sorted(known))}"
            )
            raise TypeError(f"unexpected {what} keyword argument {keyword!r}: {hint}")


def tag_names(tags: Sequence[str | Enum]) -> tuple[str, ...]:
    """OpenAPI tags as text: an Enum member (``tags=[Tags.items]``) by its value, as FastAPI
    writes it."""
    return tuple(str(tag.value) if isinstance(tag, Enum) else tag for tag in tags)


class InheritedKeywords(TypedDict, total=False):
    """What ``Router`` and ``include`` take for every route under them (FastAPI's names)."""

    tags: Sequence[str | Enum]
    dependencies: Sequence[Any]
    responses: Mapping[int | str, Mapping[str, Any]] | None
    callbacks: Sequence[Any]
    deprecated: bool | None
    include_in_schema: bool
    default_response_class: type[Response] | None
    generate_unique_id_function: Callable[[Any], str] | None
    max_body_size: int | None
    form_limits: FormLimitsKeywords | None
    strict_content_type: bool | None


@dataclass(frozen=True, slots=True)
class Inherited:
    """What a router, or one inclusion of it, gives every route under it: FastAPI's
    ``APIRouter`` and ``include_router`` keywords. A route's own value wins where it has one;
    tags, dependencies, callbacks and responses add up, the outer router's first."""

    tags: tuple[str, ...] = ()
    dependencies: tuple[Dependency, ...] = ()
    responses: Mapping[int | str, Mapping[str, Any]] = field(default_factory=dict)
    callbacks: tuple[Any, ...] = ()
    deprecated: bool = False
    include_in_schema: bool = True
    default_response_class: type[Response] | None = None
    generate_unique_id_function: Callable[[Any], str] | None = None
    # Limits: the innermost given wins (route, router, inclusion, outer router, app); form
    # limits key by key.
    max_body_size: int | None = None
    form_limits: Mapping[str, int] = field(default_factory=dict)
    strict_content_type: bool | None = None

    @classmethod
    def given(cls, where: str, **keywords: Unpack[InheritedKeywords]) -> Inherited:
        """The values given as ``keywords`` (to ``Router`` or ``include``, named ``where``)."""
        return cls(
            tag_names(keywords.get("tags", ())),
            check_dependencies(keywords.get("dependencies", ()), where),
            dict(keywords.get("responses") or {}),
            tuple(keywords.get("callbacks", ())),
            bool(keywords.get("deprecated")),
            keywords.get("include_in_schema", True),
            keywords.get("default_response_class"),
            keywords.get("generate_unique_id_function"),
            check_body_size(keywords.get("max_body_size"), where),
            check_form_limits(keywords.get("form_limits"), where),
            keywords.get("strict_content_type"),
        )

    def within(self, outer: Inherited) -> Inherited:
        """These values, for routes that ``outer`` gives its own too."""
        return Inherited(
            (*outer.tags, *self.tags),
            (*outer.dependencies, *self.dependencies),
            {**outer.responses, **self.responses},
            (*outer.callbacks, *self.callbacks),
            self.deprecated or outer.deprecated,
            self.include_in_schema and outer.include_in_schema,
            _first(self.default_response_class, outer.default_response_class),
            _first(self.generate_unique_id_function, outer.generate_unique_id_function),
            _first(self.max_body_size, outer.max_body_size),
            {**outer.form_limits, **self.form_limits},
            _first(self.strict_content_type, outer.strict_content_type),
        )

    def options_of(self, options: RouteOptions) -> RouteOptions:
        """A route's ``options`` with these values given (the same object if none changes
        it: the route's endpoint is then not described again)."""
        changes: dict[str, Any] = {}
        if self.responses:
            changes["responses"] = {**self.responses, **options.responses}
        if self.callbacks:
            changes["callbacks"] = (*self.callbacks, *options.callbacks)
        if self.deprecated and not options.deprecated:
            changes["deprecated"] = True
        if not self.include_in_schema and options.include_in_schema:
            changes["include_in_schema"] = False
        if self.default_response_class is not None and options.response_class is None:
            changes["response_class"] = self.default_response_class
        if self.generate_unique_id_function is not None and (
            options.generate_unique_id_function is None
        ):
            changes["generate_unique_id_function"] = self.generate_unique_id_function
        if self.max_body_size is not None and options.max_body_size is None:
            changes["max_body_size"] = self.max_body_size
        if self.form_limits.keys() - options.form_limits.keys():
            changes["form_limits"] = {**self.form_limits, **options.form_limits}
        if self.strict_content_type is not None and options.strict_content_type is None:
            changes["strict_content_type"] = self.strict_content_type
        return dataclasses.replace(options, **changes) if changes else options


def _first(value: Any, default: Any) -> Any:
    return default if value is None else value


class Match(Enum):
    """How a route matches a connection's scope (Starlette's): not at all, by its path alone
    (another method), or fully."""

    NONE = 0
    PARTIAL = 1
    FULL = 2


@dataclass(frozen=True, slots=True)
class BaseRoute:
    """A registered route: its parsed path, methods and compiled endpoint, and the OpenAPI
    tags and the dependencies of the routers (and app) it was included through.

    ``Route`` serves HTTP requests, ``WebSocketRoute`` WebSocket connections and ``Mount``
    another app under a prefix (Starlette's classes of the same names).
    """

    template: PathTemplate
    methods: frozenset[str]
    endpoint: Endpoint
    tags: tuple[str, ...] = ()  # its routers' (and app's), then its own, as FastAPI's
    dependencies: tuple[Dependency, ...] = ()
    # Set on the copy ``compile`` makes for one app: what ``get_route_handler`` wraps.
    target: Target | None = field(default=None, compare=False, repr=False)
    # Tried only where no other route serves the path (see CompiledRoute.low_priority).
    low_priority: typing.ClassVar[bool] = False

    @property
    def path(self) -> str:
        return self.template.path

    @property
    def name(self) -> str:
        """What ``url_for`` calls the route: its ``name=``, else its handler's name."""
        name = self.endpoint.options.name
        if name is None:
            func = self.endpoint.func
            name = getattr(func, "__name__", type(func).__name__)
        return name

    def url_path(self, values: Mapping[str, Any]) -> str | None:
        """This route's path with its parameters given ``values``; None when they are not
        its parameters. A mount takes the path under it as ``path``, as Starlette's."""
        if isinstance(self.endpoint, MountEndpoint) and "path" in values:
            values = {**values, MOUNT_PATH: str(values["path"]).lstrip("/")}
            del values["path"]
        if set(values) != self.template.names:
            return None
        return self.template.format(values)

    def url_path_for(self, name: str, /, **values: Any) -> str:
        """This route's path, if it is called ``name`` and takes ``values``; else
        NoMatchFound (Starlette's)."""
        path = self.url_path(values) if name == self.name else None
        if path is None:
            raise NoMatchFound(f"No route named {name!r} takes the parameters {sorted(values)}")
        return path

    def matches(self, scope: Mapping[str, Any]) -> tuple[Match, dict[str, Any]]:
        """Whether a connection's ``scope`` (its ``type``, ``path`` and ``method``) is this
        route's, and the scope's values if it is (Starlette's)."""
        websocket = scope.get("type") == "websocket"
        if websocket != (WEBSOCKET in self.methods):
            return Match.NONE, {}
        values = self.template.match(scope.get("path", ""))
        if values is None:
            return Match.NONE, {}
        found = {"endpoint": self.endpoint.func, "path_params": values, "route": self}
        method = scope.get("method", "GET")
        if websocket or method in self.methods or (method == "HEAD" and "GET" in self.methods):
            return Match.FULL, found
        return Match.PARTIAL, found

    def with_prefix(self, prefix: str, inherited: Inherited = Inherited()) -> Self:
        """This route under ``prefix``, with what the routers it is included through give it."""
        template = self.template.with_prefix(prefix)
        return dataclasses.replace(
            self,
            template=template,
            endpoint=self.endpoint.under(template, inherited.options_of(self.endpoint.options)),
            tags=(*inherited.tags, *self.tags),
            dependencies=(*inherited.dependencies, *self.dependencies),
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

    def compile(
        self,
        pools: Pools,
        dependencies: AppDependencies | None = None,
        context: ServeContext | None = None,
    ) -> CompiledRoute:
        """What the matcher serves for this route in one app: its endpoint bound to ``pools``
        and, where it has dependencies, to the app's (overrides, app-scoped values); its
        requests read ``context`` (the app's) with the route's own limits over it."""
        if not self.path:
            raise ValueError(
                f"Route '' of {self.endpoint.name}: a path may be '' only under a router prefix, "
                "which it then serves"
            )
        target = self._target(
            self.endpoint.bind(pools, self.label, self.dependencies, dependencies, context)
        )
        target.websocket = WEBSOCKET in self.methods
        target.route = self
        label = f"{self.label} ({target.name})"
        return CompiledRoute(self.template, self.methods, target, label, self.low_priority)

    def _target(self, bound: Target) -> Target:
        """What serves this route, from its endpoint ``bound`` to the app."""
        return bound


@dataclass(frozen=True, slots=True)
class Route(BaseRoute):
    """An HTTP route (FastAPI's ``APIRoute``). A subclass (a router's ``route_class=``,
    FastAPI's custom ``APIRoute``) may override ``get_route_handler`` to wrap what serves the
    route."""

    @property
    def max_body_size(self) -> int | None:
        """The route's own body limit, as given (None: its routers', else the app's)."""
        return self.endpoint.options.max_body_size

    @property
    def form_limits(self) -> Mapping[str, int]:
        """The route's own form limits, as given (each key left out: its routers')."""
        return self.endpoint.options.form_limits

    def get_route_handler(self) -> Handler:
        """What serves this route, ``async (request) -> Response``: read its values, run its
        handler, render the result. A subclass may wrap it (time it, catch an error, hand on
        another request); it is called once, when the app starts."""
        if self.target is None:
            raise RuntimeError("get_route_handler() is called by the app, when it starts")
        invoke, render = self.target.invoke, self.target.render

        async def handle(request: Request) -> Response:
            return render(await invoke(request))

        return handle

    def _target(self, bound: Target) -> Target:
        if type(self).get_route_handler is Route.get_route_handler:
            return bound
        handler = dataclasses.replace(self, target=bound).get_route_handler()
        return Target(bound.name, handler, _AS_IS)


APIRoute = Route  # FastAPI's name (``hasten port`` imports Route under it)


@dataclass(frozen=True, slots=True)
class WebSocketRoute(BaseRoute):
    """A WebSocket route (FastAPI's ``APIWebSocketRoute``)."""


APIWebSocketRoute = WebSocketRoute  # FastAPI's name


@dataclass(frozen=True, slots=True)
class FrontendRoute(BaseRoute):
    """A frontend build's files under a path (``router.frontend(...)``): tried only where no
    other route serves the path, never named by ``url_path_for``, never documented."""

    low_priority = True

    def url_path(self, values: Mapping[str, Any]) -> str | None:
        return None


@dataclass(frozen=True, slots=True)
class Mount(BaseRoute):
    """One of the two routes of a mounted app (its prefix, and every path under it)."""

    @property
    def app(self) -> Any:
        """The app mounted (Starlette's name)."""
        endpoint = self.endpoint
        assert isinstance(endpoint, MountEndpoint)
        return endpoint.mounted


# A custom route handler's result is its Response.
_AS_IS = Renderer(200).render


class Router:
    """A group of routes under a common prefix, included into an App with ``app.include``
    (or ``app.include_router``, FastAPI's name).

    Routes, and routers included, may be added at any time, also once an app that includes
    this router has started (as FastAPI allows): the app compiles its routes again, once per
    change. ``on_startup``, ``on_shutdown`` and ``lifespan`` run with the app that includes
    the router, after the app's own.
    """

    def __init__(
        self,
        prefix: str = "",
        *,
        route_class: type[Route] | None = None,
        routes: Sequence[BaseRoute] | None = None,
        on_startup: Sequence[Hook] | None = None,
        on_shutdown: Sequence[Hook] | None = None,
        lifespan: Lifespan | None = None,
        **keywords: Unpack[InheritedKeywords],
    ) -> None:
        _check_prefix(prefix, "Router prefix")
        self.prefix = prefix
        # What every route here gets: OpenAPI tags before the route's own, Depends() run
        # before its own for each request (their values unused), ...
        self.inherited = Inherited.given(f"Router({prefix!r})", **keywords)
        # The class of the routes registered here from now on (FastAPI's custom APIRoute).
        self.route_class = route_class or Route
        self._routes: list[BaseRoute] = list(routes or ())
        self._children: list[tuple[str, Router, Inherited]] = []
        # The routers that include this one: told of every change (see ``_changed``).
        self._parents: list[Router] = []
        self._names: dict[str, list[BaseRoute]] | None = None
        self._startup_hooks: list[Hook] = list(on_startup or ())
        self._shutdown_hooks: list[Hook] = list(on_shutdown or ())
        self.lifespan = lifespan

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
            self.add_route(path, func, methods, **options)
            return func

        return register

    api_route = route  # FastAPI's name

    def add_route(
        self,
        path: str,
        func: Callable[..., Any],
        methods: Iterable[str] | None = None,
        **options: Unpack[RouteKeywords],
    ) -> Route:
        """Register ``func``; its signature is analysed now, so mistakes surface at import."""
        wanted = frozenset(method.upper() for method in methods or ("GET",))
        unknown = wanted - HTTP_METHODS
        if unknown or not wanted:
            raise ValueError(f"Route {path!r}: unknown HTTP method(s) {sorted(unknown) or '[]'}")
        template = PathTemplate.parse(path)
        with _registering(func, f"{'|'.join(sorted(wanted))} {path}"):
            # Described under the router's own prefix: a parameter in it is a path parameter.
            endpoint = Endpoint(func, template.with_prefix(self.prefix), route_options(**options))
            _check_connection_types(endpoint, websocket=False)
            _check_response_model(endpoint)
        route = self.route_class(template, wanted, endpoint, tuple(endpoint.options.tags))
        self._register(route)
        return route

    add_api_route = add_route  # FastAPI's name

    def websocket(
        self, path: str, name: str | None = None, *, dependencies: Sequence[Any] = ()
    ) -> Callable[[F], F]:
        """Register the decorated ``async def`` for WebSocket connections to ``path``.

        It takes the same path, query, header and cookie parameters as an HTTP handler, and
        the connection as a ``WebSocket`` parameter; ``dependencies=[Depends(...)]`` run
        before it. ``name``: what ``url_for`` calls it.
        """

        def register(func: F) -> F:
            self.add_websocket_route(path, func, name, dependencies=dependencies)
            return func

        return register

    websocket_route = websocket  # Starlette's name

    def add_websocket_route(
        self,
        path: str,
        func: Callable[..., Any],
        name: str | None = None,
        *,
        dependencies: Sequence[Any] = (),
    ) -> WebSocketRoute:
        """Register ``func`` for WebSocket connections to ``path``."""
        template = PathTemplate.parse(path)
        options = RouteOptions(name=name, dependencies=dependencies)
        with _registering(func, f"WEBSOCKET {path}"):
            endpoint = Endpoint(func, template.with_prefix(self.prefix), options)
            if endpoint.runs_on != "event loop":
                raise TypeError(f"WebSocket handler {endpoint.name} must be an async def")
            _check_connection_types(endpoint, websocket=True)
        route = WebSocketRoute(template, frozenset({WEBSOCKET}), endpoint)
        self._register(route)
        return route

    add_api_websocket_route = add_websocket_route  # FastAPI's name

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
        if not path or "{" in path:
            raise ValueError(f"Mount prefix {path!r} must not be empty or hold path parameters")
        _check_prefix(path, "Mount prefix")
        if not (is_native(app) or callable(app)):
            raise TypeError(f"Cannot mount {app!r}: it is neither an ASGI app nor StaticFiles")
        methods: frozenset[str] = (
            frozenset(app.methods) if is_native(app) else HTTP_METHODS | {WEBSOCKET}
        )
        endpoint = MountEndpoint(app, name)
        for template in (path, f"{path}/{{{MOUNT_PATH}:path}}"):
            self._register(Mount(PathTemplate.parse(template), methods, endpoint))

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
                if not route.path:
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

    def url_path_for(self, name: str, /, **values: Any) -> str:
        """The path of the route called ``name`` (see ``Route.name``), its parameters given
        ``values``; NoMatchFound if no route has that name and those parameters."""
        for route in self._named().get(name, ()):
            path = route.url_path(values)
            if path is not None:
                return path
        raise NoMatchFound(f"No route named {name!r} takes the parameters {sorted(values)}")

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
        """Every route, included routers' too, with full paths."""
        own = self.inherited
        collected = [self._full(route) for route in self._routes]
        for prefix, child, inherited in self._children:
            collected.extend(
                route.with_prefix(self.prefix + prefix, inherited.within(own))
                for route in child.routes
            )
        return collected

    def _register(self, route: BaseRoute) -> None:
        """Add ``route``: served from the next request on, also where an app that includes
        this router runs already."""
        self._routes.append(route)
        try:
            self._changed()
        except BaseException:  # a running app refused it: it is not registered
            self._routes.remove(route)
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


def _check_prefix(prefix: str, what: str) -> None:
    if prefix and (not prefix.startswith("/") or prefix.endswith("/")):
        raise ValueError(f"{what} {prefix!r} must start with '/' and not end with it")


def _check_response_model(endpoint: Endpoint) -> None:
    """FastAPI's refusals at registration: a response model (or a ``responses=`` entry's
    ``model``) that holds a pydantic v1 model, a Response among other types, or that nothing
    can describe."""
    declared_models = [("response model", endpoint.response_model)]
    declared_models += [
        ("responses=", extra.get("model")) for extra in endpoint.options.responses.values()
    ]
    for where, declared in declared_models:
        v1_model = pydantic_v1_model(declared)
        if v1_model is not None:
            raise PydanticV1NotSupportedError(
                f"{endpoint.name}: its {where} holds a pydantic v1 model "
                f"({v1_model.__qualname__}); hasten sends pydantic v2 models only, as FastAPI "
                "does: declare it with `from pydantic import BaseModel`, not `from pydantic.v1 "
                "import BaseModel`"
            )
    model = endpoint.response_model
    if (
        endpoint.options.response_model is not None
        and endpoint.stream_item is None
        and not (isinstance(model, type) and issubclass(model, Response))
        and (_holds_a_response(model) or not describable(model))
    ):
        raise FastAPIError(_invalid_response_model(endpoint.name, model))
    for declared in endpoint.options.responses.values():
        if "model" in declared and not describable(declared["model"]):
            raise FastAPIError(_invalid_response_model(endpoint.name, declared["model"]))


def _invalid_response_model(where: str, model: Any) -> str:
    return (
        f"{where}: invalid args for response field! Hint: check that {model} is a valid "
        "Pydantic field type. If you are using a return type annotation that is not a valid "
        "Pydantic field (e.g. Union[Response, dict, None]) you can disable generating the "
        "response model from the type annotation with the path operation decorator parameter "
        "response_model=None. Read more: https://fastapi.tiangolo.com/tutorial/response-model/"
    )


def _holds_a_response(model: Any) -> bool:
    """Whether ``model`` is a union with a Response class in it (``Response | dict``): no
    response model, as FastAPI refuses it at registration. A Response class alone is the
    result as it is."""
    if typing.get_origin(model) not in (typing.Union, types.UnionType):
        return False
    return any(
        isinstance(member, type) and issubclass(member, Response)
        for member in typing.get_args(model)
    )


def _check_connection_types(endpoint: Endpoint, *, websocket: bool) -> None:
    """An HTTP handler takes the Request, a WebSocket handler the WebSocket, and no body."""
    from hasten.requests import Request
    from hasten.websockets import WebSocket

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


@contextlib.contextmanager
def _registering(func: Callable[..., Any], route: str) -> Iterator[None]:
    """An error raised while ``func`` is registered says where ``func`` is defined: the
    traceback's last lines are hasten's, and a route registered in a loop or by a helper is
    not where the mistake is."""
    try:
        yield
    except Exception as exc:
        where = defined_at(func)
        if where is not None:
            exc.add_note(f"registering {route}: {describe_handler(func)} is defined at {where}")
        raise
