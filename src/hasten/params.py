"""Parameter descriptions: where each argument of a handler comes from, and what it must be.

A handler's signature is read once, at registration, into ``Parameter`` descriptions (name,
source, type, default, constraints, ``Annotated`` metadata). The plan that reads a request
(``plan.py``), OpenAPI and dependency injection all start from them: one description, so they
cannot disagree. ``Query``, ``Path``, ``Header``, ``Cookie``, ``Body``, ``Form`` and ``File``
say where a value comes from when its type alone does not, and ``Depends`` names a dependency,
as in FastAPI, with FastAPI's keywords.
"""

from __future__ import annotations

import collections
import copy
import dataclasses
import decimal
import enum
import functools
import importlib.util
import inspect
import os
import re
import sys
import types
import typing
import uuid
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, Literal, TypedDict, Unpack, get_args, get_origin

import msgspec
import msgspec.inspect as mi

from .background import BackgroundTasks
from .concurrency import DependencyConcurrency
from .connection import Connection
from .uploads import UploadFile

__all__ = [
    "MISSING",
    "Body",
    "Cookie",
    "Dependency",
    "Depends",
    "File",
    "Form",
    "Header",
    "Marker",
    "MarkerOptions",
    "Param",
    "ParamTypes",
    "Parameter",
    "Path",
    "Query",
    "Source",
    "describe",
    "describe_handler",
    "unwrap",
]

MISSING: Final[Any] = inspect.Parameter.empty
Source = Literal[
    "path",
    "query",
    "header",
    "cookie",
    "body",
    "form",
    "file",
    "request",
    "dependency",
    "background",
    "response",
    "security_scopes",
]
# Where a request value is read from (the others are made per request, or called).
REQUEST_SOURCES: Final = frozenset({"path", "query", "header", "cookie", "body", "form", "file"})
DependencyScope = Literal["function", "request", "app"]
Shape = Literal["scalar", "sequence", "structured", "unsupported"]

_UNIONS = (typing.Union, types.UnionType)
# What msgspec enforces itself; every other validation keyword is pydantic's alone.
_CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern")
_PYDANTIC_ONLY = (
    "strict",
    "allow_inf_nan",
    "max_digits",
    "decimal_places",
    "discriminator",
    "union_mode",
    "fail_fast",
)
_DOCS = ("title", "description", "examples")
# The class FastAPI names each marker by (``repr(Query(1))`` is ``Query(1)``).
_CLASS_NAMES: Final = {
    "path": "Path",
    "query": "Query",
    "header": "Header",
    "cookie": "Cookie",
    "body": "Body",
    "form": "Form",
    "file": "File",
}


class ParamTypes(enum.Enum):
    """Where a path, query, header or cookie parameter is read (FastAPI's ``in_``)."""

    query = "query"
    header = "header"
    path = "path"
    cookie = "cookie"


class MarkerOptions(TypedDict, total=False):
    """The keywords every marker takes, FastAPI's (``Marker``'s fields; a test holds them)."""

    default_factory: Callable[[], Any] | None
    alias: str | None
    alias_priority: int | None
    validation_alias: str | Any | None
    serialization_alias: str | None
    title: str | None
    description: str | None
    gt: float | None
    ge: float | None
    lt: float | None
    le: float | None
    min_length: int | None
    max_length: int | None
    pattern: str | re.Pattern[str] | None
    regex: str | None
    discriminator: str | None
    strict: bool | None
    validate_default: bool | None
    union_mode: Literal["smart", "left_to_right"] | None
    fail_fast: bool | None
    multiple_of: float | None
    allow_inf_nan: bool | None
    max_digits: int | None
    decimal_places: int | None
    examples: list[Any] | None
    example: Any
    openapi_examples: dict[str, Any] | None
    deprecated: bool | str | None
    include_in_schema: bool
    json_schema_extra: dict[str, Any] | Callable[[dict[str, Any]], None] | None
    media_type: str | None


