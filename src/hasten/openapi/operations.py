"""One route's OpenAPI operations: parameters, request body, responses, from its description.

Each piece is a small function of the endpoint, so that what other parts of hasten add (the
parameters dependencies take, form bodies, response models, security schemes) plugs in where
that piece is read: ``request_parameters``, ``request_body``, ``response_type`` and
``security``.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import http.client
import inspect
import re
import types
import typing
from collections.abc import Mapping
from typing import Any

import msgspec

from hasten._http.paths import PathTemplate
from hasten._http.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    declared_media_type,
)
from hasten._http.sse import EventSourceResponse, ServerSentEvent
from hasten._http.wire import allows_body
from hasten._params.descriptions import Parameter, unwrap
from hasten._params.endpoints import Endpoint
from hasten._params.markers import MISSING
from hasten._params.models import to_builtins
from hasten._params.shapes import is_file_type
from hasten._serve.routes import Route
from hasten.openapi.form_models import form_model_schemas, is_form_model, may_be_absent
from hasten.openapi.meta import constraints_of, said_by
from hasten.openapi.model_fields import documented_fields, model_of
from hasten.openapi.schemas import Schemas

__all__ = [
    "HTTP_VALIDATION_ERROR",
    "VALIDATION_ERROR",
    "HTTPError",
    "SecurityRequirement",
    "generate_unique_id",
    "openapi_path",
    "operation",
    "request_body",
    "request_parameters",
    "response_type",
    "security",
    "unique_id_at",
]

# (name in components.securitySchemes, the Security Scheme Object, the scopes required)
SecurityRequirement = tuple[str, dict[str, Any], list[str]]

_JSON = "application/json"
_NON_WORD = re.compile(r"\W")
_DOCUMENTED_SOURCES = ("path", "query", "header", "cookie")
# The Response classes whose media type is theirs whatever they hold; any other (a redirect,
# a stream, a file) is documented as FastAPI documents its default class: JSON of any kind.
_RESPONSE_MEDIA = {
    JSONResponse: (_JSON, {}),
    HTMLResponse: ("text/html", {"type": "string"}),
    PlainTextResponse: ("text/plain", {"type": "string"}),
    EventSourceResponse: ("text/event-stream", {}),
}


# The 422 body as FastAPI documents it (errors.py's RequestValidationError writes it).
VALIDATION_ERROR: dict[str, Any] = {
    "properties": {
        "loc": {
            "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
            "type": "array",
            "title": "Location",
        },
        "msg": {"type": "string", "title": "Message"},
        "type": {"type": "string", "title": "Error Type"},
        "input": {"title": "Input"},
        "ctx": {"type": "object", "title": "Context"},
    },
    "type": "object",
    "required": ["loc", "msg", "type"],
    "title": "ValidationError",
}
HTTP_VALIDATION_ERROR: dict[str, Any] = {
    "properties": {
        "detail": {
            "items": {"$ref": "#/components/schemas/ValidationError"},
            "type": "array",
            "title": "Detail",
        }
    },
    "type": "object",
    "title": "HTTPValidationError",
}


class HTTPError(msgspec.Struct):
    """An error: its detail says what went wrong."""

    detail: Any


# The hooks: what the document reads from an endpoint.
def request_parameters(route: Route) -> tuple[Parameter, ...]:
    """Every parameter a request must carry for this route: its handler's and the
    dependencies' (flattened) of the handler, the route, its routers and the app."""
    return route.request_parameters


def response_type(endpoint: Endpoint) -> Any:
    """The type of what the handler sends: its response model, else its return annotation
    (``response_model=None``: any JSON, as FastAPI documents it)."""
    if endpoint.options.response_model is None:
        return Any
    return endpoint.response_model


def security(route: Route) -> list[SecurityRequirement]:
    """The security schemes among the route's dependencies (its routers' and the app's
    included), each once, with every scope asked of it wherever it is used (FastAPI's)."""
    found: dict[str, SecurityRequirement] = {}
    for scheme, scopes in route.security:
        name = scheme.scheme_name
        if name not in found:
            found[name] = (name, scheme.security_scheme(), [])
        asked = found[name][2]
        asked.extend(scope for scope in scopes if scope not in asked)
    return list(found.values())


