"""Models: pydantic v2 where it is installed, and response models that filter what is sent.

pydantic stays optional: nothing here imports it. A class is a pydantic model only if
``pydantic`` is already loaded (its models' module loaded it), and each model's
``TypeAdapter`` is built once, at registration.

A response model keeps what the client sees to the model's fields, recursively: a handler that
returns a ``UserInDB`` (a Struct, a dataclass, a dict or a pydantic model) for
``response_model=UserOut`` sends only ``UserOut``'s fields. A model holding pydantic models
validates and dumps the output with pydantic, by alias, as FastAPI does, and so does a
dataclass or TypedDict model where pydantic is installed; a Struct or attrs class model (which
pydantic cannot read) is filtered by msgspec, not validated unless the route asks for it
(``validate_response=True``). Bytes are sent as their text, as FastAPI sends them.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib.util
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec
import msgspec.inspect as mi

from hasten._http.errors import ResponseValidationError, validation_error
from hasten._http.json_out import (
    encode_hook,
    encode_json,
    encode_msgspec,
    may_hold_bytes,
    text_of_bytes,
)

__all__ = [
    "ResponseModel",
    "describable",
    "is_pydantic_model",
    "pydantic_adapter",
    "pydantic_errors",
    "response_model_for",
]

Filter = Callable[[Any], Any]
_NODEFAULT = object()


def is_pydantic_model(annotation: Any) -> bool:
    """Whether ``annotation`` is a pydantic model class (pydantic is never imported here)."""
    pydantic = sys.modules.get("pydantic")
    if pydantic is None or not isinstance(annotation, type):
        return False
    return issubclass(annotation, pydantic.BaseModel)


def pydantic_v1_model(annotation: Any) -> type | None:
    """The pydantic v1 model (``pydantic.v1.BaseModel``) ``annotation`` holds, if any, alone or
    in a union or a collection: hasten, as FastAPI, validates v2 models only."""
    origin = typing.get_origin(annotation)
    if origin is not None or isinstance(annotation, types.UnionType):
        for arg in typing.get_args(annotation):
            found = pydantic_v1_model(arg)
            if found is not None:
                return found
        return None
    if isinstance(annotation, type) and any(
        base.__module__.startswith("pydantic.v1") for base in annotation.__mro__
    ):
        return annotation
    return None


def uses_pydantic(annotation: Any) -> bool:
    """Whether ``annotation`` holds a pydantic model anywhere (``list[Model]``, ``X | None``)."""
    if is_pydantic_model(annotation):
        return True
    return any(uses_pydantic(arg) for arg in getattr(annotation, "__args__", ()))


def uses_msgspec(annotation: Any, seen: frozenset[int] = frozenset()) -> bool:
    """Whether ``annotation`` holds, anywhere (dataclass and TypedDict fields included),
    what only msgspec reads: a Struct, an attrs class, or a ``msgspec.Meta`` constraint."""
    if id(annotation) in seen:
        return False
    seen = seen | {id(annotation)}
    if isinstance(annotation, msgspec.Meta):
        return True
    if isinstance(annotation, type):
        if issubclass(annotation, msgspec.Struct) or hasattr(annotation, "__attrs_attrs__"):
            return True
        if dataclasses.is_dataclass(annotation) or typing.is_typeddict(annotation):
            try:
                hints = typing.get_type_hints(annotation, include_extras=True)
            except Exception:
                return False
            return any(uses_msgspec(hint, seen) for hint in hints.values())
    arguments = getattr(annotation, "__metadata__", ()) + getattr(annotation, "__args__", ())
    return any(uses_msgspec(arg, seen) for arg in arguments)


def describable(model: Any) -> bool:
    """Whether msgspec or pydantic can describe ``model`` (FastAPI refuses a response model
    pydantic cannot: a plain class, or a list of them)."""
    try:
        info = mi.type_info(model)
    except (TypeError, ValueError):  # two untagged Structs in one union, say
        info = None
    if info is not None and not _holds_custom(info, set()):
        return True
    if uses_msgspec(model):  # Structs, which msgspec sends by their runtime type
        return True
    if not pydantic_installed():
        return False
    try:
        pydantic_adapter(model)
    except Exception as exc:
        if type(exc).__module__.split(".")[0] != "pydantic":
            raise
        return False
    return True


def _holds_custom(info: mi.Type, seen: set[int]) -> bool:
    """Whether a type msgspec does not know itself is anywhere in ``info``."""
    if id(info) in seen:
        return False
    seen.add(id(info))
    if isinstance(info, mi.CustomType):
        return info.cls is not object  # ``object`` takes anything, as ``Any`` does
    inner: list[Any] = [getattr(info, name, None) for name in _INNER]
    inner += [field.type for field in getattr(info, "fields", ())]
    inner += [*getattr(info, "types", ()), *getattr(info, "item_types", ())]
    return any(isinstance(item, mi.Type) and _holds_custom(item, seen) for item in inner)


# The attributes of msgspec's type descriptions that hold one inner type.
_INNER = ("item_type", "key_type", "value_type")


def pydantic_adapter(annotation: Any) -> Any:
    """The ``TypeAdapter`` of ``annotation`` (pydantic is loaded, since a model uses it)."""
    from pydantic import TypeAdapter

    return TypeAdapter(annotation)


def pydantic_errors(exc: Any, prefix: tuple[str | int, ...]) -> list[dict[str, Any]]:
    """A pydantic ``ValidationError`` as entries of a 422, located under ``prefix``."""
    return [
        validation_error((*prefix, *error["loc"]), error["msg"], error["type"])
        for error in exc.errors(include_url=False)
    ]


@functools.cache
def pydantic_installed() -> bool:
    """Whether pydantic can be imported (it is not, by this)."""
    return importlib.util.find_spec("pydantic") is not None


# Bytes stay bytes in a response model's builtins, sent as their text at the end (FastAPI's).
_BYTES = (bytes, bytearray, memoryview)


def to_builtins(value: Any) -> Any:
    return msgspec.to_builtins(value, enc_hook=encode_hook, builtin_types=_BYTES)


Encode = Callable[[Any], bytes]
IncEx = set[int] | set[str] | Mapping[int, Any] | Mapping[str, Any]


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class DumpOptions:
    """How a response model is dumped (FastAPI's ``response_model_*`` keywords)."""

    include: IncEx | None = None
    exclude: IncEx | None = None
    by_alias: bool = True
    exclude_unset: bool = False
    exclude_defaults: bool = False
    exclude_none: bool = False


DEFAULT_DUMP = DumpOptions()


class ResponseModel:
    """A route's response model: filters (and, if asked, validates) what the handler returns
    before it is encoded."""

    __slots__ = ("_bytes", "_filter", "_options", "exact", "model", "validate")

    def __init__(
        self, model: Any, filter_: Filter, exact: type | None, validate: bool, options: DumpOptions
    ) -> None:
        self.model = model
        self._filter = filter_
        self._options = options
        # A result of exactly this class needs no filter (a Struct or dataclass without models
        # in its fields): it is encoded as it is.
        self.exact = None if validate or options != DEFAULT_DUMP else exact
        self.validate = validate
        self._bytes = may_hold_bytes(model)

    def keeps(self, kind: type) -> bool:
        """Whether ``prepare`` gives a result of exactly ``kind``, a scalar, back unchanged: the
        model is that scalar or a union with it (``str``, ``str | None``)."""
        return kind in (_plain_leaves(self.model) or ())

    def encode(self, result: Any) -> bytes:
        """The result as JSON, as the client may see it."""
        return encode_json(self.prepare(result))

    def prepare(self, result: Any) -> Any:
        """The result as the client may see it: builtins holding only the model's fields."""
        filtered = self._filter(to_builtins(result))
        if self.validate:
            try:
                msgspec.convert(filtered, self.model, strict=False)
            except msgspec.ValidationError as exc:
                raise ResponseValidationError(
                    [validation_error(("response",), str(exc), "model_type")], body=result
                ) from exc
        options = self._options
        if options.include is not None or options.exclude is not None:
            filtered = _pick(filtered, options.include, options.exclude)
        return text_of_bytes(filtered) if self._bytes else filtered


class PydanticResponseModel(ResponseModel):
    """A response model that holds a pydantic model: the result is validated by it and
    dumped by it, by alias by default, as FastAPI does; a result that does not fit is a
    ResponseValidationError (a 500), never a field quietly dropped."""

    __slots__ = ("_adapter", "_dump", "_to_json", "_validate", "encoder")

    def __init__(self, model: Any, options: DumpOptions) -> None:
        super().__init__(model, _as_is, None, True, options)
        self._adapter = pydantic_adapter(model)
        self._dump = dataclasses.asdict(options)
        # What a route sends its results with: ``encode``, or first a check that a result is
        # already of the plain JSON types the model names (``plain_encoder``).
        self.encoder: Callable[[Any], bytes] = self.encode
        if options == DEFAULT_DUMP:
            self.encoder = plain_encoder(model, self.encode) or self.encode
        # pydantic-core's own validator and serializer, taken at the first response (a model
        # whose forward references are defined later is complete by then).
        self._validate: Callable[..., Any] | None = None
        self._to_json: Callable[[Any], bytes] | None = None

    def prepare(self, result: Any) -> Any:
        return self._adapter.dump_python(self._validated(result), mode="json", **self._dump)

    def encode(self, result: Any) -> bytes:
        """Validated once and written by pydantic-core, as FastAPI writes it
        (``TypeAdapter.dump_json``: the model's own JSON settings hold, ``ser_json_inf_nan``,
        ...)."""
        validate, to_json = self._validate, self._to_json
        if validate is None or to_json is None:
            validate, to_json = self._bind()
        try:
            value = validate(result, from_attributes=True)
        except ValueError as exc:  # pydantic's ValidationError
            raise _invalid(exc, result) from exc
        return to_json(value)

    def _validated(self, result: Any) -> Any:
        validate = self._validate or self._bind()[0]
        try:
            return validate(result, from_attributes=True)
        except ValueError as exc:  # pydantic's ValidationError
            raise _invalid(exc, result) from exc

    def _bind(self) -> tuple[Callable[..., Any], Callable[[Any], bytes]]:
        # perf: pydantic-core's own methods, without TypeAdapter's frames around them.
        adapter = self._adapter
        self._validate = adapter.validator.validate_python
        serialize = adapter.serializer.to_json
        # The options as ``prepare`` reads them: copied when the route was made, so that a
        # set the app changes later changes neither.
        dump = self._dump
        include, exclude, by_alias = dump["include"], dump["exclude"], dump["by_alias"]
        unset, defaults = dump["exclude_unset"], dump["exclude_defaults"]
        none = dump["exclude_none"]

        # perf: the keywords passed as the call's own (vectorcall): a functools.partial of
        # them hands pydantic-core a dict to parse in each call, about 5,000 instructions
        # more a response (benchmarks/overhead.py, "pydantic body, response_model").
        def to_json(value: Any) -> bytes:
            written: bytes = serialize(
                value,
                include=include,
                exclude=exclude,
                by_alias=by_alias,
                exclude_unset=unset,
                exclude_defaults=defaults,
                exclude_none=none,
            )
            return written

        self._to_json = to_json
        return self._validate, self._to_json


_PLAIN = frozenset({str, int, float, bool, type(None)})


def plain_check(model: Any) -> Callable[[Any], bool] | None:
    """For a model made of plain JSON types only (``str``, ``int``, ``float``, ``bool``,
    ``None``, ``list[...]``, ``dict[str, ...]`` and unions of them), a check that a value is
    exactly of those types, so that validating it changes nothing; None for any other model.
    A subclass (a str enum, a bool for ``int``) fails the check and is left to pydantic."""
    leaves = _plain_leaves(model)
    if leaves is not None:
        return lambda value: type(value) in leaves
    origin, arguments = typing.get_origin(model), typing.get_args(model)
    if origin is list and len(arguments) == 1:
        return _list_check(arguments[0])
    if origin is dict and len(arguments) == 2 and arguments[0] is str:
        return _dict_check(arguments[1])
    if origin is typing.Union or origin is types.UnionType:
        members = [plain_check(argument) for argument in arguments]
        if any(member is None for member in members):
            return None
        checks = typing.cast("list[Callable[[Any], bool]]", members)
        return lambda value: any(check(value) for check in checks)
    return None


def _plain_leaves(model: Any) -> frozenset[type] | None:
    """The types of a scalar model or a union of scalars (``str | None``), else None."""
    if model is None:
        return frozenset({type(None)})
    if model in _PLAIN:
        return frozenset({model})
    if typing.get_origin(model) in (typing.Union, types.UnionType):
        members = [_plain_leaves(argument) for argument in typing.get_args(model)]
        if all(member is not None for member in members):
            return frozenset().union(*typing.cast("list[frozenset[type]]", members))
    return None


def plain_encoder(model: Any, otherwise: Encode) -> Encode | None:
    """For a model of plain JSON types, an encoder that sends a result already of those
    types as msgspec writes it, which is what pydantic would make of it and write (``hello ->
    dict[str, str]``: a few hundred instructions, where validating and dumping it costs
    6,500), and any other result by ``otherwise``; None for any other model."""
    leaves = _plain_leaves(model)
    origin, arguments = typing.get_origin(model), typing.get_args(model)
    # perf: a scalar, or a list or dict of scalars (the usual shapes), checked in one frame
    # by a loop; deeper shapes by plain_check's closures.
    if leaves is not None:
        return lambda value: encode_msgspec(value) if type(value) in leaves else otherwise(value)
    if origin is list and len(arguments) == 1 and (items := _plain_leaves(arguments[0])):
        return _list_encoder(items, otherwise)
    if origin is dict and arguments[:1] == (str,) and (values := _plain_leaves(arguments[1])):
        return _dict_encoder(values, otherwise)
    check = plain_check(model)
    if check is None:
        return None
    return lambda value: encode_msgspec(value) if check(value) else otherwise(value)


def _list_encoder(items: frozenset[type], otherwise: Encode) -> Encode:
    def encode_list(value: Any) -> bytes:
        if type(value) is not list:
            return otherwise(value)
        for element in value:
            if type(element) not in items:
                return otherwise(value)
        return encode_msgspec(value)

    return encode_list


def _dict_encoder(values: frozenset[type], otherwise: Encode) -> Encode:
    def encode_dict(value: Any) -> bytes:
        # perf: the keys walked and each value looked up by its key: ``value.items()`` makes
        # a view, an iterator and a tuple per item (hello's one-item dict: 550 instructions
        # more, a third of the check).
        if type(value) is dict:
            for key in value:
                if type(key) is not str or type(value[key]) not in values:
                    break
            else:
                return encode_msgspec(value)
        return otherwise(value)

    return encode_dict


def _list_check(item: Any) -> Callable[[Any], bool] | None:
    each = plain_check(item)
    if each is None:
        return None
    return lambda value: type(value) is list and all(map(each, value))


def _dict_check(item: Any) -> Callable[[Any], bool] | None:
    each = plain_check(item)
    if each is None:
        return None
    return lambda value: (
        type(value) is dict
        and all(type(key) is str for key in value)
        and all(map(each, value.values()))
    )


def _invalid(exc: ValueError, result: Any) -> ResponseValidationError:
    """A result the response model refuses: ResponseValidationError with pydantic's entries
    located under ``response`` (a ValueError that is not pydantic's is raised again)."""
    errors = getattr(exc, "errors", None)
    if errors is None:
        raise exc
    return ResponseValidationError(
        [{**error, "loc": ("response", *error["loc"])} for error in errors(include_url=False)],
        body=result,
    )


def response_model_for(
    model: Any, validate: bool, options: DumpOptions = DEFAULT_DUMP
) -> ResponseModel | None:
    """The ResponseModel of ``model``, or None when there is nothing to keep to or validate
    (``dict``, ``list[Any]``; ``int`` or ``list[int]`` without pydantic)."""
    if uses_pydantic(model):
        return PydanticResponseModel(model, options)
    filter_ = _filter(model, options)
    pydantic_reads = not uses_msgspec(model) and pydantic_v1_model(model) is None
    if (filter_ is not None or not _takes_any(model)) and pydantic_reads and pydantic_installed():
        # Any other type (a dataclass or TypedDict, pydantic's own dataclasses too, and
        # ``int``, ``list[int]``, ``str``) is validated and dumped by pydantic where it is
        # installed, as FastAPI does: ``"3"`` for ``-> int`` or ``"1.0"`` for a float field is
        # sent as a number, a value that does not fit is a 500 (it was sent as it was: 200
        # ``"x"`` for ``-> int``); a Struct or attrs class (which pydantic cannot read) is
        # kept to its fields by msgspec; a pydantic v1 model is refused at registration.
        try:
            return PydanticResponseModel(model, options)
        except Exception as exc:  # a type pydantic refuses (typing.TypedDict before 3.12)
            if type(exc).__module__.split(".")[0] != "pydantic":
                raise
    if filter_ is None and not validate and options.include is None and options.exclude is None:
        return None
    exact = model if _is_flat_record(model) else None
    return ResponseModel(model, filter_ or _as_is, exact, validate, options)


# What a result of these types may hold is sent as it is: validating it changes nothing.
_ANY_OF = (dict, list, tuple, set, frozenset, Mapping, Sequence)


def _takes_any(model: Any) -> bool:
    """Whether ``model`` takes any JSON data as it is (``Any``, ``dict``, ``list[Any]``,
    ``dict[str, Any]``): no validation to do."""
    if model is Any or model is object:
        return True
    origin = typing.get_origin(model) or model
    if origin not in _ANY_OF:
        return False
    arguments = [arg for arg in typing.get_args(model) if arg is not Ellipsis]
    return all(arg is Any or arg is object or arg is str for arg in arguments) and (
        not arguments or arguments[-1] is Any or arguments[-1] is object
    )


def _pick(value: Any, include: IncEx | None, exclude: IncEx | None) -> Any:
    """``value`` keeping what ``include`` names and dropping what ``exclude`` names, as
    pydantic reads them: a dict's keys, a list's indices (``"__all__"``: every item), and a
    mapping names what to keep or drop inside each."""
    if isinstance(value, list):
        items: Any = dict(enumerate(value))
    elif isinstance(value, dict):
        items = value
    else:
        return value
    picked = {}
    for key, item in items.items():
        inner_include = _inner(include, key)
        if include is not None and inner_include is None:
            continue
        inner_exclude = _inner(exclude, key)
        if inner_exclude is True:
            continue
        inner = (
            None if inner_include is True else inner_include,
            None if inner_exclude is None else inner_exclude,
        )
        picked[key] = item if inner == (None, None) else _pick(item, *inner)
    return list(picked.values()) if isinstance(value, list) else picked


def _inner(names: Mapping[Any, Any] | set[Any] | None, key: Any) -> Any:
    """What ``names`` says of ``key``: True (all of it), a set or mapping (part of it), or
    None (nothing)."""
    if names is None:
        return None
    if isinstance(names, Mapping):
        found = names.get(key, names.get("__all__"))
        if found is None:
            return None
        return found if isinstance(found, set | Mapping) else True
    return True if key in names or "__all__" in names else None


def _as_is(value: Any) -> Any:
    return value


def _is_flat_record(model: Any) -> bool:
    """A Struct or dataclass whose fields hold no model: its own encoding is already filtered."""
    if not isinstance(model, type) or is_pydantic_model(model):
        return False
    try:
        info = mi.type_info(model)
    except (TypeError, ValueError):
        return False
    if not isinstance(info, mi.StructType | mi.DataclassType):
        return False
    return all(_filter_info(field.type, _Build(DEFAULT_DUMP)) is None for field in info.fields)


@dataclasses.dataclass(slots=True)
class _Build:
    """What building one model's filter carries: its dump options, and the models already
    being built (a model that holds itself)."""

    options: DumpOptions
    seen: dict[int, list[Filter]] = dataclasses.field(default_factory=dict)


def _filter(model: Any, options: DumpOptions = DEFAULT_DUMP) -> Filter | None:
    if is_pydantic_model(model):
        return _pydantic_filter(model, _Build(options))
    try:
        info = mi.type_info(model)
    except (TypeError, ValueError):
        return None
    return _filter_info(info, _Build(options))


def _filter_info(info: mi.Type, build: _Build) -> Filter | None:
    if isinstance(info, mi.StructType | mi.DataclassType | mi.TypedDictType):
        return _fields_filter(info, build)
    if isinstance(info, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        item = _filter_info(info.item_type, build)
        return None if item is None else _sequence_filter(item)
    if isinstance(info, mi.DictType):
        value = _filter_info(info.value_type, build)
        return None if value is None else _mapping_filter(value)
    if isinstance(info, mi.UnionType):
        return _union_filter(info, build)
    if isinstance(info, mi.CustomType) and is_pydantic_model(info.cls):
        return _pydantic_filter(info.cls, build)
    return None


def _union_filter(info: mi.UnionType, build: _Build) -> Filter | None:
    members = [_filter_info(member, build) for member in info.types]
    found = [member for member in members if member is not None]
    if not found:
        return None
    return found[0] if len(found) == 1 else _first_fitting(tuple(found))


def _fields_filter(
    info: mi.StructType | mi.DataclassType | mi.TypedDictType, build: _Build
) -> Filter:
    if id(info) in build.seen:  # a model that holds itself: filtered by the filter being built
        cell = build.seen[id(info)]

        def later(value: Any) -> Any:
            return cell[0](value)

        return later
    cell = build.seen[id(info)] = []
    fields = []
    for field in info.fields:
        default: Any = _NODEFAULT
        if field.default is not msgspec.NODEFAULT:
            default = to_builtins(field.default)
        elif field.default_factory is not msgspec.NODEFAULT:
            default = field.default_factory
        fields.append((field.encode_name, _filter_info(field.type, build), default))
    cell.append(_record_filter(tuple(fields), build.options))
    return cell[0]


def _pydantic_filter(model: Any, build: _Build) -> Filter:
    fields = []
    for name, field in model.model_fields.items():
        default: Any = _NODEFAULT
        if not field.is_required():
            if field.default_factory is not None:
                default = field.default_factory
            else:
                default = to_builtins(field.default)
        key = field.serialization_alias or field.alias or name
        inner = _filter(field.annotation, build.options) if field.annotation else None
        fields.append((key, inner, default))
    return _record_filter(tuple(fields), build.options)


def _record_filter(
    fields: tuple[tuple[str, Filter | None, Any], ...], options: DumpOptions
) -> Filter:
    # A key the value lacks is unset: its default is filled in unless unset or default
    # fields are left out.
    fill_defaults = not (options.exclude_unset or options.exclude_defaults)
    exclude_none, exclude_defaults = options.exclude_none, options.exclude_defaults

    def keep_fields(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        kept = {}
        for name, inner, default in fields:
            if name in value:
                item = value[name]
                if (exclude_none and item is None) or (
                    exclude_defaults and default is not _NODEFAULT and item == _value(default)
                ):
                    continue
                kept[name] = inner(item) if inner is not None and item is not None else item
            elif fill_defaults and default is not _NODEFAULT:
                kept[name] = _value(default)
        return kept

    keep_fields.names = frozenset(name for name, _, _ in fields)  # type: ignore[attr-defined]
    return keep_fields


def _value(default: Any) -> Any:
    """A field's default as builtins (a factory called)."""
    return to_builtins(default()) if callable(default) else default


def _sequence_filter(item: Filter) -> Filter:
    def each(value: Any) -> Any:
        if not isinstance(value, list):
            return value
        return [item(element) for element in value]

    return each


def _mapping_filter(inner: Filter) -> Filter:
    def each_value(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        return {key: inner(element) for key, element in value.items()}

    return each_value


def _first_fitting(filters: tuple[Filter, ...]) -> Filter:
    """A union of models: the first whose fields the value has all of, else the first."""

    def fitting(value: Any) -> Any:
        if isinstance(value, dict):
            for candidate in filters:
                names = getattr(candidate, "names", None)
                if names is not None and names <= value.keys():
                    return candidate(value)
        return filters[0](value)

    return fitting