# eq=False: each marker is itself, as FastAPI's are (typing caches ``Annotated[int, m]`` by
# its metadata's equality, so that two equal markers would share the first one's aliases).
@dataclasses.dataclass(frozen=True, repr=False, eq=False)
class Marker:
    """Where a parameter comes from, with its constraints and documentation: what
    ``Query()``, ``Path()``, ``Header()``, ``Cookie()``, ``Body()``, ``Form()`` and ``File()``
    return. Its keywords are FastAPI's."""

    source: Source
    default: Any = MISSING
    _: dataclasses.KW_ONLY
    default_factory: Callable[[], Any] | None = None
    alias: str | None = None
    alias_priority: int | None = None
    validation_alias: str | Any | None = None  # or pydantic's AliasChoices or AliasPath
    serialization_alias: str | None = None
    title: str | None = None
    description: str | None = None
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | re.Pattern[str] | None = None  # a compiled one keeps its flags
    regex: str | None = None  # FastAPI's old name for ``pattern``
    discriminator: str | None = None
    strict: bool | None = None
    validate_default: bool | None = None
    union_mode: Literal["smart", "left_to_right"] | None = None
    fail_fast: bool | None = None
    multiple_of: float | None = None
    allow_inf_nan: bool | None = None
    max_digits: int | None = None
    decimal_places: int | None = None
    examples: list[Any] | None = None
    example: Any = MISSING  # FastAPI's old name for one of ``examples``
    openapi_examples: dict[str, Any] | None = None
    deprecated: bool | str | None = None
    include_in_schema: bool = True
    json_schema_extra: dict[str, Any] | Callable[[dict[str, Any]], None] | None = None
    media_type: str | None = None  # body and forms: the media type OpenAPI documents
    convert_underscores: bool = True  # headers: ``user_agent`` reads ``User-Agent``
    embed: bool | None = None  # body: read from the member of a JSON object named after it
    # The keywords given: one given as None (``alias=None``) still overrides what a pydantic
    # ``Field()`` beside the marker says, as FastAPI's explicit keywords do.
    given: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        if self.default is not MISSING and self.default_factory is not None:
            raise TypeError("Give a default or a default_factory, not both")
        if "alias" in self.given:  # the alias is the other two's too, unless they are given
            implied = {"validation_alias": self.alias}
            if isinstance(self.alias, str):
                implied["serialization_alias"] = self.alias
            for name, value in implied.items():
                if getattr(self, name) is None:
                    object.__setattr__(self, name, value)
                    object.__setattr__(self, "given", self.given | {name})
        if self.regex is not None:
            from .errors import FastAPIDeprecationWarning

            warnings.warn(
                "`regex` has been deprecated, please use `pattern` instead",
                FastAPIDeprecationWarning,
                stacklevel=4,
            )
            if self.pattern is None:
                object.__setattr__(self, "pattern", self.regex)
        if self.example is not MISSING:
            from .errors import FastAPIDeprecationWarning

            warnings.warn(
                "`example` has been deprecated, please use `examples` instead",
                FastAPIDeprecationWarning,
                stacklevel=4,
            )

    def __repr__(self) -> str:
        default = self.default
        shown = "PydanticUndefined" if default is MISSING or default is ... else default
        return f"{_CLASS_NAMES[self.source]}({shown})"

    @property
    def in_(self) -> ParamTypes:
        """Where a path, query, header or cookie value is read, as FastAPI's ``in_`` says
        (a body's marker has none)."""
        try:
            return ParamTypes(self.source)
        except ValueError:
            raise AttributeError(f"{_CLASS_NAMES[self.source]}() has no 'in_'") from None

    def meta(self) -> msgspec.Meta | None:
        """The constraints and documentation msgspec enforces and documents itself (a
        compiled pattern is pydantic's: msgspec takes no flags)."""
        given = {
            name: getattr(self, name)
            for name in (*_CONSTRAINTS, *_DOCS)
            if getattr(self, name) is not None
        }
        if isinstance(given.get("pattern"), re.Pattern):
            del given["pattern"]
        return msgspec.Meta(**given) if given else None

    def field_options(self) -> dict[str, Any]:
        """Every validation keyword given, as ``pydantic.Field`` takes it."""
        return {
            name: getattr(self, name)
            for name in (*_CONSTRAINTS, *_PYDANTIC_ONLY)
            if getattr(self, name) is not None
        }

    @property
    def pydantic_only(self) -> bool:
        """Whether a keyword asks for what only pydantic enforces."""
        if isinstance(self.pattern, re.Pattern):
            return True
        return any(getattr(self, name) is not None for name in _PYDANTIC_ONLY)

    def names(self, name: str, path_names: frozenset[str] = frozenset()) -> tuple[str, ...]:
        """The names parameter ``name``'s value is looked up by, in FastAPI's order: the
        first the request has is read, and errors name it (a header's as written: headers
        are looked up by its lower case). The validation alias, else the alias, else the
        name (a header's with ``_`` as ``-``); or each of pydantic's ``AliasChoices``, of
        which a path value takes the one the route has. An ``AliasPath`` names nothing."""
        alias = self.alias
        if not alias:
            convert = self.source == "header" and self.convert_underscores
            alias = name.replace("_", "-") if convert else name
        chosen = self.validation_alias
        first = chosen if isinstance(chosen, str) and chosen else alias
        choices = alias_choices(chosen)
        if not choices:
            return (first,)
        if self.source == "path":
            return (next((choice for choice in choices if choice in path_names), first),)
        return choices


