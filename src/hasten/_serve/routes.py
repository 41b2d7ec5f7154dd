"""Routes: what a registered path is bound to (a handler, a WebSocket handler, a mount, a
frontend), compiled for the matcher when the app starts; and the route options they inherit."""

from __future__ import annotations

import dataclasses
import difflib
import functools
import inspect
import re
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Self, TypedDict, Unpack

from hasten._flow.context import ServeContext
from hasten._flow.contracts import Handler, Receive, Scope, Send, Target
from hasten._http.connection import MOUNT_PATH
from hasten._http.datastructures import URLPath
from hasten._http.errors import one_status
from hasten._http.paths import PathTemplate, under_root
from hasten._http.requests import Request
from hasten._http.responses import Response
from hasten._params.dependencies import AppDependencies
from hasten._params.descriptions import Parameter, describe_handler
from hasten._params.endpoints import Endpoint, Offload, RouteOptions, check_dependencies
from hasten._params.markers import Dependency
from hasten._params.models import IncEx
from hasten._params.renderers import Renderer
from hasten._running.pools import Pools
from hasten._serve.matcher import ANY_METHOD, CompiledRoute
from hasten._serve.mounts import MountEndpoint, is_native
from hasten._serve.registration import (
    check_connection_types,
    check_response_model,
    registering,
)
from hasten._settings import FormLimitsKeywords, check_body_size, check_form_limits

__all__ = [
    "ANY_METHOD",
    "ASGI_METHODS",
    "HTTP_METHODS",
    "WEBSOCKET",
    "APIRoute",
    "APIWebSocketRoute",
    "BaseRoute",
    "FrontendRoute",
    "Inherited",
    "InheritedKeywords",
    "Lifespan",
    "Match",
    "Mount",
    "NoMatchFound",
    "OptionKeywords",
    "Route",
    "RouteKeywords",
    "WebSocketRoute",
    "check_keywords",
    "http_route_parts",
    "route_options",
    "tag_names",
]

# ``lifespan(app)``: a context manager, async or not, around the app's run (what it yields,
# a dict, is the state every request starts with); an (async) generator function is one too.
Lifespan = Callable[[Any], Any]
HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"})
# An ASGI app's route answers any other method too (QUERY, WebDAV's PROPFIND), as in Starlette.
ASGI_METHODS = HTTP_METHODS | {ANY_METHOD}
# What a WebSocket route is registered under, beside the HTTP methods: one matcher serves both.
WEBSOCKET = "WEBSOCKET"
# An HTTP method as a request line carries it (RFC 9110 §5.6.2's token).
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")


class NoMatchFound(LookupError):
    """``url_path_for``: no route has that name and those parameters (Starlette's name)."""

    def __init__(self, name: str, values: Mapping[str, Any]) -> None:
        super().__init__(f'No route exists for name "{name}" and params "{", ".join(values)}".')


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


