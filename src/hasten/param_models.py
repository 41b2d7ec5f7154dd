"""Parameter models: query, header, cookie or form values read as one model's fields.

``Annotated[Filters, Query()]`` reads each field of ``Filters`` from its own query value, as
FastAPI 0.165 does, and so does ``Filters | None``: None when the request gives none of the
model's fields, the model (or its 422) as soon as it gives one. On a form, a union of
pydantic models (``Person | Company``) reads the form too: each member takes the form's values
as its own fields, and pydantic picks the member (by the marker's ``discriminator``, if any),
so that a missing field is located under its member (``["body", "person", "name"]``).
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from typing import Any

import msgspec.inspect as mi

from .datastructures import Headers, QueryParams
from .forms import FormData
from .models import is_pydantic_model
from .params import Parameter
from .validation import Errors, sequence_item

__all__ = ["FlatModel", "model_fields"]

# A model field as read: the key the model validates it by, its name on the wire, and
# whether it holds a list.
Field = tuple[str, str, bool]


class FlatModel:
    """One parameter model, read from flat values: its input gathered from what the request
    has, the parameter as it is validated, and its errors located as FastAPI locates them."""

    __slots__ = ("_fields", "_nullable", "_own", "_renamed", "_takes_extras", "parameter")

    def __init__(self, parameter: Parameter) -> None:
        models = parameter.models
        assert models, f"{parameter.name!r} is not a parameter model"
        marker = parameter.marker
        header = parameter.source == "header" and (marker is None or marker.convert_underscores)
        fields_of = {model: model_fields(model, header=header) for model in models}
        # Each member of a union reads the whole form itself (``_member_input``).
        self._fields = fields_of[models[0]] if len(models) == 1 else []
        self._own = frozenset(wire for fields in fields_of.values() for _, wire, _ in fields)
        self._nullable = type(None) in typing.get_args(parameter.annotation)
        self._takes_extras = any(_takes_extras(model) for model in models)
        # FastAPI names a header by the header's name in its errors (``save-data``), where
        # the model names it by its field (``save_data``).
        self._renamed = {
            key: wire
            for key, wire, _ in self._fields
            if header and _loc_by_alias(models[0]) and "_" in key
            if wire == key.replace("_", "-").lower()
        }
        self.parameter = parameter if len(models) == 1 else _with_members(parameter, fields_of)

    def gather(self, found: Any) -> dict[str, Any] | None:
        """The model's input from ``found`` (query, headers, cookies or form): each field by
        its name on the wire, then every other name; None for a model that may be absent
        (``| None``) when none of its fields is there (nor, for a model that takes or forbids
        extra names, any other)."""
        data = _gather(self._fields, found)
        if self._nullable and not (self._takes_extras and data) and not self._given(found):
            return None
        return data

    def _given(self, found: Any) -> bool:
        return any(wire in found for wire in self._own)

    def relocate(self, errors: Errors) -> Errors:
        """``errors`` located by the names the request uses (see ``_renamed``)."""
        for error in errors:
            loc = error["loc"]
            if len(loc) > 1 and loc[1] in self._renamed:
                error["loc"] = (loc[0], self._renamed[loc[1]], *loc[2:])
        return errors


def _gather(fields: list[Field], found: Any) -> dict[str, Any]:
    data: dict[str, Any] = {}
    taken = set()
    for key, wire, many in fields:
        taken.add(wire)
        if wire not in found:
            continue
        value = _all_of(found, wire) if many else _one_of(found, wire)
        if value is None or (value == "" and isinstance(found, FormData)) or value == []:
            continue
        data[key] = value
    for wire, value in _extras(found, taken):
        data[wire] = value
    return data


def _with_members(parameter: Parameter, fields_of: dict[Any, list[Field]]) -> Parameter:
    """The parameter of a union of form models, each member reading its own fields from the
    whole form before pydantic validates it, and named by its class in pydantic's errors."""
    from pydantic import BeforeValidator, Tag

    members: list[Any] = [
        typing.Annotated[
            model,
            BeforeValidator(functools.partial(_member_input, fields)),
            Tag(model.__name__),
        ]
        for model, fields in fields_of.items()
    ]
    if type(None) in typing.get_args(parameter.annotation):
        members.append(type(None))
    return dataclasses.replace(parameter, annotation=typing.Union[tuple(members)])  # noqa: UP007


def _member_input(fields: list[Field], value: Any) -> Any:
    """One member's input from the whole form's (a value, or a list for a repeated name)."""
    if not isinstance(value, dict):
        return value
    pairs = [
        (key, item)
        for key, items in value.items()
        for item in (items if isinstance(items, list) else [items])
    ]
    return _gather(fields, FormData(pairs))


def _takes_extras(model: Any) -> bool:
    """Whether the model takes or forbids names it does not declare (rather than ignore
    them): then any such name gives the model."""
    if is_pydantic_model(model):
        return model.model_config.get("extra") in ("allow", "forbid")
    config = getattr(model, "__struct_config__", None)
    return bool(config is not None and config.forbid_unknown_fields)


def _loc_by_alias(model: Any) -> bool:
    return not is_pydantic_model(model) or bool(model.model_config.get("loc_by_alias", True))


def _one_of(found: Any, wire: str) -> Any:
    if isinstance(found, QueryParams | FormData):
        values = found.get_all(wire)
        return values[-1] if values else None
    return found.get(wire)


def _all_of(found: Any, wire: str) -> Any:
    if isinstance(found, QueryParams | Headers | FormData):
        return found.get_all(wire)
    value = found.get(wire)
    return None if value is None else [value]


def _extras(found: Any, taken: set[str]) -> list[tuple[str, Any]]:
    """Every other name of ``found``: one value, or a list when it repeats."""
    grouped: dict[str, list[Any]] = {}
    if isinstance(found, QueryParams | FormData):
        items = found.multi_items()
    elif isinstance(found, Headers):
        items = found.raw()
    else:
        items = list(found.items())
    for key, value in items:
        if key not in taken:
            grouped.setdefault(key, []).append(value)
    return [(key, found[0] if len(found) == 1 else found) for key, found in grouped.items()]


def model_fields(model: Any, *, header: bool = False) -> list[Field]:
    """Each field of a parameter model: the key the model validates it by, its name on the
    wire (a header's with ``_`` as ``-``), and whether it holds a list."""
    fields = []
    if is_pydantic_model(model):
        for name, field in model.model_fields.items():
            key = field.validation_alias if isinstance(field.validation_alias, str) else None
            key = key or field.alias or name
            wire = key if field.alias or not header else name.replace("_", "-")
            many = sequence_item(field.annotation) is not None
            fields.append((key, wire.lower() if header else wire, many))
        return fields
    info = mi.type_info(model)
    for item in getattr(info, "fields", ()):
        key = item.encode_name
        wire = key.replace("_", "-") if header else key
        many = isinstance(item.type, mi.ListType | mi.SetType | mi.FrozenSetType)
        fields.append((key, wire.lower() if header else wire, many))
    return fields
