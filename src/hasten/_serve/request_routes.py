"""Starlette's routes: an endpoint that takes the request (or the WebSocket) as it is.

``RequestRoute(path, endpoint)`` is Starlette's ``Route``: ``endpoint(request)`` returns a
Response, sync (run on the thread pool) or async; or the endpoint is an ASGI app (an
``HTTPEndpoint`` class, an app object), which then gets the connection for any method.
``WebSocketSessionRoute(path, endpoint)`` is Starlette's ``WebSocketRoute``:
``await endpoint(websocket)``. Neither is in the OpenAPI document, as in FastAPI, where only
APIRoutes are. Each is compiled as hasten's own routes are: the endpoint is wrapped once, at
registration, in a handler whose one parameter is the request.
"""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hasten._http.paths import PathTemplate
from hasten._http.requests import Request
from hasten._http.websockets import WebSocket
from hasten._params.endpoints import Endpoint, RouteOptions
from hasten._serve.mounts import MountResponse, given_path_params, serve_websocket
from hasten._serve.registration import registering
from hasten._serve.routes import ASGI_METHODS, HTTP_METHODS, WEBSOCKET, BaseRoute, Mount
from hasten._settings import check_body_size

__all__ = [
    "RequestRoute",
    "WebSocketSessionRoute",
    "endpoint_name",
    "request_route_parts",
    "websocket_route_parts",
]

Parts = tuple[PathTemplate, frozenset[str], Endpoint, Any]


@dataclass(frozen=True, slots=True)
class _GivenEndpointRoute(BaseRoute):
    """A route that keeps its endpoint as given: made by hand from ``(path, endpoint, ...)``
    through ``_parts``, or by a router from its parts."""

    # The endpoint as given (``compiled`` serves it through a handler of hasten's shape).
    original: Any = field(default=None, compare=False, repr=False)
    # Starlette's ``include_in_schema``: whether ``starlette.schemas`` lists the route (no
    # route made so is in hasten's OpenAPI).
    in_starlette_schema: bool = field(default=True, compare=False, repr=False)

    def __init__(
        self, *args: Any, original: Any = None, in_starlette_schema: bool = True, **kwargs: Any
    ) -> None:
        in_schema = in_starlette_schema
        if (args and isinstance(args[0], str)) or "path" in kwargs:
            in_schema = kwargs.get("include_in_schema", True)
            *args, original = self._parts(*args, **kwargs)  # type: ignore[assignment]
            kwargs = {}
        BaseRoute.__init__(self, *args, **kwargs)
        # Fields BaseRoute's __init__ lacks.
        object.__setattr__(self, "original", original)
        object.__setattr__(self, "in_starlette_schema", in_schema)

    @staticmethod
    def _parts(*args: Any, **kwargs: Any) -> Parts:
        raise NotImplementedError

    @property
    def endpoint(self) -> Any:
        """The endpoint as given (Starlette's ``route.endpoint``)."""
        return self.original


@dataclass(frozen=True, slots=True, init=False)
class RequestRoute(_GivenEndpointRoute):
    """Starlette's ``Route``: ``RequestRoute(path, endpoint, methods=None, name=None,
    include_in_schema=True)``, the endpoint given the request as it is."""

    # Under the switch, the served ``starlette.routing`` sets it: the function a route
    # calls for its endpoint, as ``starlette.routing.request_response`` hands it on where
    # code has replaced that function (sentry-sdk wraps each endpoint so), else None.
    called_for: typing.ClassVar[Callable[[Any], Any] | None] = None

    @staticmethod
    def _parts(*args: Any, **kwargs: Any) -> Parts:
        return request_route_parts(*args, **kwargs)

    def __repr__(self) -> str:
        # Starlette's: Route(path='/', name='home', methods=['GET', 'HEAD']); an ASGI app's
        # route, which answers every method itself, lists none.
        methods = [] if self.methods >= HTTP_METHODS else sorted(_with_head(self.methods))
        name = "Route" if type(self) is RequestRoute else type(self).__name__
        return f"{name}(path={self.path!r}, name={self.name!r}, methods={methods!r})"


@dataclass(frozen=True, slots=True, init=False)
class WebSocketSessionRoute(_GivenEndpointRoute):
    """Starlette's ``WebSocketRoute``: ``WebSocketSessionRoute(path, endpoint, name=None)``,
    ``await endpoint(websocket)``."""

    @staticmethod
    def _parts(*args: Any, **kwargs: Any) -> Parts:
        return websocket_route_parts(*args, **kwargs)

    def __repr__(self) -> str:
        name = "WebSocketRoute" if type(self) is WebSocketSessionRoute else type(self).__name__
        return f"{name}(path={self.path!r}, name={self.name!r})"


