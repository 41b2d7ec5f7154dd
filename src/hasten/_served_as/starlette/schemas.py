"""``starlette.schemas``, served by hasten: an OpenAPI document made from the YAML in the
docstrings of an app's routes, as Starlette makes it (hasten's own OpenAPI, made from types,
is ``app.openapi()``).

``SchemaGenerator({"openapi": "3.2.0", "info": {...}}).get_schema(routes=app.routes)`` lists,
under each route's path, each method whose endpoint's docstring holds a YAML mapping (what
follows its last ``---``, or the whole docstring); ``OpenAPIResponse(request=request)`` sends
it as YAML. PyYAML reads and writes the YAML, as in Starlette.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

from hasten._http.connection import MOUNT_PATH
from hasten._serve.routes import WEBSOCKET, AppRoute, BaseRoute
from hasten.requests import Request
from hasten.responses import Response

__all__ = ["BaseSchemaGenerator", "EndpointInfo", "OpenAPIResponse", "SchemaGenerator"]

# An HTTPEndpoint's methods a schema lists, in Starlette's order.
_ENDPOINT_METHODS = ("get", "post", "put", "patch", "delete", "options", "query")


class OpenAPIResponse(Response):
    """A schema (a dict) sent as YAML, ``application/vnd.oai.openapi``."""

    media_type = "application/vnd.oai.openapi"

    def render(self, content: Any) -> bytes:
        import yaml  # type: ignore[import-untyped]  # PyYAML: only a schema's app needs it

        assert isinstance(content, dict), "The schema passed to OpenAPIResponse is a dict."
        dumped: str = yaml.dump(content, default_flow_style=False)
        return dumped.encode("utf-8")


class EndpointInfo(NamedTuple):
    """One operation of the schema: its path, its method (lower case) and its endpoint."""

    path: str
    http_method: str
    func: Callable[..., Any]


class BaseSchemaGenerator:
    """What a schema generator has: the operations of routes, and a docstring's YAML."""

    def get_schema(self, routes: list[BaseRoute]) -> dict[str, Any]:
        raise NotImplementedError  # pragma: no cover

    def get_endpoints(self, routes: Sequence[BaseRoute]) -> list[EndpointInfo]:
        """Each operation of ``routes`` and of the apps mounted among them (a host's, under
        their own paths), but for WebSocket routes and those left out of the schema."""
        found: list[EndpointInfo] = []
        for route in routes:
            if isinstance(route, AppRoute):
                if MOUNT_PATH not in route.template.names:  # a mount's prefix, or a host
                    # "/{id:int}" as "/{id}"; a host's, "/", as nothing before its paths
                    prefix = route.path_format.rstrip("/")
                    for inner in self.get_endpoints(route.routes):
                        found.append(inner._replace(path=prefix + inner.path))
                continue
            if WEBSOCKET in route.methods or not getattr(
                route, "in_starlette_schema", route.compiled.options.include_in_schema
            ):
                continue
            endpoint = getattr(route, "endpoint", None)
            path = route.path_format
            if inspect.isclass(endpoint):  # an HTTPEndpoint: one operation per method it has
                found.extend(
                    EndpointInfo(path, method, getattr(endpoint, method))
                    for method in _ENDPOINT_METHODS
                    if hasattr(endpoint, method)
                )
            elif endpoint is not None:
                found.extend(
                    EndpointInfo(path, method.lower(), endpoint)
                    for method in sorted(route.methods)
                    if method != "HEAD"
                )
        return found

    def parse_docstring(self, func_or_method: Callable[..., Any]) -> dict[str, Any]:
        """The YAML mapping in a docstring (after its last ``---``); ``{}`` for none."""
        import yaml

        docstring = func_or_method.__doc__
        if not docstring:
            return {}
        parsed = yaml.safe_load(docstring.split("---")[-1])
        return parsed if isinstance(parsed, dict) else {}

    def OpenAPIResponse(self, request: Request) -> Response:
        """The schema of the app serving ``request``, as YAML."""
        return OpenAPIResponse(self.get_schema(routes=request.app.routes))


class SchemaGenerator(BaseSchemaGenerator):
    """``base_schema`` (``openapi``, ``info``...) with the routes' operations as its
    ``paths``; a QUERY operation is listed from OpenAPI 3.2 on, which has it."""

    def __init__(self, base_schema: dict[str, Any]) -> None:
        self.base_schema = base_schema

    def get_schema(self, routes: list[BaseRoute]) -> dict[str, Any]:
        schema = dict(self.base_schema)
        schema.setdefault("paths", {})
        with_query = _version(str(schema.get("openapi", ""))) >= (3, 2)
        for endpoint in self.get_endpoints(routes):
            if endpoint.http_method == "query" and not with_query:
                continue
            parsed = self.parse_docstring(endpoint.func)
            if parsed:
                schema["paths"].setdefault(endpoint.path, {})[endpoint.http_method] = parsed
        return schema


def _version(text: str) -> tuple[int, ...]:
    """``"3.2.0"`` as ``(3, 2, 0)``, as far as it is numbers."""
    parts: list[int] = []
    for part in text.split("."):
        if not part.isdigit():
            break
        parts.append(int(part))
    return tuple(parts)