def alias_choices(alias: Any) -> tuple[str, ...] | None:
    """The names of a pydantic ``AliasChoices``; () for any other alias, None for an
    ``AliasPath`` alone or among the choices (FastAPI then reads the value by its name)."""
    if type(alias).__module__.split(".")[0] != "pydantic":
        return ()
    kind = type(alias).__name__
    if kind == "AliasPath":
        return None
    if kind != "AliasChoices":
        return ()
    choices = alias.choices
    if not all(isinstance(choice, str) for choice in choices):
        return None
    return tuple(choices)


class _ParamMarker(Marker):
    """What ``Param()`` returns: a query value, named as FastAPI names its base class."""

    def __repr__(self) -> str:
        return "Param" + super().__repr__().removeprefix("Query")


# The markers are functions typed ``-> Any``, as FastAPI's are, so that ``x: int = Query(3)``
# type-checks; each returns a Marker.
def Param(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """FastAPI's base class of the four, used as a marker of its own: a query value."""
    return _ParamMarker("query", default, given=frozenset(options), **options)


def Query(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A query-string parameter (the default for a plain type not in the path); on a model
    (``Annotated[Filters, Query()]``), the query parameters as that model's fields."""
    return Marker("query", default, given=frozenset(options), **options)


def Path(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A path parameter (the default for a name in the route's path)."""
    if default is not MISSING and default is not ...:
        raise AssertionError("Path parameters cannot have a default value")
    return Marker("path", MISSING, given=frozenset(options), **options)


def Header(
    default: Any = MISSING, *, convert_underscores: bool = True, **options: Unpack[MarkerOptions]
) -> Any:
    """A request header: ``user_agent`` reads ``User-Agent``, unless ``convert_underscores``
    is False or an ``alias`` is given; on a model, the headers as that model's fields."""
    given = frozenset(options)
    return Marker(
        "header", default, convert_underscores=convert_underscores, given=given, **options
    )


def Cookie(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A cookie from the ``Cookie`` header; on a model, the cookies as its fields."""
    return Marker("cookie", default, given=frozenset(options), **options)


def Body(
    default: Any = MISSING, *, embed: bool | None = None, **options: Unpack[MarkerOptions]
) -> Any:
    """The JSON body; with ``embed=True`` (or beside other body parameters), the member of a
    JSON object named after the parameter."""
    return Marker("body", default, embed=embed, given=frozenset(options), **options)


def Form(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A field of a form body (urlencoded or multipart); on a model (``Annotated[Model,
    Form()]``), the whole form as that model."""
    return Marker("form", default, given=frozenset(options), **options)


def File(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A file of a multipart body: ``UploadFile`` (streamed, spooled to disk when large) or
    ``bytes`` (read whole)."""
    return Marker("file", default, given=frozenset(options), **options)


@dataclasses.dataclass(frozen=True)
class Dependency:
    """What ``Depends()`` returns: a callable whose result is the parameter's value.

    ``scope="request"`` (the default): called once per request (once in all, with
    ``use_cache``, however many parameters ask for it); a generator's code after ``yield``
    runs after the response is sent. ``scope="function"``: that code runs as soon as the
    handler returns, before the response is sent. ``scope="app"``: created once when the app
    starts and closed when it stops; it cannot take request parameters.
    """

    dependency: Callable[..., Any] | None = None
    _: dataclasses.KW_ONLY
    use_cache: bool = True
    scope: DependencyScope | None = None
    scopes: tuple[str, ...] = ()  # OAuth2 scopes a ``Security()`` dependency requires
    # At most this many calls at once (see DependencyConcurrency); None: no limit.
    max_concurrency: int | None = None
    # The limit's own object: two declarations, however alike, never share one (nor are equal,
    # so Annotated keeps both). A copy (dataclasses.replace) with the same limit keeps it.
    _concurrency: DependencyConcurrency | None = dataclasses.field(default=None, repr=False)

    def __post_init__(self) -> None:
        if self.scope not in (None, "function", "request", "app"):
            raise ValueError(
                f"Depends scope must be 'function', 'request' or 'app', not {self.scope!r}"
            )
        if self.dependency is not None and not callable(self.dependency):
            raise TypeError(f"Depends() takes a callable, not {self.dependency!r}")
        limit = self.max_concurrency
        if limit is None:
            object.__setattr__(self, "_concurrency", None)
            return
        if type(limit) is not int or limit < 1:
            raise ValueError("max_concurrency must be a positive integer or None")
        if self._concurrency is None or self._concurrency.max_concurrency != limit:
            object.__setattr__(self, "_concurrency", DependencyConcurrency(limit))


def Depends(
    dependency: Callable[..., Any] | None = None,
    *,
    use_cache: bool = True,
    scope: DependencyScope | None = None,
    max_concurrency: int | None = None,
) -> Any:
    """The parameter's value is what ``dependency`` returns (or yields); without one, the
    parameter's annotation is called. ``dependency`` takes parameters as a handler does.
    ``max_concurrency=n``: at most ``n`` calls of it at once, across every route that uses
    this declaration (reuse it, in an ``Annotated`` alias, to share the limit); the others
    wait, without holding a thread."""
    return Dependency(dependency, use_cache=use_cache, scope=scope, max_concurrency=max_concurrency)


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
        if _accepts_none(annotation):
            members = _members_but_none(annotation)
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
        return self.source in ("query", "header", "cookie", "form") and _is_record(self.annotation)

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
        members = _members_but_none(self.annotation)
        if len(members) == 1:
            return members if _is_record(members[0]) else ()
        models = tuple(_split_annotated(member)[0] for member in members)
        if self.source == "form" and all(_is_model(member) for member in models):
            return models
        return ()

    @property
    def needs_pydantic(self) -> bool:
        """Whether only pydantic can validate it: a pydantic model or type in its
        annotation, pydantic's own metadata, or keywords only pydantic enforces."""
        from .models import uses_pydantic

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
    _check_one_body_kind(where, described)
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
    _check_readable(where, described)
    return described


def _dependency(
    where: str, name: str, annotation: Any, extras: tuple[Any, ...], default: Any
) -> Dependency | None:
    """The parameter's ``Depends()``, its callable resolved (the annotation, when not given)."""
    from .errors import InvalidParameter

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
    from .errors import InvalidParameter

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
            kind = _CLASS_NAMES[marker.source]
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
    if marker is None and _is_upload(annotation):
        return "file"
    if marker is not None:
        # A Path() the route does not have may come with a router's prefix: the plan says
        # when the app starts if it never does.
        return marker.source
    if name in path_names:
        return "path"
    if annotation is MISSING or _is_scalar(annotation):
        return "query"
    return "body"


def _special_source(annotation: Any) -> Source | None:
    """The parameters hasten fills itself: the connection, background tasks, the response
    to add headers to, the security scopes."""
    from .responses import Response
    from .security import SecurityScopes

    if _is_request(annotation):
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


def _check_one_body_kind(where: str, described: list[Parameter]) -> None:
    sources = {item.source for item in described}
    if "body" in sources and sources & {"form", "file"}:
        raise TypeError(
            f"{where} reads both a JSON body and a form: a request has one body. Take the "
            "JSON members as Form() fields, or the form's values as Body() members."
        )


def _dependency_hint(name: str, annotation: Any) -> str:
    """For a plain class (a session, a client, a service): how to declare it a dependency,
    which it most likely is (``db: AsyncSession`` without ``Depends``)."""
    if not isinstance(annotation, type) or annotation.__module__ in ("builtins", "typing"):
        return ""
    kind = annotation.__qualname__
    return (
        f" If it is a dependency (a session, a client...), declare it with Depends(): "
        f"`{name}: Annotated[{kind}, Depends(get_{name})]`, where get_{name}() returns or "
        f"yields the {kind}."
    )


def _check_readable(where: str, parameter: Parameter) -> None:
    if parameter.source not in REQUEST_SOURCES:
        return
    if parameter.source == "file":
        _check_file(where, parameter)
        return
    _check_pydantic_v2(where, parameter)
    if not parameter.models:
        _check_fastapi_reads(where, parameter)
    # What msgspec does not read (an EmailStr, an IP address, a tuple from the query),
    # pydantic does, as FastAPI reads it: a TypeAdapter built when the app starts.
    if parameter.needs_pydantic or _msgspec_reads(where, parameter):
        return
    refused = _pydantic_refuses(parameter.annotation)
    if refused is None:
        return
    kind = getattr(parameter.annotation, "__qualname__", repr(parameter.annotation))
    hint = _dependency_hint(parameter.name, parameter.annotation)
    raise TypeError(
        f"{where}: parameter {parameter.name!r} of type {kind} cannot be read from the "
        f"{parameter.source}.{hint}{refused} Without pydantic, hasten reads path, query, "
        "header and cookie values as str, int, float, bool, UUID, Decimal, dates and times, "
        "enums or Literal (query and header values also as lists of them, or as a model's "
        "fields: Annotated[Model, Query()]), and a JSON body as a msgspec Struct, dataclass, "
        "attrs class, TypedDict, dict or list; with pydantic installed, any type pydantic "
        "validates. Use one of these types, or take the Request and read the value yourself."
    )


def _msgspec_reads(where: str, parameter: Parameter) -> bool:
    """Whether msgspec reads the value from where it comes; raises TypeError for
    constraints that fit no value of the type."""
    try:
        mi.type_info(parameter.validated_type)
    except (TypeError, ValueError) as exc:
        if _msgspec_unknown(exc):
            return False
        raise TypeError(
            f"{where}: the type or constraints of parameter {parameter.name!r} cannot be "
            f"read: {exc}"
        ) from None
    if parameter.annotation is Any or parameter.models:
        return True
    shape = parameter.shape
    if parameter.source in {"body", "form"}:
        return shape != "unsupported"
    if parameter.source in ("query", "header"):
        return shape in ("scalar", "sequence")
    return shape == "scalar"  # path and cookie values are single strings


def _check_file(where: str, parameter: Parameter) -> None:
    if not _is_file_type(parameter.annotation):
        raise TypeError(
            f"{where}: parameter {parameter.name!r} is a File(): annotate it UploadFile, "
            "bytes, or a list of either (| None when optional)"
        )


def _pydantic_refuses(annotation: Any) -> str | None:
    """Why pydantic cannot validate ``annotation`` (" pydantic: ...", or "" without
    pydantic); None when it can."""
    if importlib.util.find_spec("pydantic") is None:
        return ""
    from pydantic import PydanticSchemaGenerationError, TypeAdapter

    try:
        TypeAdapter(annotation)
    except PydanticSchemaGenerationError as exc:
        return f" pydantic: {str(exc).split('. ')[0]}."
    return None


def _msgspec_unknown(exc: Exception) -> bool:
    """Whether msgspec refused a type it does not know (rather than constraints that fit
    no value, which pydantic would refuse too)."""
    return str(exc).startswith("Type ") and "is not supported" in str(exc)


def _check_fastapi_reads(where: str, parameter: Parameter) -> None:
    """FastAPI's refusals, with its words: a path value must be a scalar, a query value a
    scalar or a sequence of them (header and cookie values are not checked, as in
    FastAPI: a value that never fits is a 422)."""
    from .errors import InvalidParameter

    annotation = parameter.annotation
    if parameter.source == "path" and not is_fastapi_scalar(annotation):
        message = "Path params must be of one of the supported types"
    elif parameter.source == "query" and not (
        is_fastapi_scalar(annotation)
        or is_scalar_sequence(annotation)
        or any(_is_model(member) for member in _members_but_none(annotation))
    ):
        message = f"Query parameter {parameter.name!r} must be one of the supported types"
    else:
        return
    kind = getattr(annotation, "__qualname__", repr(annotation))
    raise InvalidParameter(
        f"{message}: {where}: parameter {parameter.name!r} of type {kind} cannot be read from "
        f"the {parameter.source}, which holds {_HOLDS[parameter.source]}. Read it from the "
        "JSON body, or as a model's fields (Annotated[Model, Query()])."
    )


_HOLDS = {"path": "one text value", "query": "text values, one or many for a name"}
# The sequences FastAPI reads every value of a repeated name for.
_SEQUENCES_READ: Final = (list, tuple, set, frozenset, collections.deque, Sequence)


def is_json(extra: Any) -> bool:
    """Whether an ``Annotated`` extra is pydantic's ``Json`` (``Json[list[int]]``): the value
    is one JSON text."""
    kind = type(extra)
    return kind.__name__ == "Json" and kind.__module__.startswith("pydantic")


def is_sequence(annotation: Any) -> bool:
    """Whether a value of this type is every value of its name (a list, tuple, set, ...,
    alone or in a union), as FastAPI reads it."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return is_sequence(get_args(annotation)[0])
    if origin in _UNIONS:
        return any(is_sequence(arg) for arg in get_args(annotation))
    return _is_sequence_class(annotation) or _is_sequence_class(origin)


def _is_sequence_class(annotation: Any) -> bool:
    if not isinstance(annotation, type) or issubclass(annotation, str | bytes):
        return False
    return issubclass(annotation, _SEQUENCES_READ)


def is_fastapi_scalar(annotation: Any) -> bool:
    """FastAPI's scalar: no model, mapping, file, sequence or dataclass, anywhere in a
    union (what a path value may be, and a query value without Query())."""
    if annotation is Ellipsis:
        return True
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return is_fastapi_scalar(get_args(annotation)[0])
    if origin in _UNIONS:
        return all(is_fastapi_scalar(arg) for arg in get_args(annotation))
    if _is_complex_class(annotation) or _is_complex_class(origin):
        return False
    return not (
        hasattr(origin, "__pydantic_core_schema__")
        or hasattr(origin, "__get_pydantic_core_schema__")
    )


def _is_complex_class(annotation: Any) -> bool:
    if dataclasses.is_dataclass(annotation) or _is_model(annotation):
        return True
    if not isinstance(annotation, type):
        return False
    return issubclass(annotation, Mapping | UploadFile) or _is_sequence_class(annotation)


def is_scalar_sequence(annotation: Any) -> bool:
    """FastAPI's sequence of scalars (a union holding one, and scalars beside it)."""
    origin = get_origin(annotation)
    if origin is typing.Annotated:
        return is_scalar_sequence(get_args(annotation)[0])
    if origin in _UNIONS:
        found = False
        for arg in get_args(annotation):
            if is_scalar_sequence(arg):
                found = True
            elif not is_fastapi_scalar(arg):
                return False
        return found
    return is_sequence(annotation) and all(is_fastapi_scalar(arg) for arg in get_args(annotation))


def _check_pydantic_v2(where: str, parameter: Parameter) -> None:
    """A pydantic v1 model (``pydantic.v1``) cannot be validated: say what to do."""
    from .errors import PydanticV1NotSupportedError
    from .models import pydantic_v1_model

    model = pydantic_v1_model(parameter.annotation)
    if model is not None:
        raise PydanticV1NotSupportedError(
            f"{where}: parameter {parameter.name!r} is a pydantic v1 model "
            f"({model.__qualname__}); hasten validates pydantic v2 models only, as "
            "FastAPI does: declare it with `from pydantic import BaseModel`, not "
            "`from pydantic.v1 import BaseModel`"
        )


_SCALARS = (
    mi.AnyType,
    mi.StrType,
    mi.IntType,
    mi.FloatType,
    mi.BoolType,
    mi.UUIDType,
    mi.DecimalType,
    mi.DateTimeType,
    mi.DateType,
    mi.TimeType,
    mi.TimeDeltaType,
    mi.EnumType,
    mi.LiteralType,
)
_SEQUENCES = (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)
_STRUCTURED = (
    mi.StructType,
    mi.DataclassType,
    mi.TypedDictType,
    mi.NamedTupleType,
    mi.DictType,
    mi.TupleType,
)


def shape_of(annotation: Any) -> Shape:
    """How a value of ``annotation`` travels: one string (scalar), repeated strings
    (sequence), JSON (structured), or not at all (unsupported)."""
    try:
        info = mi.type_info(annotation)
    except (TypeError, ValueError):
        return "unsupported"
    return _shape(info)


def _shape(info: mi.Type) -> Shape:
    if isinstance(info, _SCALARS):
        return "scalar"
    if isinstance(info, _SEQUENCES):
        item = _shape(info.item_type)
        return "sequence" if item == "scalar" else item
    if isinstance(info, _STRUCTURED):
        return "structured"
    if isinstance(info, mi.UnionType):
        shapes = {_shape(member) for member in info.types if not isinstance(member, mi.NoneType)}
        if len(shapes) == 1:
            return shapes.pop()
        if "unsupported" not in shapes and "structured" in shapes:
            return "structured"
    return "unsupported"


def _is_scalar(annotation: Any) -> bool:
    """Whether a parameter of this type is read from the query by default: FastAPI's scalar
    (an EmailStr, an IP address, a path, ...). A sequence, a model, a record msgspec reads
    (Struct, TypedDict, attrs class) or a mapping is a body, as in FastAPI: a list is read
    from the query with ``Query()``."""
    if any(_is_record(member) for member in _members(annotation)):
        return False
    return is_fastapi_scalar(annotation)


def _is_record(annotation: Any) -> bool:
    """A class with named fields: a pydantic model, Struct, dataclass, attrs class,
    TypedDict or NamedTuple."""
    if _is_model(annotation):
        return True
    try:
        info = mi.type_info(annotation)
    except (TypeError, ValueError):
        return False
    return isinstance(info, mi.StructType | mi.DataclassType | mi.TypedDictType | mi.NamedTupleType)


def _members(annotation: Any) -> tuple[Any, ...]:
    """The types a parameter may hold: ``X | None`` and ``list[X]`` give X."""
    if get_origin(annotation) in _UNIONS:
        return tuple(
            member
            for arg in get_args(annotation)
            if arg is not type(None)
            for member in _members(arg)
        )
    if get_origin(annotation) in (list, tuple, set, frozenset):
        return tuple(member for arg in get_args(annotation) for member in _members(arg))
    return (annotation,)


def _members_but_none(annotation: Any) -> tuple[Any, ...]:
    """The members of a union but None (``(X,)`` for X alone)."""
    if get_origin(annotation) not in _UNIONS:
        return (annotation,)
    return tuple(arg for arg in get_args(annotation) if arg is not type(None))


def _is_upload(annotation: Any) -> bool:
    members = _members(annotation)
    return all(isinstance(member, type) and issubclass(member, UploadFile) for member in members)


def _is_file_type(annotation: Any) -> bool:
    return all(
        member is bytes or (isinstance(member, type) and issubclass(member, UploadFile))
        for member in _members(annotation)
    )


def _is_model(annotation: Any) -> bool:
    """A pydantic model (checked without importing pydantic: a model's class has it loaded)."""
    from .models import is_pydantic_model

    return is_pydantic_model(annotation)


def _is_request(annotation: Any) -> bool:
    if get_origin(annotation) in _UNIONS:
        return any(_is_request(arg) for arg in get_args(annotation) if arg is not type(None))
    # A Request, or a WebSocket on a WebSocket route: the connection itself.
    return isinstance(annotation, type) and issubclass(annotation, Connection)


def _accepts_none(annotation: Any) -> bool:
    return get_origin(annotation) in _UNIONS and type(None) in get_args(annotation)
