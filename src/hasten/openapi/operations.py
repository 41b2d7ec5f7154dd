"""One route's OpenAPI operations: parameters, request body, responses, from its description.

Each piece is a small function of the endpoint, so that what other parts of hasten add (the
parameters dependencies take, form bodies, response models, security schemes) plugs in where
that piece is read: ``request_parameters``, ``request_body``, ``response_type`` and
``security``.
"""

from __future__ import annotations

import contextlib
import http
import inspect
import re
import types
import typing
from collections.abc import Mapping
from typing import Any

import msgspec

from ..endpoints import Endpoint
from ..params import MISSING, Parameter, unwrap
from ..paths import PathTemplate
from ..responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    declared_media_type,
)
from ..wire import allows_body
from .schemas import Schemas

__all__ = [
    "HTTPError",
    "HTTPValidationError",
    "SecurityRequirement",
    "ValidationError",
    "openapi_path",
    "operation",
    "request_body",
    "request_parameters",
    "response_type",
    "security",
]

# (name in components.securitySchemes, the Security Scheme Object, the scopes required)
SecurityRequirement = tuple[str, dict[str, Any], list[str]]

_JSON = "application/json"
_NON_WORD = re.compile(r"\W")
_DOCUMENTED_SOURCES = ("path", "query", "header", "cookie")
_RESPONSE_MEDIA = {
    JSONResponse: (_JSON, {}),
    HTMLResponse: ("text/html", {"type": "string"}),
    PlainTextResponse: ("text/plain", {"type": "string"}),
}


class ValidationError(msgspec.Struct):
    """One value that failed: where it was (loc), why (msg) and what kind of failure (type)."""

    loc: list[str | int]
    msg: str
    type: str


class HTTPValidationError(msgspec.Struct):
    """A 422: every value of the request that failed."""

    detail: list[ValidationError]


class HTTPError(msgspec.Struct):
    """An error: its detail says what went wrong."""

    detail: Any


# The hooks: what the document reads from an endpoint.
def request_parameters(endpoint: Endpoint) -> tuple[Parameter, ...]:
    """Every parameter a request must carry for this endpoint: its handler's and its
    dependencies' (flattened)."""
    return endpoint.request_parameters


def response_type(endpoint: Endpoint) -> Any:
    """The type of what the handler sends: its response model, else its return annotation."""
    return endpoint.response_model


def security(endpoint: Endpoint) -> list[SecurityRequirement]:
    """The security schemes among the endpoint's dependencies, with the scopes asked."""
    return [
        (scheme.scheme_name, scheme.security_scheme(), list(scopes))
        for scheme, scopes in endpoint.security
    ]


def request_body(parameters: tuple[Parameter, ...], schemas: Schemas) -> dict[str, Any] | None:
    """The Request Body Object: the JSON body, or one object of its embedded members, or a
    form (multipart when it has files)."""
    forms = [item for item in parameters if item.source in ("form", "file") and _documented(item)]
    if forms:
        return _form_body(forms, schemas)
    bodies = [item for item in parameters if item.source == "body" and _documented(item)]
    if not bodies:
        return None
    if len(bodies) == 1 and not bodies[0].embed:
        (body,) = bodies
        schema, required = _schema(body, schemas), body.required
    else:
        schema = {
            "type": "object",
            "properties": {item.alias: _schema(item, schemas) for item in bodies},
        }
        names = [item.alias for item in bodies if item.required]
        if names:
            schema["required"] = names
        required = True  # an embedded body is read as one object, which must be there
    result: dict[str, Any] = {"content": {_JSON: {"schema": schema}}, "required": required}
    whole = len(bodies) == 1 and not bodies[0].embed
    if whole and (description := _description(bodies[0])):
        result["description"] = description
    return result


_BINARY = {"type": "string", "format": "binary"}


def _form_body(forms: list[Parameter], schemas: Schemas) -> dict[str, Any]:
    """A form body: its fields as one object (a form model is that object itself)."""
    files = any(item.source == "file" for item in forms)
    media = "multipart/form-data" if files else "application/x-www-form-urlencoded"
    if len(forms) == 1 and forms[0].source == "form" and forms[0].shape == "structured":
        return {"content": {media: {"schema": _schema(forms[0], schemas)}}, "required": True}
    properties: dict[str, Any] = {}
    for item in forms:
        if item.source == "file":
            many = typing.get_origin(item.annotation) is list or any(
                typing.get_origin(arg) is list for arg in typing.get_args(item.annotation)
            )
            properties[item.alias] = {"type": "array", "items": _BINARY} if many else _BINARY
        else:
            properties[item.alias] = _schema(item, schemas)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    required = [item.alias for item in forms if item.required]
    if required:
        schema["required"] = required
    return {"content": {media: {"schema": schema}}, "required": bool(required)}


