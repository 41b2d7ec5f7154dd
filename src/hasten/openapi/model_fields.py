"""A parameter model's fields, documented one parameter each, as FastAPI documents them.

``Annotated[Filters, Query()]`` reads each field of ``Filters`` from its own query value, so
the document lists each field as a parameter of the operation (the model itself is no
component). A pydantic field keeps its constraints and default through its ``FieldInfo``; a
Struct's, dataclass's or TypedDict's field, through its annotation and default.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import msgspec
import msgspec.inspect as mi

from hasten._params.descriptions import Parameter
from hasten._params.grouped import model_fields
from hasten._params.markers import MISSING
from hasten._params.models import is_pydantic_model

__all__ = ["ModelField", "documented_fields", "model_of"]


@dataclasses.dataclass(frozen=True, slots=True)
class ModelField:
    """One field of a parameter model, as the document lists it."""

    wire: str  # its name in the query, header or cookie
    key: str  # its name in the model (its alias, if it has one)
    annotation: Any  # its type, with what its schema says (constraints, default)
    required: bool
    description: str | None
    default: Any = MISSING  # documented as the schema's default (pydantic's says its own)


def model_of(parameter: Parameter) -> tuple[Any, bool] | None:
    """The model of a parameter model, and whether it may be absent (``Filters | None`` with
    a default: without one, it is required, and so are its required fields); None for any
    other parameter."""
    models = parameter.models
    if len(models) != 1:
        return None
    return models[0], models[0] is not parameter.annotation and not parameter.required


def documented_fields(parameter: Parameter) -> list[ModelField]:
    """The fields of ``parameter``'s model (see ``model_of``), in the model's order, by their
    names on the wire: none is required when the whole model may be absent."""
    found = model_of(parameter)
    assert found is not None, "documented_fields is for parameter models"
    model, optional = found
    fields = _fields(parameter, model)
    if optional:
        return [dataclasses.replace(field, required=False) for field in fields]
    return fields


def _fields(parameter: Parameter, model: Any) -> list[ModelField]:
    marker = parameter.marker
    header = parameter.source == "header" and (marker is None or marker.convert_underscores)
    names = [(field.key, field.wire) for field in model_fields(model, header=header)]
    if is_pydantic_model(model):
        return [
            # pydantic reads a FieldInfo in Annotated: its constraints, default and description.
            # A header's name is documented as written, as FastAPI does (it is looked up by
            # its lower case).
            ModelField(
                wire,
                key,
                typing.Annotated[field.annotation, _without_aliases(field)],
                field.is_required(),
                field.description,
            )
            for (key, wire), field in zip(names, model.model_fields.values(), strict=True)
        ]
    hints = typing.get_type_hints(model, include_extras=True)
    found = []
    for (key, wire), field in zip(names, getattr(mi.type_info(model), "fields", ()), strict=True):
        default = MISSING if field.default is msgspec.NODEFAULT else field.default
        found.append(ModelField(wire, key, hints[field.name], field.required, None, default))
    return found


_ALIASES = ("alias", "validation_alias", "serialization_alias")


def _without_aliases(field: Any) -> Any:
    """A pydantic FieldInfo without its aliases, which pydantic warns of outside a model
    (the parameter is named by its alias already)."""
    if all(getattr(field, name) is None for name in _ALIASES):
        return field
    from pydantic.fields import FieldInfo

    return FieldInfo.merge_field_infos(field, alias_priority=None, **dict.fromkeys(_ALIASES, None))