def request_body(
    parameters: tuple[Parameter, ...], schemas: Schemas, unique_id: str
) -> dict[str, Any] | None:
    """The Request Body Object: the JSON body, or one object of its embedded members, or a
    form (multipart when it has files). Such an object is the component
    ``Body_{unique_id}``, as FastAPI names it."""
    forms = [item for item in parameters if item.source in ("form", "file") and _documented(item)]
    if forms:
        return _form_body(forms, schemas, unique_id)
    bodies = [item for item in parameters if item.source == "body" and _documented(item)]
    if not bodies:
        return None
    if len(bodies) == 1 and not bodies[0].embed:
        (body,) = bodies
        media = _media_type(body)
        result = _body_of(media, _schema(body, schemas), body.required)
        result["content"][media].update(_examples(body))
        if description := _description(body):
            result["description"] = description
        return result
    schema, required = _object(bodies, schemas, f"Body_{unique_id}", _schema)
    return _body_of(_agreed_media_type(bodies, _JSON), schema, required)


_MULTIPART = "multipart/form-data"
_URLENCODED = "application/x-www-form-urlencoded"


def _media_type(item: Parameter) -> str:
    """A body parameter's ``media_type=``, else its kind's: FastAPI's defaults."""
    given = item.marker.media_type if item.marker is not None else None
    if given:
        return given
    return {"file": _MULTIPART, "form": _URLENCODED}.get(item.source, _JSON)


def _agreed_media_type(members: list[Parameter], default: str) -> str:
    """The media type of a body of several members, as FastAPI decides it: the one they
    all give, else ``default``."""
    given = {_media_type(item) for item in members}
    return given.pop() if len(given) == 1 else default


# FastAPI's file field: a string of bytes (its pydantic writes no ``format: binary``).
_OCTETS = "application/octet-stream"
_BINARY = {"type": "string", "contentMediaType": _OCTETS}


def _form_body(forms: list[Parameter], schemas: Schemas, unique_id: str) -> dict[str, Any]:
    """A form body: its fields as one object (a form model is that object itself), in the
    media type FastAPI gives it: multipart with a file, else as its fields' ``media_type=``
    say (multipart if one asks for it, theirs if they agree, else urlencoded)."""
    # A lone form model (or union of them) is the body itself, unless it may be absent.
    lone = len(forms) == 1 and bool(forms[0].models) and not may_be_absent(forms[0])
    if any(item.source == "file" for item in forms):
        media = _MULTIPART
    elif lone:
        media = _media_type(forms[0])
    elif any(_media_type(item) == _MULTIPART for item in forms):
        media = _MULTIPART  # one field asks for multipart: the whole form is
    else:
        media = _agreed_media_type(forms, _URLENCODED)
    if lone:
        return _body_of(media, _schema(forms[0], schemas), True)
    # In FastAPI's order: a model's schemas, and a field a name already given documents
    # (another type read by the same name), go in allOf.
    fields: list[Parameter] = []
    all_of: list[dict[str, Any]] = []
    for item in forms:
        if item.source != "file" and is_form_model(item):
            all_of += form_model_schemas(item, schemas)
        elif any(field.alias == item.alias for field in fields):
            all_of.append({"properties": {item.alias: _form_field(item, schemas)}})
        else:
            fields.append(item)
    models = [item for item in forms if item.source != "file" and is_form_model(item)]
    schema, required = _object(fields, schemas, f"Body_{unique_id}", _form_field, all_of)
    return _body_of(media, schema, required or any(item.required for item in models))


def _form_field(item: Parameter, schemas: Schemas) -> dict[str, Any]:
    if item.source != "file" or not is_file_type(item.annotation):
        return _schema(item, schemas)  # a File() of another type is its text, as a Form()
    members = typing.get_args(item.annotation)
    many = typing.get_origin(item.annotation) is list or any(
        typing.get_origin(arg) is list for arg in members
    )
    schema: dict[str, Any] = {"type": "array", "items": dict(_BINARY)} if many else dict(_BINARY)
    if type(None) in members:
        schema = {"anyOf": [schema, {"type": "null"}]}
    schema["title"] = _title_of(item)
    for meta in item.constraints:
        schema.update(said_by(meta))
    return _with_default(schema, item.default)