def tag_names(tags: Sequence[str | Enum] | None) -> tuple[str, ...]:
    """OpenAPI tags as text: an Enum member (``tags=[Tags.items]``) by its value, as FastAPI
    writes it; None, FastAPI's default, is none."""
    return tuple(str(tag.value) if isinstance(tag, Enum) else tag for tag in tags or ())


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
    compiled: Endpoint
    tags: tuple[str, ...] = ()  # its routers' (and app's), then its own, as FastAPI's
    dependencies: tuple[Dependency, ...] = ()
    # Set on the copy ``compile`` makes for one app: what ``get_route_handler`` wraps.
    target: Target | None = field(default=None, compare=False, repr=False)
    # The app it serves through when called as an ASGI app itself (``__call__``).
    _as_app: Any = field(default=None, init=False, compare=False, repr=False)
    # Tried only where no other route serves the path (see CompiledRoute.low_priority).
    low_priority: typing.ClassVar[bool] = False

    @property
    def path(self) -> str:
        return self.template.path

    @property
    def path_format(self) -> str:
        """The path with each parameter as ``{name}`` (Starlette's)."""
        return self.template.path_format

    @property
    def name(self) -> str:
        """What ``url_for`` calls the route: its ``name=``, else its handler's name."""
        name = self.compiled.options.name
        if name is None:
            func = self.compiled.func
            name = getattr(func, "__name__", type(func).__name__)
        return name

    def url_path(self, values: Mapping[str, Any]) -> str | None:
        """This route's path with its parameters given ``values``; None when they are not
        its parameters. A mount takes the path under it as ``path``, as Starlette's."""
        if isinstance(self.compiled, MountEndpoint):
            if "path" not in values:
                return None  # as Starlette's: a mount's URL names the path under it
            values = {**values, MOUNT_PATH: str(values["path"]).lstrip("/")}
            del values["path"]
        if set(values) != self.template.names:
            return None
        return self.template.format(values)

    def url_path_for(self, name: str, /, **values: Any) -> URLPath:
        """This route's path, if it is called ``name`` and takes ``values``; else
        NoMatchFound (Starlette's)."""
        path = self.url_path(values) if name == self.name else None
        if path is None:
            raise NoMatchFound(name, values)
        return self.url_path_of(path)

    def url_path_of(self, path: str) -> URLPath:
        """``path``, one of this route's, as ``url_path_for`` gives it: a WebSocket route's
        URL is ``ws://`` or ``wss://`` under a base URL."""
        return URLPath(path, "websocket" if WEBSOCKET in self.methods else "http")

    def matches(self, scope: Mapping[str, Any]) -> tuple[Match, dict[str, Any]]:
        """Whether a connection's ``scope`` (its ``type``, ``path`` and ``method``) is this
        route's, and the scope's values if it is (Starlette's)."""
        websocket = scope.get("type") == "websocket"
        if websocket != (WEBSOCKET in self.methods):
            return Match.NONE, {}
        values = self.template.match(_route_path(scope))
        if values is None:
            return Match.NONE, {}
        values = {**scope.get("path_params", {}), **values}
        found = {"endpoint": self.compiled.func, "path_params": values, "route": self}
        method = scope.get("method", "GET")
        if (
            websocket
            or method in self.methods
            or (method == "HEAD" and "GET" in self.methods)
            or ANY_METHOD in self.methods
        ):
            return Match.FULL, found
        return Match.PARTIAL, found

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve a connection as an ASGI app of this one route (Starlette's routes are apps),
        made for it on the first call and kept."""
        app = self._as_app
        if app is None:
            assert Mount.app_of_routes is not None, "hasten.app sets it when it is imported"
            app = Mount.app_of_routes([self], (), None)
            object.__setattr__(self, "_as_app", app)  # frozen, but made once as a cache
        await app(scope, receive, send)

    def with_prefix(self, prefix: str, inherited: Inherited = Inherited()) -> Self:
        """This route under ``prefix``, with what the routers it is included through give it."""
        template = self.template.with_prefix(prefix)
        return dataclasses.replace(
            self,
            template=template,
            compiled=self.compiled.under(template, inherited.options_of(self.compiled.options)),
            tags=(*inherited.tags, *self.tags),
            dependencies=(*inherited.dependencies, *self.dependencies),
        )

    @property
    def request_parameters(self) -> tuple[Parameter, ...]:
        """Every request value this route reads: its handler's, and those of every
        dependency of the handler, the route, its routers and the app (for OpenAPI)."""
        return self.compiled.request_parameters_with(self.dependencies)

    @property
    def security(self) -> list[tuple[Any, tuple[str, ...]]]:
        """The security schemes among this route's dependencies, with the scopes asked."""
        return self.compiled.security_with(self.dependencies)

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
        if not self.template.path:
            raise ValueError(
                f"Route '' of {self.compiled.name}: a path may be '' only under a router prefix, "
                "which it then serves"
            )
        websocket = WEBSOCKET in self.methods
        target = self._target(
            self.compiled.bind(
                pools, self.label, self.dependencies, dependencies, context, websocket=websocket
            )
        )
        target.websocket = websocket
        target.route = self
        endpoint = getattr(self, "endpoint", self.compiled.func)  # a mount's: its app
        target.scope_items = {"route": self, "endpoint": endpoint}
        label = f"{self.label} ({target.name})"
        return CompiledRoute(self.template, self.methods, target, label, self.low_priority)

    def _target(self, bound: Target) -> Target:
        """What serves this route, from its endpoint ``bound`` to the app."""
        return bound


@dataclass(frozen=True, slots=True)
class Route(BaseRoute):
    """An HTTP route (FastAPI's ``APIRoute``). A subclass (a router's ``route_class=``,
    FastAPI's custom ``APIRoute``) may override ``get_route_handler`` to wrap what serves the
    route.

    ``Route(path, endpoint, methods=["POST"], **options)`` makes one by hand, as FastAPI's
    ``APIRoute`` is made, to give in ``App(routes=[...])`` or ``Router(routes=[...])``; the
    options are the route decorators' (``response_model=``, ``max_body_size=``, ...).
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if (args and isinstance(args[0], str)) or "path" in kwargs:
            args, kwargs = _by_hand(*args, **kwargs), {}
        # hasten's own form, as routers make it: (template, methods, endpoint, tags, ...).
        BaseRoute.__init__(self, *args, **kwargs)

    @property
    def endpoint(self) -> Callable[..., Any]:
        """The handler as registered (Starlette's and FastAPI's ``route.endpoint``)."""
        return self.compiled.func

    @property
    def max_body_size(self) -> int | None:
        """The route's own body limit, as given (None: its routers', else the app's)."""
        return self.compiled.options.max_body_size

    @property
    def form_limits(self) -> Mapping[str, int]:
        """The route's own form limits, as given (each key left out: its routers')."""
        return self.compiled.options.form_limits

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

    # Under the switch, the served ``fastapi.routing`` sets it: the route's handler as
    # ``fastapi.routing.get_request_handler`` makes it where code has replaced that function
    # (sentry-sdk wraps every route so), else None. Asked once per route, when it compiles.
    wrapped_handler: typing.ClassVar[Callable[[Route, Handler], Handler | None] | None] = None

    def _target(self, bound: Target) -> Target:
        custom = type(self).get_route_handler is not Route.get_route_handler
        wrap = Route.wrapped_handler
        if not custom and wrap is None:
            return bound
        handler = dataclasses.replace(self, target=bound).get_route_handler()
        wrapped = None if wrap is None else wrap(self, handler)
        if wrapped is None and not custom:
            return bound
        target = Target(bound.name, wrapped or handler, _AS_IS)
        target.guarded = bound.guarded
        return target


APIRoute = Route  # FastAPI's name (``hasten port`` imports Route under it)


def http_route_parts(
    path: str,
    func: Callable[..., Any],
    methods: Iterable[str] | None,
    prefix: str,
    options: RouteKeywords,
) -> tuple[PathTemplate, frozenset[str], Endpoint]:
    """An HTTP route's parts: its path, methods and endpoint, ``func`` described under its
    router's ``prefix`` (a parameter in it is a path parameter)."""
    wanted = frozenset(method.upper() for method in methods or ("GET",))
    # Any method is served, as FastAPI serves it (QUERY, PROPFIND, ...), that a request line
    # can carry: a token; WEBSOCKET is the matcher's name for WebSocket connections.
    wrong = sorted(m for m in wanted if m == WEBSOCKET or not _TOKEN.fullmatch(m))
    if wrong or not wanted:
        raise ValueError(
            f"Route {path!r}: not HTTP method(s) {wrong}: a method is a token (letters, "
            "digits and !#$%&'*+-.^_`|~), as GET or QUERY, other than WEBSOCKET"
        )
    template = PathTemplate.parse(path)
    with registering(func, f"{'|'.join(sorted(wanted))} {path}"):
        endpoint = Endpoint(func, template.with_prefix(prefix), route_options(**options))
        check_connection_types(endpoint, websocket=False)
        check_response_model(endpoint)
    return template, wanted, endpoint


def _by_hand(
    path: str,
    endpoint: Callable[..., Any],
    *,
    methods: Iterable[str] | None = None,
    **options: Unpack[RouteKeywords],
) -> tuple[PathTemplate, frozenset[str], Endpoint, tuple[str, ...]]:
    """The parts of ``Route(path, endpoint, ...)``: FastAPI's ``APIRoute`` signature."""
    if callable(endpoint) and _takes_starlette_request(endpoint):
        raise TypeError(
            f"Route {path!r}: {describe_handler(endpoint)} takes an unannotated 'request', as a "
            "Starlette endpoint does; hasten reads a handler's parameters by their "
            "annotations, as FastAPI's APIRoute does: annotate it 'request: Request'"
        )
    template, wanted, made = http_route_parts(path, endpoint, methods, "", options)
    return template, wanted, made, tuple(made.options.tags)


def _takes_starlette_request(endpoint: Callable[..., Any]) -> bool:
    """Whether ``endpoint`` is written as a Starlette endpoint, ``(request)`` unannotated,
    which FastAPI's APIRoute would read as a query parameter named ``request`` (a 422 for
    every request)."""
    try:
        parameters = list(inspect.signature(endpoint).parameters.values())
    except (TypeError, ValueError):
        return False
    return any(
        parameter.name == "request" and parameter.annotation is inspect.Parameter.empty
        for parameter in parameters
    )


@dataclass(frozen=True, slots=True)
class WebSocketRoute(BaseRoute):
    """A WebSocket route (FastAPI's ``APIWebSocketRoute``)."""

    @property
    def endpoint(self) -> Callable[..., Any]:
        """The handler as registered (Starlette's and FastAPI's ``route.endpoint``)."""
        return self.compiled.func


APIWebSocketRoute = WebSocketRoute  # FastAPI's name


@dataclass(frozen=True, slots=True)
class FrontendRoute(BaseRoute):
    """A frontend build's files under a path (``router.frontend(...)``): tried only where no
    other route serves the path, never named by ``url_path_for``, never documented."""

    low_priority = True

    def url_path(self, values: Mapping[str, Any]) -> str | None:
        return None


@dataclass(frozen=True, slots=True)
class AppRoute(BaseRoute):
    """A route that hands its connections to another app (a Mount's, a Host's): the app,
    its routes, and the names of its routes reached through this one's."""

    def __repr__(self) -> str:
        # Starlette's: Mount(path='/app', name='', app=...).
        name = self.compiled.options.name or ""
        return f"{type(self).__name__}(path={self.path!r}, name={name!r}, app={self.app!r})"

    def url_path_of(self, path: str) -> URLPath:
        # Whichever the app's route is, its URL's scheme is the base's; a host's names it.
        return path if isinstance(path, URLPath) else URLPath(path)

    @property
    def app(self) -> Any:
        """The app served (Starlette's name)."""
        endpoint = self.compiled
        assert isinstance(endpoint, MountEndpoint)
        return endpoint.mounted

    @property
    def routes(self) -> list[BaseRoute]:
        """The app's routes (Starlette's ``mount.routes``, ``host.routes``)."""
        return list(getattr(self.app, "routes", []))

    def inner_path(self, name: str, values: Mapping[str, Any]) -> str | None:
        """The path of a route of the app, called ``name`` there: ``own:name`` for a route
        named ``own``, ``name`` for one without (Starlette's names through mounts)."""
        own = self.compiled.options.name
        if own is not None:
            if not name.startswith(own + ":"):
                return None
            name = name[len(own) + 1 :]
        # As Starlette's: the names of an app with routes (not a lone route's, nor those
        # of an app behind an ASGI middleware).
        find = getattr(self.app, "url_path_for", None) if hasattr(self.app, "routes") else None
        if find is None:
            return None
        names = self.own_names()
        try:
            inner = find(name, **{key: value for key, value in values.items() if key not in names})
        except LookupError:
            return None
        # Its own parameters not given stay "{name}" in the path, as in Starlette's.
        path = self.prefix_of({key: values[key] for key in names if key in values}) + str(inner)
        if isinstance(inner, URLPath) and (inner.host or inner.protocol):
            return URLPath(path, inner.protocol, inner.host)
        return path

    def own_names(self) -> frozenset[str]:
        """The names of its own parameters, which the app's routes do not take."""
        return self.template.names

    def prefix_of(self, values: Mapping[str, Any]) -> str:
        """What the path of a route of the app is under, its own parameters given."""
        return self.template.format(values, keep_missing=True).rstrip("/")

    def url_path_for(self, name: str, /, **values: Any) -> URLPath:
        """Its own URL (``path`` under it), or that of a route of its app (Starlette's)."""
        try:
            return BaseRoute.url_path_for(self, name, **values)
        except NoMatchFound:
            path = self.inner_path(name, values)
            if path is None:
                raise
            return self.url_path_of(path)


@dataclass(frozen=True, slots=True)
class Mount(AppRoute):
    """One of the two routes of a mounted app (its prefix, and every path under it).

    Made by hand as Starlette's: ``Mount("/api", app=...)`` or ``Mount("/api",
    routes=[...])`` (those routes served by a Starlette app of their own), to give in
    ``routes=[...]``, where the router adds the route for the paths under it.
    """

    # How routes given by hand become an app, with the middleware (``Middleware`` entries)
    # and body limit given with them (hasten.app's Starlette, which sits above).
    app_of_routes: typing.ClassVar[
        Callable[[Sequence[BaseRoute], Sequence[Any], int | None], Any] | None
    ] = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if (args and isinstance(args[0], str)) or "path" in kwargs:
            args, kwargs = _mount_by_hand(*args, **kwargs), {}
        BaseRoute.__init__(self, *args, **kwargs)

    def __repr__(self) -> str:
        # Starlette's: Mount(path='/api', name='api', app=...); a Mount without a name has ''.
        name = self.compiled.options.name or ""
        return f"{type(self).__name__}(path={self.path!r}, name={name!r}, app={self.app!r})"

    @property
    def path(self) -> str:
        """The prefix, as Starlette's ``mount.path``: ``Mount("/")``'s is ``""``, so that the
        path of a route under it is the prefix and the route's path."""
        return self.template.path.rstrip("/")

    def both(self) -> tuple[Mount, Mount]:
        """This mount's two routes: its prefix, and every path under it."""
        return self, Mount(_under(self.path), self.methods, self.compiled)

    def inner_path(self, name: str, values: Mapping[str, Any]) -> str | None:
        if MOUNT_PATH in self.template.names:
            return None  # the route for the paths under it: its prefix's answers
        return AppRoute.inner_path(self, name, values)

    def matches(self, scope: Mapping[str, Any]) -> tuple[Match, dict[str, Any]]:
        """Starlette's Mount's: any connection to a path under the prefix, with the scope the
        mounted app gets (its ``root_path`` the prefix, the prefix's parameters)."""
        if scope.get("type") not in ("http", "websocket"):
            return Match.NONE, {}
        path = _route_path(scope)
        template = self.template if MOUNT_PATH in self.template.names else _under(self.path)
        values = template.match(path)
        if values is None:
            return Match.NONE, {}
        remaining = "/" + values.pop(MOUNT_PATH)
        root_path = scope.get("root_path", "")
        return Match.FULL, {
            "path_params": {**scope.get("path_params", {}), **values},
            "app_root_path": scope.get("app_root_path", root_path),
            "root_path": root_path + path[: len(path) - len(remaining)],
            "endpoint": self.app,
        }


@functools.cache
def _under(prefix: str) -> PathTemplate:
    """The template of every path under a mount's ``prefix`` (``/``: every path)."""
    return PathTemplate.parse(f"{prefix.rstrip('/')}/{{{MOUNT_PATH}:path}}")


def _route_path(scope: Mapping[str, Any]) -> str:
    """The path a route matches in ``scope``: its path under its ``root_path`` (Starlette's
    ``get_route_path``)."""
    return under_root(scope.get("path", ""), scope.get("root_path", ""))


def _mount_by_hand(
    path: str,
    app: Any = None,
    routes: Sequence[BaseRoute] | None = None,
    name: str | None = None,
    *,
    middleware: Sequence[Any] | None = None,
    max_body_size: int | None = None,
) -> tuple[PathTemplate, frozenset[str], MountEndpoint]:
    if (app is None) == (routes is None):
        raise TypeError(f"Mount({path!r}) takes an app or routes, one of them")
    check_body_size(max_body_size, f"Mount({path!r})")
    if app is None or middleware or max_body_size is not None:
        assert Mount.app_of_routes is not None, "hasten.app sets it when it is imported"
        app = Mount.app_of_routes(routes or [Mount("/", app=app)], middleware or (), max_body_size)
    methods: frozenset[str] = (
        frozenset(app.methods) if is_native(app) else ASGI_METHODS | {WEBSOCKET}
    )
    return PathTemplate.parse(path), methods, MountEndpoint(app, name)


# A custom route handler's result is its Response.
_AS_IS = Renderer(200).render