def request_route_parts(
    path: str,
    endpoint: Any,
    *,
    methods: Iterable[str] | None = None,
    name: str | None = None,
    include_in_schema: bool = True,
    middleware: Sequence[Any] | None = None,
    max_body_size: int | None = None,
    prefix: str = "",
) -> Parts:
    """A RequestRoute's parts: its path, methods, compiled handler and endpoint."""
    template = PathTemplate.parse(path)
    function = _is_function(endpoint)
    # A function serves the methods given (GET by default); an ASGI app answers every method
    # itself (an HTTPEndpoint says 405).
    if function:
        wanted = frozenset(method.upper() for method in methods or ("GET",))
    else:
        wanted = frozenset(m.upper() for m in methods) if methods else ASGI_METHODS
    if middleware:  # Starlette's route middleware: the route served by an app that has it
        inner = RequestRoute(path, endpoint, methods=methods, name=name)
        handler = _serving(_app_of([inner], middleware))
    elif function:
        called_for = RequestRoute.called_for
        called = None if called_for is None else called_for(endpoint)
        handler = _named_after(_calling(called or endpoint), endpoint)
    else:
        handler = _serving(endpoint)
    options = RouteOptions(
        name=name or endpoint_name(endpoint),
        include_in_schema=False,
        max_body_size=check_body_size(max_body_size, f"Route({path!r})"),
    )
    del include_in_schema  # Starlette's schemas only: no route of Starlette's is in OpenAPI
    with registering(endpoint, f"{'|'.join(sorted(wanted))} {path}"):
        compiled = Endpoint(handler, template.with_prefix(prefix), options)
    return template, wanted, compiled, endpoint


def websocket_route_parts(
    path: str,
    endpoint: Any,
    *,
    name: str | None = None,
    middleware: Sequence[Any] | None = None,
    prefix: str = "",
) -> Parts:
    """A WebSocketSessionRoute's parts."""
    template = PathTemplate.parse(path)
    # A WebSocketEndpoint class serves a connection hasten has; another ASGI app is given
    # the connection over ASGI, as is an app that has the route's middleware.
    serve_session = getattr(endpoint, "serve_session", None)
    served = None  # the ASGI app the connection is given to, where it is given to one
    if middleware:
        served = _app_of([WebSocketSessionRoute(path, endpoint, name=name)], middleware)
    elif serve_session is None and not _is_function(endpoint):
        served = endpoint
    if served is not None:
        asgi_app = served

        async def serve_session(websocket: WebSocket) -> None:
            app = given_path_params(asgi_app, websocket)
            await serve_websocket(websocket, app, websocket.root_path)

    async def session(websocket: WebSocket) -> None:
        await (endpoint(websocket) if serve_session is None else serve_session(websocket))

    _named_after(session, endpoint)
    session.serves = served  # type: ignore[attr-defined]  # as _serving's handler
    options = RouteOptions(name=name or endpoint_name(endpoint), include_in_schema=False)
    with registering(endpoint, f"WEBSOCKET {path}"):
        compiled = Endpoint(session, template.with_prefix(prefix), options)
    return template, frozenset({WEBSOCKET}), compiled, endpoint


def _with_head(methods: frozenset[str]) -> frozenset[str]:
    return methods | {"HEAD"} if "GET" in methods else methods


def _app_of(routes: Sequence[BaseRoute], middleware: Sequence[Any]) -> Any:
    assert Mount.app_of_routes is not None, "hasten.app sets it when it is imported"
    return Mount.app_of_routes(routes, middleware, None)


def endpoint_name(endpoint: Any) -> str:
    """What Starlette names a route by its endpoint: a function's (or class's) name, else
    its class's."""
    return str(getattr(endpoint, "__name__", type(endpoint).__name__))


def _is_function(endpoint: Any) -> bool:
    """Whether Starlette calls ``endpoint(request)``; else it serves it as an ASGI app."""
    while isinstance(endpoint, functools.partial):
        endpoint = endpoint.func
    return inspect.isfunction(endpoint) or inspect.ismethod(endpoint)


def _is_async(endpoint: Any) -> bool:
    while isinstance(endpoint, functools.partial):
        endpoint = endpoint.func
    return inspect.iscoroutinefunction(endpoint)


def _calling(endpoint: Callable[[Request], Any]) -> Callable[..., Any]:
    """A handler that calls ``endpoint(request)``: async on the loop, sync on a thread."""
    handler: Callable[..., Any]
    if _is_async(endpoint):

        async def handler(request: Request) -> Any:
            return await endpoint(request)

    else:

        def handler(request: Request) -> Any:
            return endpoint(request)

    return _named_after(handler, endpoint)


def _serving(app: Any) -> Callable[..., Any]:
    """A handler whose response is ``app`` serving the connection (ASGI)."""

    async def handler(request: Request) -> Any:
        return MountResponse(given_path_params(app, request), "")

    handler.serves = app  # type: ignore[attr-defined]  # started and stopped with the app's
    return _named_after(handler, app)


def _named_after(handler: Callable[..., Any], endpoint: Any) -> Callable[..., Any]:
    # Not functools.wraps: its __wrapped__ would have the signature read from the endpoint.
    handler.__name__ = endpoint_name(endpoint)
    handler.__qualname__ = getattr(endpoint, "__qualname__", handler.__name__)
    handler.__module__ = getattr(endpoint, "__module__", handler.__module__)
    return handler