def _object(
    members: list[Parameter],
    schemas: Schemas,
    name: str,
    schema_of: typing.Callable[[Parameter, Schemas], dict[str, Any]],
    all_of: list[dict[str, Any]] | None = None,
) -> tuple[dict[str, Any], bool]:
    """A reference to the component ``name``: an object of ``members`` (and of ``all_of``,
    form models); and whether the body is required (a member is)."""
    names = [item.alias for item in members if item.required]
    component: dict[str, Any] = {"type": "object", "title": name}
    if all_of:
        component["allOf"] = all_of
    if members or not all_of:
        component["properties"] = {item.alias: schema_of(item, schemas) for item in members}
    if names:
        component["required"] = names
    return schemas.component(name, component), bool(names)


def _body_of(media: str, schema: dict[str, Any], required: bool) -> dict[str, Any]:
    result: dict[str, Any] = {"content": {media: {"schema": schema}}}
    if required:  # FastAPI writes ``required`` only when it is true
        result["required"] = True
    return result


# The operation.
def operation(route: Route, method: str, schemas: Schemas, unique_id: str) -> dict[str, Any]:
    """The Operation Object for ``method`` on one route (``unique_id``: its operationId,
    unless the route gives one, and its Body_ schema's name)."""
    endpoint, template, tags = route.compiled, route.template, route.tags
    options = endpoint.options
    summary, description = _docstring(route)
    result: dict[str, Any] = {}
    if tags:
        # FastAPI's: an enum member (``tags=[Tags.items]``) is its value.
        result["tags"] = [getattr(tag, "value", tag) for tag in tags]
    result["summary"] = options.summary or summary
    if options.description or description:
        result["description"] = options.description or description
    result["operationId"] = options.operation_id or unique_id
    parameters = request_parameters(route)
    documented = _parameters(parameters, template, schemas)
    if documented:
        result["parameters"] = documented
    body = request_body(parameters, schemas, unique_id)
    if body is not None:
        result["requestBody"] = body
    result["responses"] = _responses(endpoint, parameters, body is not None, schemas, unique_id)
    if options.deprecated:
        result["deprecated"] = True
    if options.openapi_extra:
        _merge(result, options.openapi_extra)
    return result


def openapi_path(template: PathTemplate) -> str:
    """``/typed/{n:int}`` as OpenAPI writes it: ``/typed/{n}``; a callback's path
    (``{$callback_url}/...``) as it is."""
    if not template.path.startswith("/"):
        return template.path
    return "/" + "/".join(
        segment if isinstance(segment, str) else f"{{{segment.name}}}"
        for segment in template.segments
    )


def _docstring(route: Route) -> tuple[str, str]:
    """Summary (the function's name, titled) and description (the docstring, up to a form
    feed), as FastAPI writes them."""
    doc = inspect.cleandoc(unwrap(route.compiled.func).__doc__ or "")
    return route.name.replace("_", " ").title(), doc.split("\f")[0].strip()


def generate_unique_id(route: Route) -> str:
    """FastAPI's operation id: the handler's name, path and first method, non-word
    characters as ``_``."""
    return unique_id_at(route, openapi_path(route.template), min(route.methods))


def unique_id_at(route: Route, path: str, method: str) -> str:
    """FastAPI's operation id of ``method`` on ``route``, documented at ``path`` (a webhook's
    name)."""
    return f"{_NON_WORD.sub('_', route.name + path)}_{method.lower()}"


def _documented(parameter: Parameter) -> bool:
    return parameter.marker is None or parameter.marker.include_in_schema