# The operation.
def operation(
    endpoint: Endpoint,
    template: PathTemplate,
    method: str,
    tags: tuple[str, ...],
    schemas: Schemas,
) -> dict[str, Any]:
    """The Operation Object for ``method`` on one route."""
    options = endpoint.options
    summary, description = _docstring(endpoint)
    result: dict[str, Any] = {}
    if tags or options.tags:
        result["tags"] = [*tags, *options.tags]
    result["summary"] = options.summary or summary
    if options.description or description:
        result["description"] = options.description or description
    result["operationId"] = options.operation_id or _operation_id(endpoint, template, method)
    parameters = request_parameters(endpoint)
    documented = _parameters(parameters, template, schemas)
    if documented:
        result["parameters"] = documented
    body = request_body(parameters, schemas)
    if body is not None:
        result["requestBody"] = body
    result["responses"] = _responses(endpoint, parameters, body is not None, schemas)
    if options.deprecated:
        result["deprecated"] = True
    if options.openapi_extra:
        _merge(result, options.openapi_extra)
    return result


def openapi_path(template: PathTemplate) -> str:
    """``/typed/{n:int}`` as OpenAPI writes it: ``/typed/{n}``."""
    return "/" + "/".join(
        segment if isinstance(segment, str) else f"{{{segment.name}}}"
        for segment in template.segments
    )


def _docstring(endpoint: Endpoint) -> tuple[str, str]:
    """Summary (the docstring's first paragraph, else the name) and description (the rest,
    up to a form feed, as FastAPI cuts it)."""
    doc = inspect.getdoc(unwrap(endpoint.func)) or ""
    first, _, rest = doc.partition("\n\n")
    summary = " ".join(first.split())
    if not summary:
        summary = _function_name(endpoint).replace("_", " ").strip().title()
    return summary, rest.split("\f")[0].strip()


def _function_name(endpoint: Endpoint) -> str:
    return endpoint.name.rsplit(".", 1)[-1]


def _operation_id(endpoint: Endpoint, template: PathTemplate, method: str) -> str:
    """FastAPI's: function name, path and method, non-word characters as ``_``."""
    raw = f"{_function_name(endpoint)}{openapi_path(template)}"
    return f"{_NON_WORD.sub('_', raw)}_{method.lower()}"


def _documented(parameter: Parameter) -> bool:
    return parameter.marker is None or parameter.marker.include_in_schema


def _parameters(
    parameters: tuple[Parameter, ...], template: PathTemplate, schemas: Schemas
) -> list[dict[str, Any]]:
    """Parameter Objects: the handler's, then any path parameter it does not take."""
    path_names = {param.name: param for param in template.params}
    result = []
    for parameter in parameters:
        if parameter.source not in _DOCUMENTED_SOURCES or not _documented(parameter):
            continue
        in_path = parameter.source == "path"
        name = parameter.name if in_path and parameter.name in path_names else parameter.alias
        path_names.pop(name, None)
        entry: dict[str, Any] = {"name": name, "in": parameter.source}
        if description := _description(parameter):
            entry["description"] = description
        entry["required"] = in_path or parameter.required
        if parameter.marker is not None and parameter.marker.deprecated:
            entry["deprecated"] = True
        entry["schema"] = _schema(parameter, schemas)
        result.append(entry)
    for name, param in path_names.items():
        schema = schemas.schema(param.converter.python_type)
        result.append({"name": name, "in": "path", "required": True, "schema": schema})
    return result


def _description(parameter: Parameter) -> str | None:
    for meta in parameter.constraints:
        if meta.description:
            return meta.description
    return None


def _schema(parameter: Parameter, schemas: Schemas) -> dict[str, Any]:
    schema = schemas.schema(parameter.validated_type)
    default = parameter.default
    if default is not MISSING and default is not None:
        # A default JSON cannot write is left undocumented.
        with contextlib.suppress(TypeError):
            schema["default"] = msgspec.to_builtins(default, str_keys=True)
    if parameter.marker is not None and parameter.marker.deprecated:
        schema["deprecated"] = True
    return schema


