"""Route registration: ``Router`` and the decorators ``get``, ``post``, ... ``route``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from .endpoints import Endpoint
from .matcher import CompiledRoute
from .paths import PathTemplate

__all__ = ["Route", "Router"]

F = TypeVar("F", bound=Callable[..., Any])
HTTP_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE"})


@dataclass(frozen=True, slots=True)
class Route:
    """A registered route: its full path, methods and compiled endpoint."""

    path: str
    methods: frozenset[str]
    endpoint: Endpoint

    @property
    def template(self) -> PathTemplate:
        return PathTemplate.parse(self.path)

    def with_prefix(self, prefix: str) -> Route:
        return Route(prefix + self.path, self.methods, self.endpoint)

    def compile(self) -> CompiledRoute:
        label = f"{'|'.join(sorted(self.methods))} {self.path} ({self.endpoint.name})"
        return CompiledRoute(self.template, self.methods, self.endpoint.handle, label)


class Router:
    """A group of routes under a common prefix, included into an App with ``app.include``."""

    def __init__(self, prefix: str = "") -> None:
        if prefix and (not prefix.startswith("/") or prefix.endswith("/")):
            raise ValueError(f"Router prefix {prefix!r} must start with '/' and not end with it")
        if "{" in prefix:
            raise ValueError(f"Router prefix {prefix!r} cannot hold path parameters")
        self.prefix = prefix
        self._routes: list[Route] = []
        self._children: list[tuple[str, Router]] = []
        self._frozen = False

    def route(
        self, path: str, methods: Iterable[str] = ("GET",), *, status: int = 200
    ) -> Callable[[F], F]:
        """Register the decorated function for ``methods`` on ``path``."""

        def register(func: F) -> F:
            self.add_route(path, func, methods, status=status)
            return func

        return register

    def add_route(
        self,
        path: str,
        func: Callable[..., Any],
        methods: Iterable[str] = ("GET",),
        *,
        status: int = 200,
    ) -> Route:
        """Register ``func``; its signature is analysed now, so mistakes surface at import."""
        self._check_open(f"add the route {path!r}")
        wanted = frozenset(method.upper() for method in methods)
        unknown = wanted - HTTP_METHODS
        if unknown or not wanted:
            raise ValueError(f"Route {path!r}: unknown HTTP method(s) {sorted(unknown) or '[]'}")
        template = PathTemplate.parse(path)
        route = Route(path, wanted, Endpoint(func, template, status))
        self._routes.append(route)
        return route

    def get(self, path: str, *, status: int = 200) -> Callable[[F], F]:
        return self.route(path, ("GET",), status=status)

    def post(self, path: str, *, status: int = 200) -> Callable[[F], F]:
        return self.route(path, ("POST",), status=status)

    def put(self, path: str, *, status: int = 200) -> Callable[[F], F]:
        return self.route(path, ("PUT",), status=status)

    def patch(self, path: str, *, status: int = 200) -> Callable[[F], F]:
        return self.route(path, ("PATCH",), status=status)

    def delete(self, path: str, *, status: int = 200) -> Callable[[F], F]:
        return self.route(path, ("DELETE",), status=status)

    def head(self, path: str, *, status: int = 200) -> Callable[[F], F]:
        return self.route(path, ("HEAD",), status=status)

    def options(self, path: str, *, status: int = 200) -> Callable[[F], F]:
        return self.route(path, ("OPTIONS",), status=status)

    def include(self, router: Router, prefix: str = "") -> None:
        """Serve ``router``'s routes here, under ``prefix`` + the router's own prefix."""
        self._check_open("include a router")
        if router is self:
            raise ValueError("A router cannot include itself")
        self._children.append((prefix, router))

    @property
    def routes(self) -> list[Route]:
        """Every route, included routers' too, with full paths."""
        collected = [route.with_prefix(self.prefix) for route in self._routes]
        for prefix, child in self._children:
            collected.extend(route.with_prefix(self.prefix + prefix) for route in child.routes)
        return collected

    def _freeze(self) -> None:
        self._frozen = True
        for _, child in self._children:
            child._freeze()

    def _check_open(self, action: str) -> None:
        if self._frozen:
            raise RuntimeError(
                f"Cannot {action}: the app has started and its routes are compiled. "
                "Register routes before the app starts."
            )
