"""Parameter descriptions: where each argument of a handler comes from, and what it must be.

A handler's signature is read once, at registration, into ``Parameter`` descriptions (name,
source, type, default, constraints, ``Annotated`` metadata). The plan that reads a request
(``plan.py``), OpenAPI and dependency injection all start from them: one description, so they
cannot disagree. The markers that say where a value comes from when its type alone does not
(``Query``, ``Path``, ``Header``, ``Cookie``, ``Body``, ``Form``, ``File``, ``Depends``) are
in ``markers.py`` (the public ``hasten.params`` imports them from there, as FastAPI's come from
``fastapi.params``); what a type says of how its value travels is ``shapes.py``, and what
registration refuses ``checks.py``.
"""

from __future__ import annotations

import copy
import dataclasses
import decimal
import enum
import functools
import inspect
import os
import sys
import types
import typing
import uuid
from collections.abc import Callable
from typing import Any, Final, get_args, get_origin

import msgspec

from hasten._http.background import BackgroundTasks
from hasten._params.checks import check_one_body_kind, check_readable
from hasten._params.markers import (
    CLASS_NAMES,
    MISSING,
    REQUEST_SOURCES,
    Dependency,
    Marker,
    Source,
)
from hasten._params.shapes import (
    Shape,
    accepts_none,
    is_json,
    is_model,
    is_record,
    is_request,
    is_sequence,
    is_upload,
    members_but_none,
    query_by_default,
    shape_of,
)

__all__ = [
    "Parameter",
    "defined_at",
    "describe",
    "describe_handler",
    "unwrap",
]


@dataclasses.dataclass(frozen=True, slots=True)
class Parameter:
    """One handler parameter, described: everything that reads a request, documents it or
    injects into it starts from here."""

    name: str  # the handler's argument
    source: Source
    annotation: Any  # the declared type, ``Annotated`` metadata removed
    default: Any = MISSING  # MISSING: required (unless ``default_factory``)
    alias: str = ""  # the name on the wire: query key, header or cookie name, body member
    constraints: tuple[msgspec.Meta, ...] = ()  # enforced wherever the value comes from
    metadata: tuple[Any, ...] = ()  # every other ``Annotated`` extra, as declared
    marker: Marker | None = None
    embed: bool = False  # a body parameter read from a member of the JSON object
    dependency: Dependency | None = None  # source "dependency": what to call (resolved)
    # Every name the value may come by, ``alias`` first, where pydantic's ``AliasChoices``
    # gives several: the first the request has is read (``Marker.names``).
    choices: tuple[str, ...] = ()
    # Declared without a type (or ``Any``): a path, query, header or cookie value is read as
    # ``str``, and documented as any value, as FastAPI documents it.
    untyped: bool = False

    @property
    def required(self) -> bool:
        return self.default is MISSING and self.default_factory is None

    @property
    def default_factory(self) -> Callable[[], Any] | None:
        return None if self.marker is None else self.marker.default_factory

    @property
    def many(self) -> bool:
        """Whether the value is every value of its name: a sequence (a list, tuple, set, ...,
        also in a union), unless it comes as one JSON text (``Json[list[int]]``)."""
        return is_sequence(self.annotation) and not any(map(is_json, self.metadata))

    @property
    def validate_default(self) -> bool:
        """Whether the default, when the request gives no value, is validated as a given
        value would be (``validate_default=True``, as FastAPI does)."""
        return self.marker is not None and bool(self.marker.validate_default)

    def default_value(self) -> Any:
        """The value of a parameter the request does not give (a fresh one from a factory,
        or a deep copy of a mutable default, as FastAPI's: a handler that changes its default
        model or list leaves the next request's as declared)."""
        factory = self.default_factory
        if factory is not None:
            return factory()
        default = self.default
        # perf: the usual default (None, a number, a text, an enum member) is not copied.
        if type(default) in _IMMUTABLE or isinstance(default, enum.Enum):
            return default
        return copy.deepcopy(default)  # a model or list the handler may change: its own

    @property
    def validated_type(self) -> Any:
        """The type with its constraints attached, as msgspec converts and checks it (on the
        value itself: ``Annotated[str, Meta(...)] | None`` for ``str | None``)."""
        if not self.constraints:
            return self.annotation
        annotation = self.annotation
        if accepts_none(annotation):
            members = members_but_none(annotation)
            value = members[0] if len(members) == 1 else typing.Union[members]  # noqa: UP007
            return typing.Optional[typing.Annotated[(value, *self.constraints)]]  # noqa: UP045
        return typing.Annotated[(annotation, *self.constraints)]

    @property
    def shape(self) -> Shape:
        return shape_of(self.annotation)

    @property
    def is_model(self) -> bool:
        """A parameter model: query, header, cookie or form values read as one model's
        fields (``Annotated[Filters, Query()]``)."""
        if any(map(is_json, self.metadata)):  # one JSON text: Json[Model]
            return False
        return self.source in ("query", "header", "cookie", "form") and is_record(self.annotation)

    @property
    def models(self) -> tuple[Any, ...]:
        """The models whose fields a query, header, cookie or form parameter reads from the
        request's flat values, as FastAPI 0.165 does: ``Model`` or ``Model | None``, and on a
        form a union of pydantic models too (``Person | Company``, ``| None`` as well; each
        may be ``Annotated``, with a ``Tag``). Empty for any other parameter."""
        if self.source not in ("query", "header", "cookie", "form"):
            return ()
        if any(map(is_json, self.metadata)):  # one JSON text: Json[Model]
            return ()
        members = members_but_none(self.annotation)
        if len(members) == 1:
            return members if is_record(members[0]) else ()
        models = tuple(_split_annotated(member)[0] for member in members)
        if self.source == "form" and all(is_model(member) for member in models):
            return models
        return ()

    @property
    def needs_pydantic(self) -> bool:
        """Whether only pydantic can validate it: a pydantic model or type in its
        annotation, pydantic's own metadata, or keywords only pydantic enforces."""
        from hasten._params.models import uses_pydantic

        if uses_pydantic(self.annotation):
            return True
        if self.marker is not None and self.marker.pydantic_only:
            return True
        return any(_is_pydantic_metadata(extra) for extra in self.metadata)