# Responses.
def _responses(
    endpoint: Endpoint, parameters: tuple[Parameter, ...], has_body: bool, schemas: Schemas
) -> dict[str, Any]:
    options = endpoint.options
    status = str(options.status)
    success: dict[str, Any] = {"description": options.response_description}
    if endpoint.stream_item is not None or options.response_class is not None:
        status, content = _class_content(endpoint, schemas)
    else:
        content = _content(response_type(endpoint), options.status, schemas)
    if content:
        success["content"] = content
    result: dict[str, Any] = {status: success}
    for code, declared in options.responses.items():
        documented = _merge(result.get(str(code), {}), _declared(declared, schemas))
        documented.setdefault("description", _phrase(str(code)))
        result[str(code)] = documented
    if has_body or any(item.source in _DOCUMENTED_SOURCES for item in parameters):
        result.setdefault("422", _error("Validation Error", HTTPValidationError, schemas))
    if has_body:
        result.setdefault("400", _error("Malformed JSON body", HTTPError, schemas))
        result.setdefault("413", _error("Request body too large", HTTPError, schemas))
        result.setdefault("415", _error("Not a JSON body", HTTPError, schemas))
    if options.max_concurrency is not None:
        result.setdefault("503", _error("Too many requests in progress", HTTPError, schemas))
    if options.timeout is not None:
        result.setdefault("504", _error("The handler timed out", HTTPError, schemas))
    return result


def _error(description: str, model: type, schemas: Schemas) -> dict[str, Any]:
    return {"description": description, "content": {_JSON: {"schema": schemas.schema(model)}}}


def _declared(declared: Mapping[str, Any], schemas: Schemas) -> dict[str, Any]:
    """A ``responses=`` entry as FastAPI takes it: a Response Object, ``model`` for its JSON."""
    result = {key: value for key, value in declared.items() if key != "model"}
    if "model" in declared:
        content = {_JSON: {"schema": schemas.schema(declared["model"])}}
        result["content"] = _merge(content, result.get("content", {}))
    return result


def _phrase(code: str) -> str:
    try:
        return http.HTTPStatus(int(code)).phrase
    except ValueError:
        return "Response"


def _content(returns: Any, status: int, schemas: Schemas) -> dict[str, Any]:
    """Media types and schemas of a handler's result, as its renderer writes it."""
    if not allows_body(status):
        return {}
    members = (
        typing.get_args(returns)
        if typing.get_origin(returns) in (typing.Union, types.UnionType)
        else (returns,)
    )
    content: dict[str, Any] = {}
    as_json = []
    for member in members:
        if member is str:
            content["text/plain"] = {"schema": {"type": "string"}}
        elif member is bytes:
            binary = {"type": "string", "format": "binary"}
            content["application/octet-stream"] = {"schema": binary}
        elif isinstance(member, type) and issubclass(member, Response):
            media = _RESPONSE_MEDIA.get(member)
            if media is not None:
                content[media[0]] = {"schema": dict(media[1])}
        else:
            as_json.append(member)
    if as_json:
        if Any in as_json:
            schema: dict[str, Any] = {}
        else:
            whole = as_json[0] if len(as_json) == 1 else typing.Union[tuple(as_json)]  # noqa: UP007
            schema = schemas.schema(whole)
        content[_JSON] = {"schema": schema}
    return content


def _class_content(endpoint: Endpoint, schemas: Schemas) -> tuple[str, dict[str, Any]]:
    """The status and content of a route with a ``response_class`` or a generator handler,
    as FastAPI documents them: JSON Lines items, else the class's media type (a string, or
    for a JSON class the response model's schema)."""
    options = endpoint.options
    response_class = options.response_class
    status = options.status
    if (
        status == 200
        and response_class is not None
        and issubclass(response_class, RedirectResponse)
    ):
        status = 307  # the class's own default, which the route does not override
    if not allows_body(status):
        return str(status), {}
    returns = response_type(endpoint)
    model = {} if returns is Any else schemas.schema(returns)
    if response_class is None:  # a generator handler, sending JSON Lines
        return str(status), {"application/jsonl": {"itemSchema": model}}
    media_type = declared_media_type(response_class)
    if media_type is None:
        return str(status), {}
    schema = model if issubclass(response_class, JSONResponse) else {"type": "string"}
    return str(status), {media_type: {"schema": schema}}


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``extra`` merged into ``base`` (in place), dictionaries key by key."""
    for key, value in extra.items():
        current = base.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            _merge(current, value)
        else:
            base[key] = value
    return base
