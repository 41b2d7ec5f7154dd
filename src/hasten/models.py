"""Models: pydantic v2 where it is installed, and response models that filter what is sent.

pydantic stays optional: nothing here imports it. A class is a pydantic model only if
``pydantic`` is already loaded (its models' module loaded it), and each model's
``TypeAdapter`` is built once, at registration.

A response model keeps what the client sees to the model's fields, recursively: a handler that
returns a ``UserInDB`` (a Struct, a dataclass, a dict or a pydantic model) for
``response_model=UserOut`` sends only ``UserOut``'s fields. The output is filtered, not
validated, unless the route asks for it (``validate_response=True``).
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Callable
from typing import Any

import msgspec
import msgspec.inspect as mi

from .errors import validation_error

__all__ = [
    "ResponseModel",
    "encode_hook",
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


def encode_hook(value: Any) -> Any:
    """What msgspec cannot encode by itself: a pydantic model, as its JSON-mode dump; a
    ``str`` subclass (a ``URL``) as its text."""
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(mode="json")
    if isinstance(value, str):
        return str(value)
    raise NotImplementedError(f"Objects of type {type(value).__name__} are not JSON encodable")


def to_builtins(value: Any) -> Any:
    return msgspec.to_builtins(value, enc_hook=encode_hook)


class ResponseModel:
    """A route's response model: filters (and, if asked, validates) what the handler returns
    before it is encoded."""

    __slots__ = ("_adapter", "_filter", "exact", "model", "validate")

    def __init__(self, model: Any, filter_: Filter, exact: type | None, validate: bool) -> None:
        self.model = model
        self._filter = filter_
        # A result of exactly this class needs no filter (a Struct or dataclass without models
        # in its fields): it is encoded as it is.
        self.exact = None if validate else exact
        self.validate = validate
        self._adapter = pydantic_adapter(model) if validate and uses_pydantic(model) else None

    def prepare(self, result: Any) -> Any:
        """The result as the client may see it: builtins holding only the model's fields."""
        filtered = self._filter(to_builtins(result))
        if not self.validate:
            return filtered
        try:
            if self._adapter is not None:
                return self._adapter.dump_python(
                    self._adapter.validate_python(filtered), mode="json"
                )
            return msgspec.convert(filtered, self.model, strict=False)
        except Exception as exc:
            raise ResponseValidationError(self.model, exc) from exc


class ResponseValidationError(Exception):
    """The handler's result does not fit its response model (``validate_response=True``):
    a 500, logged."""

    def __init__(self, model: Any, cause: Exception) -> None:
        name = getattr(model, "__qualname__", repr(model))
        super().__init__(f"The response does not match its model {name}: {cause}")


def response_model_for(model: Any, validate: bool) -> ResponseModel | None:
    """The ResponseModel of ``model``, or None when it has no fields to keep to (``dict``,
    ``list[int]``, ``str``) and nothing to validate."""
    filter_ = _filter(model)
    if filter_ is None and not validate:
        return None
    exact = model if _is_flat_record(model) else None
    return ResponseModel(model, filter_ or _as_is, exact, validate)


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
    return all(_filter_info(field.type, {}) is None for field in info.fields)


def _filter(model: Any) -> Filter | None:
    if is_pydantic_model(model):
        return _pydantic_filter(model)
    try:
        info = mi.type_info(model)
    except (TypeError, ValueError):
        return None
    return _filter_info(info, {})


def _filter_info(info: mi.Type, seen: dict[int, list[Filter]]) -> Filter | None:
    if isinstance(info, mi.StructType | mi.DataclassType | mi.TypedDictType):
        return _fields_filter(info, seen)
    if isinstance(info, mi.ListType | mi.SetType | mi.FrozenSetType | mi.VarTupleType):
        item = _filter_info(info.item_type, seen)
        return None if item is None else _sequence_filter(item)
    if isinstance(info, mi.DictType):
        value = _filter_info(info.value_type, seen)
        return None if value is None else _mapping_filter(value)
    if isinstance(info, mi.UnionType):
        return _union_filter(info, seen)
    if isinstance(info, mi.CustomType) and is_pydantic_model(info.cls):
        return _pydantic_filter(info.cls)
    return None


def _union_filter(info: mi.UnionType, seen: dict[int, list[Filter]]) -> Filter | None:
    members = [_filter_info(member, seen) for member in info.types]
    found = [member for member in members if member is not None]
    if not found:
        return None
    return found[0] if len(found) == 1 else _first_fitting(tuple(found))


def _fields_filter(
    info: mi.StructType | mi.DataclassType | mi.TypedDictType, seen: dict[int, list[Filter]]
) -> Filter:
    if id(info) in seen:  # a model that holds itself: filtered by the filter being built
        cell = seen[id(info)]

        def later(value: Any) -> Any:
            return cell[0](value)

        return later
    cell = seen[id(info)] = []
    fields = []
    for field in info.fields:
        default: Any = _NODEFAULT
        if field.default is not msgspec.NODEFAULT:
            default = to_builtins(field.default)
        elif field.default_factory is not msgspec.NODEFAULT:
            default = field.default_factory
        fields.append((field.encode_name, _filter_info(field.type, seen), default))
    cell.append(_record_filter(tuple(fields)))
    return cell[0]


def _pydantic_filter(model: Any) -> Filter:
    fields = []
    for name, field in model.model_fields.items():
        default: Any = _NODEFAULT
        if not field.is_required():
            if field.default_factory is not None:
                default = field.default_factory
            else:
                default = to_builtins(field.default)
        key = field.serialization_alias or field.alias or name
        fields.append((key, _filter(field.annotation) if field.annotation else None, default))
    return _record_filter(tuple(fields))


def _record_filter(fields: tuple[tuple[str, Filter | None, Any], ...]) -> Filter:
    def keep_fields(value: Any) -> Any:
        if not isinstance(value, dict):
            return value
        kept = {}
        for name, inner, default in fields:
            if name in value:
                item = value[name]
                kept[name] = inner(item) if inner is not None and item is not None else item
            elif default is not _NODEFAULT:
                kept[name] = to_builtins(default()) if callable(default) else default
        return kept

    keep_fields.names = frozenset(name for name, _, _ in fields)  # type: ignore[attr-defined]
    return keep_fields


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
