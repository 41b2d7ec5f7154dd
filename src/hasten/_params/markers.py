"""The markers that say where a handler parameter comes from, with FastAPI's keywords:
``Query()``, ``Path()``, ``Header()``, ``Cookie()``, ``Body()``, ``Form()``, ``File()`` and
``Param()`` return a ``Marker``; ``Depends()`` returns a ``Dependency``. ``params.describe`` reads
them, once, into each parameter's description.
"""

from __future__ import annotations

import dataclasses
import enum
import inspect
import re
import warnings
from collections.abc import Callable
from typing import Any, Final, Literal, TypedDict, Unpack

import msgspec

from hasten._running.concurrency import DependencyConcurrency

__all__ = [
    "CLASS_NAMES",
    "MISSING",
    "REQUEST_SOURCES",
    "Body",
    "Cookie",
    "Dependency",
    "DependencyScope",
    "Depends",
    "File",
    "Form",
    "Header",
    "Marker",
    "MarkerOptions",
    "Param",
    "ParamTypes",
    "Path",
    "Query",
    "Source",
    "alias_choices",
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
CLASS_NAMES: Final = {
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
            from hasten._http.errors import FastAPIDeprecationWarning

            warnings.warn(
                "`regex` has been deprecated, please use `pattern` instead",
                FastAPIDeprecationWarning,
                stacklevel=4,
            )
            if self.pattern is None:
                object.__setattr__(self, "pattern", self.regex)
        if self.example is not MISSING:
            from hasten._http.errors import FastAPIDeprecationWarning

            warnings.warn(
                "`example` has been deprecated, please use `examples` instead",
                FastAPIDeprecationWarning,
                stacklevel=4,
            )

    def __repr__(self) -> str:
        default = self.default
        shown = "PydanticUndefined" if default is MISSING or default is ... else default
        return f"{CLASS_NAMES[self.source]}({shown})"

    @property
    def in_(self) -> ParamTypes:
        """Where a path, query, header or cookie value is read, as FastAPI's ``in_`` says
        (a body's marker has none)."""
        try:
            return ParamTypes(self.source)
        except ValueError:
            raise AttributeError(f"{CLASS_NAMES[self.source]}() has no 'in_'") from None

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