def _parameters(
    parameters: tuple[Parameter, ...], template: PathTemplate, schemas: Schemas
) -> list[dict[str, Any]]:
    """Parameter Objects, as FastAPI lists them: by where they are (path, query, header,
    cookie), each in the order the handler's tree declares them; then any path parameter
    the handler does not take."""
    path_names = {param.name: param for param in template.params}
    result = []
    for parameter in parameters:
        if parameter.source == "path":  # documented by its parameter, or not at all
            path_names.pop(parameter.alias, None)
        if parameter.source not in _DOCUMENTED_SOURCES or not _documented(parameter):
            continue
        if model_of(parameter) is not None:
            result.extend(_model_parameters(parameter, schemas))
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
        entry.update(_examples(parameter))
        result.append(entry)
    result.sort(key=lambda entry: _DOCUMENTED_SOURCES.index(entry["in"]))
    for name, param in path_names.items():
        schema = schemas.schema(param.converter.python_type)
        result.append({"name": name, "in": "path", "required": True, "schema": schema})
    # One Parameter Object per name (two models may share one), the required one if any, as
    # FastAPI lists them.
    unique = {(entry["in"], entry["name"]): entry for entry in result}
    unique.update({(entry["in"], entry["name"]): entry for entry in result if entry["required"]})
    return list(unique.values())


def _model_parameters(parameter: Parameter, schemas: Schemas) -> list[dict[str, Any]]:
    """A parameter model's Parameter Objects: one for each of its fields."""
    result = []
    for field in documented_fields(parameter):
        entry: dict[str, Any] = {"name": field.wire, "in": parameter.source}
        if field.description:
            entry["description"] = field.description
        entry["required"] = field.required
        schema = schemas.schema(field.annotation, title=_title(field.key))
        entry["schema"] = _with_default(schema, field.default)
        result.append(entry)
    return result


def _examples(parameter: Parameter) -> dict[str, Any]:
    """Beside the schema (not in it): ``openapi_examples=``, Example Objects by name, else
    the deprecated ``example=``, as FastAPI writes them."""
    marker = parameter.marker
    if marker is None:
        return {}
    if marker.openapi_examples:
        return {"examples": marker.openapi_examples}
    if marker.example is not MISSING:
        with contextlib.suppress(TypeError, NotImplementedError):  # left out if not JSON
            return {"example": to_builtins(marker.example)}
    return {}


def _description(parameter: Parameter) -> str | None:
    for meta in parameter.constraints:
        if meta.description:
            return meta.description
    return None


def _schema(parameter: Parameter, schemas: Schemas) -> dict[str, Any]:
    said: dict[str, Any] = {}
    constraints = []
    for meta in parameter.constraints:
        said.update(said_by(meta))
        if (kept := constraints_of(meta)) is not None:
            constraints.append(kept)
    # What the parameter only says goes beside its whole schema, as FastAPI writes it.
    annotation = dataclasses.replace(parameter, constraints=tuple(constraints)).validated_type
    if parameter.untyped and not constraints:
        annotation = Any  # read as text, but FastAPI documents it as any value
    annotation = _with_discriminator(annotation, parameter)
    schema = _with_default(
        schemas.schema(annotation, title=_title_of(parameter)), parameter.default
    )
    schema.update(said)
    marker = parameter.marker
    if marker is None:
        return schema
    if isinstance(marker.pattern, re.Pattern):  # pydantic's: msgspec takes no compiled one
        schema["pattern"] = marker.pattern.pattern
    extra = marker.json_schema_extra
    if callable(extra):  # pydantic's hook: it changes the schema itself
        extra(schema)
    else:
        schema.update(extra or {})
    if marker.deprecated:
        schema["deprecated"] = True
    return schema


def _with_discriminator(annotation: Any, parameter: Parameter) -> Any:
    """A union's pydantic discriminator, as the parameter gives it, with its type: pydantic
    then writes the union as FastAPI documents it (``oneOf``, and a ``discriminator`` for one
    by field name)."""
    found = [extra for extra in parameter.metadata if type(extra).__name__ == "Discriminator"]
    if parameter.marker is not None and parameter.marker.discriminator is not None:
        from pydantic import Field

        found.append(Field(discriminator=parameter.marker.discriminator))
    return typing.Annotated[(annotation, *found)] if found else annotation


def _title_of(parameter: Parameter) -> str:
    """FastAPI's title of a parameter: of the name it is read by (its alias, or the first of
    its ``AliasChoices``; a header's name with ``_`` as ``-``, ``x_token``: "X-Token")."""
    return _title(parameter.alias)


