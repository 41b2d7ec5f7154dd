"""The OpenAPI document of a set of routes: one model (3.1), rendered as 3.1 or 3.0."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

from hasten._params.descriptions import unwrap
from hasten._serve.routes import Route
from hasten.openapi.operations import openapi_path, operation, security, unique_id_at
from hasten.openapi.schemas import SchemaHook, Schemas
from hasten.openapi.v30 import openapi_30
from hasten.openapi.webhooks import Webhooks

if TYPE_CHECKING:
    from hasten._serve.routes import BaseRoute
    from hasten.app import Starlette

__all__ = ["app_openapi", "get_openapi"]

# The order Swagger UI and FastAPI list an operation's methods in.
_METHOD_ORDER = ("GET", "PUT", "POST", "DELETE", "OPTIONS", "HEAD", "PATCH", "TRACE")
_DOCUMENTED = frozenset(_METHOD_ORDER)


def get_openapi(
    *,
    title: str,
    version: str,
    routes: Iterable[BaseRoute],
    openapi_version: str = "3.1.0",
    summary: str | None = None,
    description: str | None = None,
    servers: Sequence[dict[str, Any]] | None = None,
    tags: Sequence[dict[str, Any]] | None = None,
    terms_of_service: str | None = None,
    contact: dict[str, Any] | None = None,
    license_info: dict[str, Any] | None = None,
    external_docs: dict[str, Any] | None = None,
    schema_hook: SchemaHook | None = None,
    separate_input_output_schemas: bool = True,
    generate_unique_id_function: Callable[[Route], str] | None = None,
    webhooks: Webhooks | Sequence[BaseRoute] | None = None,
) -> dict[str, Any]:
    """The OpenAPI document of ``routes``, as FastAPI's function of the same name builds it.

    ``openapi_version`` 3.0.x renders it for client generators that do not read 3.1.
    ``schema_hook`` gives the JSON Schema of a class msgspec does not know.
    ``separate_input_output_schemas=False`` documents a model as read, also where it is sent;
    ``generate_unique_id_function(route)`` names operations (FastAPI's by default).
    ``webhooks`` (``app.webhooks``, or routes) are documented under ``webhooks``, by name.
    ``external_docs``: the document's External Documentation Object (``externalDocs``).
    """
    info: dict[str, Any] = {"title": title, "version": version}
    given = (
        ("summary", summary),
        ("description", description),
        ("termsOfService", terms_of_service),
        ("contact", contact),
        ("license", license_info),
    )
    info.update((key, value) for key, value in given if value is not None)
    document: dict[str, Any] = {"openapi": "3.1.0", "info": info}
    if servers:
        document["servers"] = list(servers)
    schemas = Schemas(schema_hook, separate_input_output_schemas)
    schemes: dict[str, dict[str, Any]] = {}
    at = [(openapi_path(route.template), route) for route in routes]
    document["paths"] = _paths(at, schemas, schemes, generate_unique_id_function)
    if hooks := _named(webhooks):
        document["webhooks"] = _paths(hooks, schemas, schemes, generate_unique_id_function)
    components: dict[str, Any] = {}
    if found := schemas.resolve():
        components["schemas"] = found
    if schemes:
        components["securitySchemes"] = dict(sorted(schemes.items()))
    if components:
        document["components"] = components
    if tags:
        document["tags"] = list(tags)
    if external_docs:
        document["externalDocs"] = external_docs
    document = _without_nulls(document)
    if openapi_version.startswith("3.0."):
        return openapi_30(document, openapi_version)
    document["openapi"] = openapi_version
    return document


def app_openapi(app: Starlette, openapi_version: str | None = None) -> dict[str, Any]:
    """``app``'s document, from its routes and settings (in ``openapi_version``, if given,
    instead of the app's)."""
    settings = app.settings
    return get_openapi(
        title=settings.title,
        version=settings.version,
        routes=app.routes,
        openapi_version=openapi_version or settings.openapi_version,
        summary=settings.summary,
        description=settings.description,
        servers=settings.servers,
        tags=settings.openapi_tags,
        terms_of_service=settings.terms_of_service,
        contact=settings.contact,
        license_info=settings.license_info,
        external_docs=settings.openapi_external_docs,
        separate_input_output_schemas=settings.separate_input_output_schemas,
        webhooks=app.webhooks,
    )


def _named(webhooks: Webhooks | Sequence[BaseRoute] | None) -> list[tuple[str, BaseRoute]]:
    if isinstance(webhooks, Webhooks):
        return webhooks.named()
    return [(route.path, route) for route in webhooks or ()]


def _paths(
    routes: Iterable[tuple[str, BaseRoute]],
    schemas: Schemas,
    schemes: dict[str, dict[str, Any]],
    unique_id_of: Callable[[Route], str] | None,
) -> dict[str, Any]:
    """The Path Item Objects of ``routes``, each by where it is documented."""
    paths: dict[str, dict[str, Any]] = {}
    operation_ids: set[str] = set()
    for path, route in routes:
        # A WebSocket route has no HTTP operation, and a mounted app documents itself.
        if not isinstance(route, Route) or not route.compiled.options.include_in_schema:
            continue
        # OpenAPI 3.1 has a place for these eight methods only: an operation of another
        # (QUERY) is served but not documented, so that the document stays valid.
        documented = sorted(route.methods & _DOCUMENTED, key=_METHOD_ORDER.index)
        if not documented:
            continue
        endpoint = route.compiled
        requirements = security(route)
        for name, scheme, _ in requirements:
            schemes[name] = scheme
        item = paths.setdefault(path, {})
        for method in documented:
            # /x/{a:int} and /x/{a}, or one path twice: OpenAPI holds one operation per path
            # and method, the last route's (FastAPI's; the first serves the requests).
            # The route's (given on it, its routers or the app), else the document's.
            name_of = route.compiled.options.generate_unique_id_function or unique_id_of
            unique_id = unique_id_at(route, path, method) if name_of is None else name_of(route)
            found = operation(route, method, schemas, unique_id)
            found["operationId"] = _unique(found["operationId"], operation_ids, route)
            if requirements:
                found["security"] = [{name: scopes} for name, _, scopes in requirements]
            if endpoint.options.callbacks:
                found["callbacks"] = _callbacks(endpoint.options.callbacks, schemas, schemes)
            item[method.lower()] = found
    return paths


def _callbacks(
    callbacks: Iterable[Any], schemas: Schemas, schemes: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """An operation's Callback Objects: the requests it makes the API send, each route of a
    callbacks router by its name, then its path (``{$callback_url}/...``), as FastAPI's."""
    found: dict[str, dict[str, Any]] = {}
    for route in callbacks:
        documented = _paths([(openapi_path(route.template), route)], schemas, schemes, None)
        found.setdefault(route.name, {}).update(documented)
    return found


def _without_nulls(node: Any) -> Any:
    """``node`` without a member whose value is null, anywhere: FastAPI writes its document so
    (a ``default`` of None is not said, nor an example's null member)."""
    if isinstance(node, dict):
        return {key: _without_nulls(value) for key, value in node.items() if value is not None}
    if isinstance(node, list):
        return [_without_nulls(item) for item in node]
    return node


def _unique(operation_id: str, taken: set[str], route: Route) -> str:
    """``operation_id``, numbered if another operation has it already (a client generator
    needs each once), with FastAPI's warning that it was given twice."""
    candidate, count = operation_id, 1
    while candidate in taken:
        count += 1
        candidate = f"{operation_id}_{count}"
    if candidate != operation_id:
        where = getattr(unwrap(route.compiled.func), "__code__", None)
        at = f" at {where.co_filename}" if where is not None else ""
        warnings.warn(
            f"Duplicate Operation ID {operation_id} for function {route.name}{at}: "
            f"documented as {candidate}",
            stacklevel=1,
        )
    taken.add(candidate)
    return candidate
