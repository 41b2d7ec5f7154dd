"""Parameter descriptions: where each argument of a handler comes from, and what it must be.

A handler's signature is read once, at registration, into ``Parameter`` descriptions (name,
source, type, default, constraints, ``Annotated`` metadata). Extractors are compiled from them
(``extractors.py``), and OpenAPI and dependency injection read them: one description, so they
cannot disagree. ``Query``, ``Path``, ``Header``, ``Cookie``, ``Body``, ``Form`` and ``File``
say where a value comes from when its type alone does not, and ``Depends`` names a dependency,
as in FastAPI.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import types
import typing
from collections.abc import Callable
from typing import Any, Final, Literal, TypedDict, Unpack, get_args, get_origin

import msgspec
import msgspec.inspect as mi

from .background import BackgroundTasks
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
]
DependencyScope = Literal["request", "app"]
Shape = Literal["scalar", "sequence", "structured", "unsupported"]

_UNIONS = (typing.Union, types.UnionType)
_CONSTRAINTS = ("gt", "ge", "lt", "le", "multiple_of", "min_length", "max_length", "pattern")
_DOCS = ("title", "description", "examples")


@dataclasses.dataclass(frozen=True)
class Marker:
    """Where a parameter comes from, with its constraints (msgspec's, as ``msgspec.Meta``)
    and documentation: what ``Query()``, ``Path()``, ``Header()``, ``Cookie()``, ``Body()``,
    ``Form()`` and ``File()`` return."""

    source: Source
    default: Any = MISSING
    _: dataclasses.KW_ONLY
    alias: str | None = None
    gt: float | None = None
    ge: float | None = None
    lt: float | None = None
    le: float | None = None
    multiple_of: float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    title: str | None = None
    description: str | None = None
    examples: list[Any] | None = None
    deprecated: bool = False
    include_in_schema: bool = True
    convert_underscores: bool = True  # headers: ``user_agent`` reads ``User-Agent``
    embed: bool = False  # body: read from the member of a JSON object named after it

    def meta(self) -> msgspec.Meta | None:
        """The constraints and documentation given, as msgspec enforces and documents them."""
        given = {
            name: getattr(self, name)
            for name in (*_CONSTRAINTS, *_DOCS)
            if getattr(self, name) is not None
        }
        return msgspec.Meta(**given) if given else None

    def wire_name(self, name: str) -> str:
        """The name the value has on the wire."""
        if self.source != "header":
            return self.alias or name
        if self.alias:
            return self.alias.lower()
        return name.replace("_", "-") if self.convert_underscores else name


class MarkerOptions(TypedDict, total=False):
    """The keywords every marker takes (``Marker``'s fields; a test holds them to it)."""

    alias: str | None
    gt: float | None
    ge: float | None
    lt: float | None
    le: float | None
    multiple_of: float | None
    min_length: int | None
    max_length: int | None
    pattern: str | None
    title: str | None
    description: str | None
    examples: list[Any] | None
    deprecated: bool
    include_in_schema: bool


# The markers are functions typed ``-> Any``, as FastAPI's are, so that ``x: int = Query(3)``
# type-checks; each returns a Marker.
def Query(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A query-string parameter (the default for a plain type not in the path)."""
    return Marker("query", default, **options)


def Path(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A path parameter (the default for a name in the route's path)."""
    return Marker("path", default, **options)


def Header(
    default: Any = MISSING, *, convert_underscores: bool = True, **options: Unpack[MarkerOptions]
) -> Any:
    """A request header: ``user_agent`` reads ``User-Agent``, unless ``convert_underscores``
    is False or an ``alias`` is given."""
    return Marker("header", default, convert_underscores=convert_underscores, **options)


def Cookie(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A cookie from the ``Cookie`` header."""
    return Marker("cookie", default, **options)


def Body(default: Any = MISSING, *, embed: bool = False, **options: Unpack[MarkerOptions]) -> Any:
    """The JSON body; with ``embed=True`` (or beside other body parameters), the member of a
    JSON object named after the parameter."""
    return Marker("body", default, embed=embed, **options)


def Form(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A field of a form body (urlencoded or multipart); on a model (``Annotated[Model,
    Form()]``), the whole form as that model."""
    return Marker("form", default, **options)


def File(default: Any = MISSING, **options: Unpack[MarkerOptions]) -> Any:
    """A file of a multipart body: ``UploadFile`` (streamed, spooled to disk when large) or
    ``bytes`` (read whole)."""
    return Marker("file", default, **options)


@dataclasses.dataclass(frozen=True)
class Dependency:
    """What ``Depends()`` returns: a callable whose result is the parameter's value.

    ``scope="request"`` (the default): called once per request (once in all, with
    ``use_cache``, however many parameters ask for it); a generator's code after ``yield``
    runs after the response is sent. ``scope="app"``: created once when the app starts and
    closed when it stops; it cannot take request parameters.
    """

    dependency: Callable[..., Any] | None = None
    _: dataclasses.KW_ONLY
    use_cache: bool = True
    scope: DependencyScope = "request"
    scopes: tuple[str, ...] = ()  # OAuth2 scopes a ``Security()`` dependency requires

    def __post_init__(self) -> None:
        if self.scope not in ("request", "app"):
            raise ValueError(f"Depends scope must be 'request' or 'app', not {self.scope!r}")
        if self.dependency is not None and not callable(self.dependency):
            raise TypeError(f"Depends() takes a callable, not {self.dependency!r}")


def Depends(
    dependency: Callable[..., Any] | None = None,
    *,
    use_cache: bool = True,
    scope: DependencyScope = "request",
) -> Any:
    """The parameter's value is what ``dependency`` returns (or yields); without one, the
    parameter's annotation is called. ``dependency`` takes parameters as a handler does."""
    return Dependency(dependency, use_cache=use_cache, scope=scope)


@dataclasses.dataclass(frozen=True, slots=True)
class Parameter:
    """One handler parameter, described: everything that reads a request, documents it or
    injects into it starts from here."""

    name: str  # the handler's argument
    source: Source
    annotation: Any  # the declared type, ``Annotated`` metadata removed
    default: Any = MISSING  # MISSING: required
    alias: str = ""  # the name on the wire: query key, header or cookie name, body member
    constraints: tuple[msgspec.Meta, ...] = ()  # enforced wherever the value comes from
    metadata: tuple[Any, ...] = ()  # every other ``Annotated`` extra, as declared
    marker: Marker | None = None
    embed: bool = False  # a body parameter read from a member of the JSON object
    dependency: Dependency | None = None  # source "dependency": what to call (resolved)

    @property
    def required(self) -> bool:
        return self.default is MISSING

    @property
    def validated_type(self) -> Any:
        """The type with its constraints attached, as msgspec converts and checks it (on the
        value itself: ``Annotated[str, Meta(...)] | None`` for ``str | None``)."""
        if not self.constraints:
            return self.annotation
        annotation = self.annotation
        if _accepts_none(annotation):
            members = tuple(arg for arg in get_args(annotation) if arg is not type(None))
            value = members[0] if len(members) == 1 else typing.Union[members]  # noqa: UP007
            return typing.Optional[typing.Annotated[(value, *self.constraints)]]  # noqa: UP045
        return typing.Annotated[(annotation, *self.constraints)]

    @property
    def shape(self) -> Shape:
        return shape_of(self.annotation)


def unwrap(handler: Callable[..., Any]) -> Callable[..., Any]:
    """The function that carries a handler's annotations: through partials, to ``__call__``."""
    while isinstance(handler, functools.partial):
        handler = handler.func
    if inspect.isfunction(handler) or inspect.ismethod(handler):
        return handler
    if inspect.isclass(handler):  # a class as a dependency: its __init__ takes the values
        init: Callable[..., Any] = handler.__init__
        return init
    call: Callable[..., Any] = type(handler).__call__
    return call


def describe_handler(handler: Callable[..., Any]) -> str:
    """``module.qualname`` of a handler, for messages and ``hasten routes``."""
    target = unwrap(handler)
    name = target.__qualname__.removesuffix(".__call__").removesuffix(".__init__")
    return f"{target.__module__}.{name}"


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
        hints = typing.get_type_hints(unwrap(handler), include_extras=True)
    except Exception as exc:
        raise TypeError(f"Cannot resolve the type annotations of {where}: {exc}") from exc
    described = [
        _describe_one(where, parameter, hints.get(name, MISSING), path_names)
        for name, parameter in inspect.signature(handler).parameters.items()
    ]
    _check_one_body_kind(where, described)
    bodies = [item for item in described if item.source == "body"]
    if len(bodies) > 1:
        # Several body parameters: each is a member of one JSON object, as in FastAPI.
        described = [
            dataclasses.replace(item, embed=True) if item.source == "body" else item
            for item in described
        ]
    taken = {item.name for item in described if item.source == "path"}
    missing = path_names - taken
    if takes_path and missing and not any(item.source == "request" for item in described):
        raise TypeError(f"{where} takes no parameter for path parameter(s) {sorted(missing)}")
    return tuple(described)


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
    constraints = tuple(extra for extra in extras if isinstance(extra, msgspec.Meta))
    if marker is not None and (meta := marker.meta()) is not None:
        constraints += (meta,)
    metadata = tuple(extra for extra in extras if not isinstance(extra, msgspec.Meta | Marker))
    source = _source(where, name, annotation, marker, path_names)
    if annotation is MISSING or annotation is Any:
        annotation = str if source in ("path", "query", "header", "cookie") else Any
    if default is MISSING and source != "body" and _accepts_none(annotation):
        default = None  # ``x: int | None`` may be absent, as in FastAPI
    alias = marker.wire_name(name) if marker is not None else name
    embed = marker is not None and marker.embed
    described = Parameter(
        name, source, annotation, default, alias, constraints, metadata, marker, embed
    )
    _check_readable(where, described)
    return described


def _dependency(
    where: str, name: str, annotation: Any, extras: tuple[Any, ...], default: Any
) -> Dependency | None:
    """The parameter's ``Depends()``, its callable resolved (the annotation, when not given)."""
    found = [extra for extra in extras if isinstance(extra, Dependency)]
    if isinstance(default, Dependency):
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
    """The parameter's marker, from ``Annotated`` or its default, and its real default."""
    markers = [extra for extra in extras if isinstance(extra, Marker)]
    if isinstance(default, Marker):
        markers.append(default)
    if len(markers) > 1:
        raise TypeError(f"{where}: parameter {name!r} has {len(markers)} sources; give one")
    if not markers:
        return None, default
    marker = markers[0]
    if marker is default:
        return marker, marker.default
    if marker.default is not MISSING:
        raise TypeError(
            f"{where}: parameter {name!r} gives its default inside {marker.source.title()}() "
            "within Annotated; give it as the parameter's default instead (= value)"
        )
    return marker, default


def _split_annotated(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    extras: tuple[Any, ...] = ()
    while get_origin(hint) is typing.Annotated:
        hint, *more = get_args(hint)
        extras = (*more, *extras)
    return hint, extras


def _source(
    where: str, name: str, annotation: Any, marker: Marker | None, path_names: frozenset[str]
) -> Source:
    if _is_request(annotation):
        if marker is not None:
            raise TypeError(f"{where}: parameter {name!r} is the Request; it takes no marker")
        return "request"
    if isinstance(annotation, type) and issubclass(annotation, BackgroundTasks):
        return "background"
    if marker is None and _is_upload(annotation):
        return "file"
    if marker is not None:
        if (marker.source == "path") != (name in path_names) and marker.alias is None:
            route_has = "has a" if name in path_names else "has no"
            raise TypeError(
                f"{where}: parameter {name!r} is declared {marker.source.title()}() but the "
                f"route {route_has} path parameter of that name"
            )
        return marker.source
    if name in path_names:
        return "path"
    if annotation is not MISSING and (
        shape_of(annotation) == "structured" or _is_model(annotation)
    ):
        return "body"
    return "query"


def _check_one_body_kind(where: str, described: list[Parameter]) -> None:
    sources = {item.source for item in described}
    if "body" in sources and sources & {"form", "file"}:
        raise TypeError(
            f"{where} reads both a JSON body and a form: a request has one body. Take the "
            "JSON members as Form() fields, or the form's values as Body() members."
        )


def _check_readable(where: str, parameter: Parameter) -> None:
    if parameter.source in ("request", "dependency", "background"):
        return
    if parameter.source == "file":
        if not _is_file_type(parameter.annotation):
            raise TypeError(
                f"{where}: parameter {parameter.name!r} is a File(): annotate it UploadFile, "
                "bytes, or a list of either (| None when optional)"
            )
        return
    if _is_model(parameter.annotation) and parameter.source in ("body", "form"):
        return  # a pydantic model: validated by pydantic
    try:
        mi.type_info(parameter.validated_type)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{where}: the constraints of parameter {parameter.name!r} do not fit its type: {exc}"
        ) from None
    if parameter.annotation is Any:
        return
    shape = parameter.shape
    if parameter.source in {"body", "form"}:
        ok = shape != "unsupported"
    elif parameter.source in ("query", "header"):
        ok = shape in ("scalar", "sequence")
    else:  # path and cookie values are single strings
        ok = shape == "scalar"
    if ok:
        return
    kind = getattr(parameter.annotation, "__qualname__", repr(parameter.annotation))
    raise TypeError(
        f"{where}: parameter {parameter.name!r} of type {kind} cannot be read from the "
        f"{parameter.source}. hasten reads path, query, header and cookie values as str, int, "
        "float, bool, UUID, Decimal, dates and times, enums or Literal (query and header "
        "values also as lists of them), and a JSON body as a msgspec Struct, dataclass, attrs "
        "class, TypedDict, dict or list. Use one of these types, or take the Request and read "
        "the value yourself."
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