# Defaults that cannot be changed: given as they are, not copied (perf: the usual default).
_IMMUTABLE: Final = frozenset(
    {type(None), bool, int, float, str, bytes, decimal.Decimal, uuid.UUID, type(MISSING)}
)


def _is_pydantic_metadata(extra: Any) -> bool:
    module = type(extra).__module__.split(".")[0]
    return module in ("pydantic", "pydantic_core", "annotated_types")


def unwrap(handler: Callable[..., Any]) -> Callable[..., Any]:
    """The function that carries a handler's annotations: through partials and decorators
    that keep ``__wrapped__`` (``functools.wraps``, ``lru_cache``), to ``__call__``."""
    while True:
        if isinstance(handler, functools.partial):
            handler = handler.func
        elif hasattr(handler, "__wrapped__"):
            handler = handler.__wrapped__
        elif inspect.isfunction(handler) or inspect.ismethod(handler):
            return handler
        elif inspect.isclass(handler):  # a class as a dependency: its __init__ takes values
            init: Callable[..., Any] = handler.__init__
            return init
        else:
            call: Callable[..., Any] = type(handler).__call__
            return call


def describe_handler(handler: Callable[..., Any]) -> str:
    """``module.qualname`` of a handler, for messages and ``hasten routes``."""
    target = unwrap(handler)
    qualname = getattr(target, "__qualname__", type(target).__qualname__)
    name = qualname.removesuffix(".__call__").removesuffix(".__init__")
    return f"{getattr(target, '__module__', '?')}.{name}"