def _title(name: str) -> str:
    """FastAPI's title of a value named ``name``: ``item_id`` is "Item Id"."""
    return name.title().replace("_", " ")


def _with_default(schema: dict[str, Any], default: Any) -> dict[str, Any]:
    if default is not MISSING and default is not None:
        # A default JSON cannot write is left undocumented.
        with contextlib.suppress(TypeError, UnicodeDecodeError):
            builtins = msgspec.to_builtins(default, str_keys=True, builtin_types=(bytes,))
            schema["default"] = _bytes_as_text(builtins)
    return schema


def _bytes_as_text(value: Any) -> Any:
    """Bytes in a default as their UTF-8 text, as pydantic writes them in FastAPI's document
    (msgspec would write base64)."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, list):
        return [_bytes_as_text(item) for item in value]
    if isinstance(value, dict):
        return {key: _bytes_as_text(item) for key, item in value.items()}
    return value


# Responses.
# The descriptions of the ranges ``responses=`` may document (FastAPI's).
_RANGES = {
    "1XX": "Information",
    "2XX": "Success",
    "3XX": "Redirection",
    "4XX": "Client Error",
    "5XX": "Server Error",
    "DEFAULT": "Default Response",
}


def _responses(
    endpoint: Endpoint,
    parameters: tuple[Parameter, ...],
    has_body: bool,
    schemas: Schemas,
    unique_id: str,
) -> dict[str, Any]:
    options = endpoint.options
    status = str(options.status)
    success: dict[str, Any] = {"description": options.response_description}
    if endpoint.stream_item is not None or options.response_class is not None:
        status, content = _class_content(endpoint, schemas, unique_id)
    else:
        title = _title(f"Response_{unique_id}")
        content = _content(response_type(endpoint), options.status, schemas, title)
    if content:
        success["content"] = content
    result: dict[str, Any] = {status: success}
    # A model of ``responses=`` is sent in the route's media type, as FastAPI documents it.
    media = declared_media_type(options.response_class or JSONResponse) or _JSON
    for code, declared in options.responses.items():
        key = _status_key(code)
        documented = result.setdefault(key, {})
        title = _title(f"Response_{code}_{unique_id}")
        given = _declared(declared, media, schemas, title)
        description = given.get("description") or documented.get("description") or _phrase(key)
        _merge(documented, given)
        documented["description"] = description
    # FastAPI documents the 422 alone: a malformed or too large body's answer is not part of
    # any one operation's contract, and a client generator reads each documented answer.
    # ``responses=`` may say what a 422 is (or a 4XX, or any other answer) instead.
    takes_values = has_body or any(item.source in _DOCUMENTED_SOURCES for item in parameters)
    if takes_values and not any(key in result for key in ("422", "4XX", "default")):
        schemas.component("ValidationError", VALIDATION_ERROR)
        invalid = schemas.component("HTTPValidationError", HTTP_VALIDATION_ERROR)
        result["422"] = {
            "description": "Validation Error",
            "content": {_JSON: {"schema": invalid}},
        }
    if options.max_concurrency is not None:
        result.setdefault("503", _error("Too many requests in progress", HTTPError, schemas))
    if options.timeout is not None:
        result.setdefault("504", _error("The handler timed out", HTTPError, schemas))
    return result


def _error(description: str, model: type, schemas: Schemas) -> dict[str, Any]:
    return {"description": description, "content": {_JSON: {"schema": schemas.schema(model)}}}


def _declared(
    declared: Mapping[str, Any], media: str, schemas: Schemas, title: str
) -> dict[str, Any]:
    """A ``responses=`` entry as FastAPI takes it: a Response Object, ``model`` for its body
    in the route's media type (a copy: the app's own dictionaries stay as they are)."""
    result = copy.deepcopy({key: value for key, value in declared.items() if key != "model"})
    if declared.get("model"):
        content = {media: {"schema": schemas.schema(declared["model"], "serialization", title)}}
        result["content"] = _merge(content, result.get("content", {}))
    return result


def _status_key(code: int | str) -> str:
    """A ``responses=`` key as OpenAPI writes it: a status code, a range (``5xx`` is
    ``5XX``), or ``default`` in any case; anything else is a ValueError, as in FastAPI."""
    key = str(code).upper()
    if key == "DEFAULT":
        return "default"
    if key not in _RANGES and not key.isdigit():
        raise ValueError(
            f"responses={{{code!r}: ...}}: a key is a status code, a range such as '5XX', or "
            "'default'"
        )
    return key


def _phrase(key: str) -> str:
    """The description of a status, or of a range, that ``responses=`` leaves undescribed."""
    if key.upper() in _RANGES:
        return _RANGES[key.upper()]
    return http.client.responses.get(int(key), "Additional Response")


def _content(returns: Any, status: int, schemas: Schemas, title: str) -> dict[str, Any]:
    """Media types and schemas of a handler's result, as its renderer writes it (a JSON
    schema that is no reference titled ``title``, as FastAPI titles its response field)."""
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
        if isinstance(member, type) and issubclass(member, Response):
            media = _RESPONSE_MEDIA.get(member, (_JSON, {}))
            content[media[0]] = {"schema": dict(media[1])}
        else:
            as_json.append(member)
    if as_json:
        if Any in as_json:
            schema: dict[str, Any] = {}
        elif as_json == [bytes]:  # sent as its text, as FastAPI documents it
            schema = {"type": "string", "contentMediaType": _OCTETS, "title": title}
        else:
            whole = as_json[0] if len(as_json) == 1 else typing.Union[tuple(as_json)]  # noqa: UP007
            # FastAPI titles the schema of a response model; ``-> None`` has none.
            titled = None if whole is None or whole is type(None) else title
            schema = schemas.schema(whole, "serialization", titled)
        content[_JSON] = {"schema": schema}
    return content


def _class_content(
    endpoint: Endpoint, schemas: Schemas, unique_id: str
) -> tuple[str, dict[str, Any]]:
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
    item_title = _title(f"StreamItem_{unique_id}")
    if issubclass(response_class or Response, EventSourceResponse) and endpoint.stream_item:
        event = _event(endpoint, schemas, item_title)
        return str(status), {"text/event-stream": {"itemSchema": event}}
    returns = response_type(endpoint)
    if response_class is None:  # a generator handler, sending JSON Lines
        item = {} if returns is Any else schemas.schema(returns, "serialization", item_title)
        return str(status), {"application/jsonl": {"itemSchema": item}}
    title = _title(f"Response_{unique_id}")
    model = {} if returns is Any else schemas.schema(returns, "serialization", title)
    media_type = declared_media_type(response_class)
    if media_type is None:
        return str(status), {}
    schema = model if issubclass(response_class, JSONResponse) else {"type": "string"}
    return str(status), {media_type: {"schema": schema}}


def _event(endpoint: Endpoint, schemas: Schemas, title: str) -> dict[str, Any]:
    """The schema of one event a generator handler streams as Server-Sent Events, FastAPI's:
    its ``data`` is the JSON of what it yields, unless it yields ServerSentEvents of its own
    making (or says nothing of what it yields)."""
    event: dict[str, Any] = {
        "type": "object",
        "properties": {
            "data": {"type": "string"},
            "event": {"type": "string"},
            "id": {"type": "string"},
            "retry": {"type": "integer", "minimum": 0},
        },
    }
    item = endpoint.stream_item
    if item is Any or (isinstance(item, type) and issubclass(item, ServerSentEvent)):
        return event
    data = {"type": "string", "contentMediaType": _JSON}
    content = schemas.schema(item, "serialization", title)
    event["properties"]["data"] = {**data, "contentSchema": content}
    event["required"] = ["data"]
    return event


def _merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    """``extra`` merged into ``base`` (in place), dictionaries key by key, lists one after
    the other (FastAPI's: ``openapi_extra={"parameters": [...]}`` adds parameters)."""
    for key, value in extra.items():
        current = base.get(key)
        if isinstance(current, dict) and isinstance(value, Mapping):
            _merge(current, value)
        elif isinstance(current, list) and isinstance(value, list):
            base[key] = current + value
        else:
            base[key] = value
    return base