def defined_at(handler: Callable[..., Any]) -> str | None:
    """``file, line N`` where a handler is defined (its first decorator's line), the file
    relative to the working directory when under it; None when Python cannot tell."""
    target = unwrap(handler)
    code = getattr(target, "__code__", None)
    try:
        if code is not None:
            filename, line = code.co_filename, code.co_firstlineno
        else:
            filename = inspect.getsourcefile(target) or ""
            line = inspect.getsourcelines(target)[1]
    except (OSError, TypeError):
        return None
    if not filename:
        return None
    if filename.startswith(os.getcwd() + os.sep):
        filename = os.path.relpath(filename)
    return f"{filename}, line {line}"


def describe(
    handler: Callable[..., Any], path_names: frozenset[str], *, takes_path: bool = True
) -> tuple[Parameter, ...]:
    """Describe each of ``handler``'s parameters; ``path_names`` are the route's path params
    (``takes_path``: each must be taken, unless the handler takes the Request).

    Raises TypeError, naming the handler, the parameter and what to do, for a parameter that
    no request can fill.
    """
    where = describe_handler(handler)
    try:
        hints = _parameter_hints(unwrap(handler))
    except Exception as exc:
        raise TypeError(f"Cannot resolve the type annotations of {where}: {exc}") from exc
    described = [
        _describe_one(where, parameter, hints.get(name, MISSING), path_names)
        for name, parameter in inspect.signature(handler).parameters.items()
    ]
    check_one_body_kind(where, described)
    taken = {item.alias for item in described if item.source == "path"}
    missing = path_names - taken
    if takes_path and missing and not any(item.source == "request" for item in described):
        raise TypeError(f"{where} takes no parameter for path parameter(s) {sorted(missing)}")
    return tuple(described)


def _parameter_hints(function: Callable[..., Any]) -> dict[str, Any]:
    """The resolved annotations of ``function``'s parameters. Its return annotation is not
    needed to read a request: one only a type checker resolves (a name imported under
    ``TYPE_CHECKING``) is left out, as FastAPI leaves it."""
    try:
        return typing.get_type_hints(function, include_extras=True)
    except NameError:
        annotations = dict(getattr(function, "__annotations__", None) or {})
        if annotations.pop("return", None) is None:
            raise
        parameters = types.SimpleNamespace(
            __annotations__=annotations, __globals__=getattr(function, "__globals__", {})
        )
        return typing.get_type_hints(parameters, include_extras=True)


def _describe_one(
    where: str, parameter: inspect.Parameter, hint: Any, path_names: frozenset[str]
) -> Parameter:
    name = parameter.name
    if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
        raise TypeError(f"{where}: *args and **kwargs cannot be filled from a request")
    annotation, extras = _split_annotated(hint)
    dependency = _dependency(where, name, annotation, extras, parameter.default)
    if dependency is not None:
        metadata = tuple(extra for extra in extras if not isinstance(extra, Dependency))
        return Parameter(
            name, "dependency", annotation, MISSING, name, (), metadata, dependency=dependency
        )
    marker, default = _marker_and_default(where, name, extras, parameter.default)
    fields = _field_infos(extras)
    if fields and marker is not None:
        marker = _with_fields(marker, extras, default)
    source = _source(where, name, annotation, marker, path_names)
    if fields and source in REQUEST_SOURCES:
        if marker is None:  # the source it has by its type, with what the fields say
            marker = _with_fields(Marker(source), extras, default)
        extras = tuple(item for extra in extras for item in _field_metadata(extra, fields))
    constraints = tuple(extra for extra in extras if isinstance(extra, msgspec.Meta))
    if marker is not None and (meta := marker.meta()) is not None:
        constraints += (meta,)
    metadata = tuple(extra for extra in extras if not isinstance(extra, msgspec.Meta | Marker))
    if isinstance(parameter.default, Marker):
        # A marker given as the default takes the bare type, as FastAPI reads it: a pydantic
        # Discriminator in the type's Annotated is neither enforced nor documented.
        metadata = tuple(extra for extra in metadata if type(extra).__name__ != "Discriminator")
    untyped = annotation is MISSING or annotation is Any
    if untyped:
        annotation = str if source in ("path", "query", "header", "cookie") else Any
    names = marker.names(name, path_names) if marker is not None else (name,)
    embed = marker is not None and bool(marker.embed)
    choices = names if len(names) > 1 else ()
    described = Parameter(
        name, source, annotation, default, names[0], constraints, metadata, marker, embed
    )
    if choices or untyped:
        described = dataclasses.replace(described, choices=choices, untyped=untyped)
    check_readable(where, described)
    return described


def _dependency(
    where: str, name: str, annotation: Any, extras: tuple[Any, ...], default: Any
) -> Dependency | None:
    """The parameter's ``Depends()``, its callable resolved (the annotation, when not given)."""
    from hasten._http.errors import InvalidParameter

    found = [extra for extra in extras if isinstance(extra, Dependency)]
    if isinstance(default, Dependency):
        if found:
            raise InvalidParameter(
                f"Cannot specify `Depends` in `Annotated` and default value together for "
                f"{name!r}: {where}"
            )
        if any(isinstance(extra, Marker) for extra in extras):
            raise InvalidParameter(
                "Cannot specify a FastAPI annotation in `Annotated` and `Depends` as a default "
                f"value together for {name!r}: {where}"
            )
        found.append(default)
    if not found:
        return None
    if len(found) > 1 or any(isinstance(extra, Marker) for extra in extras):
        raise TypeError(f"{where}: parameter {name!r} has more than one source; give one")
    (dependency,) = found
    if dependency.dependency is None:
        if not (inspect.isclass(annotation) and annotation is not Any):
            raise TypeError(
                f"{where}: parameter {name!r} is Depends() without a callable: give one "
                "(Depends(get_user)), or annotate it with a class to call"
            )
        dependency = dataclasses.replace(dependency, dependency=annotation)
    return dependency


def _marker_and_default(
    where: str, name: str, extras: tuple[Any, ...], default: Any
) -> tuple[Marker | None, Any]:
    """The parameter's marker, from ``Annotated`` or its default, and its real default. Of
    several markers in ``Annotated``, the last is the source and what each says is merged,
    in order (``Query(gt=2), Query(lt=10)``), as FastAPI does."""
    from hasten._http.errors import InvalidParameter

    markers = [extra for extra in extras if isinstance(extra, Marker)]
    if isinstance(default, Marker):
        if markers:
            raise InvalidParameter(
                "Cannot specify FastAPI annotations in `Annotated` and default value together "
                f"for {name!r}: {where}"
            )
        # ``Query(...)``: Ellipsis is FastAPI's way to say "required".
        return default, MISSING if default.default is Ellipsis else default.default
    if not markers:
        return None, default
    for marker in markers:
        if marker.default is not MISSING and marker.default is not Ellipsis:
            kind = CLASS_NAMES[marker.source]
            raise InvalidParameter(
                f"`{kind}` default value cannot be set in `Annotated` for {name!r}. Set the "
                f"default value with `=` instead: {where}"
            )
    return _merged(markers), default


def _merged(markers: list[Marker]) -> Marker:
    """The last marker, with what the ones before it say and it does not."""
    last = markers[-1]
    if len(markers) == 1:
        return last
    merged = copy.copy(last)  # a marker may be shared by other parameters: not changed
    given: set[str] = set()
    for marker in markers:
        for option in marker.given:
            object.__setattr__(merged, option, getattr(marker, option))
        given |= marker.given
    object.__setattr__(merged, "given", frozenset(given))
    return merged


# What a pydantic ``Field()`` in ``Annotated`` says of a parameter beside its constraints (its
# ``metadata``, kept as the parameter's): FastAPI merges it into the parameter's marker.
_FIELD_OPTIONS = (
    "alias",
    "alias_priority",
    "validation_alias",
    "serialization_alias",
    "title",
    "description",
    "examples",
    "json_schema_extra",
    "deprecated",
    "discriminator",
    "validate_default",
)


def _field_infos(extras: tuple[Any, ...]) -> list[Any]:
    """The pydantic ``Field()``s in ``Annotated`` (pydantic is loaded if there are any)."""
    fields = sys.modules.get("pydantic.fields")
    if fields is None:
        return []
    return [extra for extra in extras if isinstance(extra, fields.FieldInfo)]


def _with_fields(marker: Marker, extras: tuple[Any, ...], default: Any) -> Marker:
    """``marker`` with what the pydantic ``Field()``s in ``Annotated`` say, merged as FastAPI
    merges them: in their order, each keyword given overriding the ones before (a marker
    given as the parameter's default last); a ``default_factory`` where the parameter has no
    default."""
    fields = _field_infos(extras)
    said: dict[str, Any] = {}
    last = () if any(extra is marker for extra in extras) else (marker,)
    for extra in (*extras, *last):
        if extra is marker:
            given = {name: getattr(marker, name) for name in marker.given}
        elif any(extra is field for field in fields):
            given = extra._attributes_set
        else:
            continue
        before, extra_schema = said.get("json_schema_extra"), given.get("json_schema_extra")
        said.update(given)
        if isinstance(before, dict) and isinstance(extra_schema, dict):  # merged, as pydantic does
            said["json_schema_extra"] = {**before, **extra_schema}
    merged = copy.copy(marker)  # the marker may be shared by other parameters: not changed
    for option in _FIELD_OPTIONS:
        if option in said:
            object.__setattr__(merged, option, said[option])
    factory = said.get("default_factory")
    if factory is not None and default is MISSING and marker.default is MISSING:
        object.__setattr__(merged, "default_factory", factory)
    return merged


def _field_metadata(extra: Any, fields: list[Any]) -> tuple[Any, ...]:
    """An ``Annotated`` extra as the parameter keeps it: a pydantic ``Field()`` as its
    constraints alone."""
    if any(extra is field for field in fields):
        return tuple(extra.metadata)
    return (extra,)


def _split_annotated(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    extras: tuple[Any, ...] = ()
    # A type alias (``type Value = Annotated[...]``, PEP 695) stands for its value.
    hint = _aliased(hint)
    while get_origin(hint) is typing.Annotated:
        hint, *more = get_args(hint)
        extras = (*more, *extras)
        hint = _aliased(hint)
    return hint, extras


def _aliased(hint: Any) -> Any:
    """What a type alias (``typing``'s or typing_extensions' TypeAliasType) stands for."""
    while type(hint).__name__ == "TypeAliasType" and hasattr(hint, "__value__"):
        hint = hint.__value__
    return hint


def _source(
    where: str, name: str, annotation: Any, marker: Marker | None, path_names: frozenset[str]
) -> Source:
    special = _special_source(annotation)
    if special is not None:
        if marker is not None:
            raise TypeError(f"{where}: parameter {name!r} is given by hasten; it takes no marker")
        return special
    if marker is None and is_upload(annotation):
        return "file"
    if marker is not None:
        # A Path() the route does not have may come with a router's prefix: the plan says
        # when the app starts if it never does.
        return marker.source
    if name in path_names:
        return "path"
    if annotation is MISSING or query_by_default(annotation):
        return "query"
    return "body"


def _special_source(annotation: Any) -> Source | None:
    """The parameters hasten fills itself: the connection, background tasks, the response
    to add headers to, the security scopes."""
    from hasten._http.responses import Response
    from hasten._params.dependencies import SecurityScopes

    if is_request(annotation):
        return "request"
    if _subclass(annotation, BackgroundTasks):
        return "background"
    if _subclass(annotation, Response):
        return "response"
    if _subclass(annotation, SecurityScopes):
        return "security_scopes"
    return None


def _subclass(annotation: Any, kind: type) -> bool:
    return isinstance(annotation, type) and issubclass(annotation, kind)
