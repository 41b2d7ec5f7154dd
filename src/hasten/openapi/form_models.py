"""A form's model members as FastAPI documents them: their fields are the form's own.

``profile: Annotated[Profile, Form()]`` beside other form values reads ``Profile``'s fields
from the form itself, so the form's object schema holds the model in ``allOf`` rather than as
a member: the model (``$ref``), a union of models (with its discriminator), or, for a member
that may be absent, "none of the model's fields, or the model".
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import typing
from typing import Any

from hasten._params.descriptions import Parameter
from hasten._params.grouped import model_fields
from hasten._params.markers import alias_choices
from hasten._params.models import uses_pydantic
from hasten.openapi.schemas import Schemas

__all__ = ["form_model_schemas", "is_form_model", "may_be_absent"]


def is_form_model(parameter: Parameter) -> bool:
    """Whether a form parameter is a model, or a union of models (either may be absent)."""
    models = _models(parameter)
    return bool(models) and len(models) == len(_members(parameter.annotation))


def may_be_absent(parameter: Parameter) -> bool:
    """Whether a form model member may be absent (``Model | None``): FastAPI then documents
    even a lone one as a member of the form's object, with its ``absent`` alternative."""
    return type(None) in typing.get_args(parameter.annotation)


def form_model_schemas(parameter: Parameter, schemas: Schemas) -> list[dict[str, Any]]:
    """The schemas of a form model member, for the form object's ``allOf``, as FastAPI writes
    them: the model (a union of them titled by the parameter); one that may be absent is
    "none of its fields, or the model" (a required one: "not none of its fields", and the
    model)."""
    members = _members(parameter.annotation)
    title = parameter.name.replace("_", " ").title()
    discriminator = None if parameter.marker is None else parameter.marker.discriminator
    if discriminator is not None and any(map(uses_pydantic, members)):
        from pydantic import Field

        whole: Any = typing.Union[tuple(members)]  # noqa: UP007
        choices = [schemas.schema(typing.Annotated[whole, Field(discriminator=discriminator)])]
    else:
        choices = [schemas.schema(_with_its_names(member)) for member in members]
    if not may_be_absent(parameter):
        if len(choices) == 1:
            return choices
        return [{"anyOf": choices, "title": title}]
    schema = {"anyOf": choices, "title": title}
    absent = _absent(members)
    if parameter.required:
        return [{"not": absent}, schema]
    return [{"anyOf": [absent, schema]}]


def _with_its_names(model: Any) -> Any:
    """A pydantic model whose fields the form may give by other names than its schema's (an
    alias and its own name, ``AliasChoices``): documented as FastAPI documents it in a form,
    a copy of its schema naming each field by its first name, and each such required field
    as "one of its names"."""
    if not uses_pydantic(model) or not hasattr(model, "model_fields"):
        return model
    from pydantic import GetPydanticSchema

    described = functools.partial(_schema_with_names, model)
    return typing.Annotated[model, GetPydanticSchema(get_pydantic_json_schema=described)]


def _schema_with_names(model: Any, core_schema: Any, handler: Any) -> dict[str, Any]:
    schema: dict[str, Any] = handler(core_schema)
    resolved = handler.resolve_ref_schema(schema)
    properties = resolved.get("properties", {})
    required = resolved.get("required", [])
    names_of: dict[str, list[str]] = {}
    for field in model_fields(model):
        info = model.model_fields[field.name]
        choices = alias_choices(info.validation_alias)
        if choices is None:  # read by an AliasPath: its schema's name stands
            continue
        chosen = info.validation_alias
        shown = choices[0] if choices else (chosen if isinstance(chosen, str) else None)
        shown = shown or info.alias or field.name
        names = [wire for _, wire in field.aliases]
        if shown in properties and (names[0] != shown or (len(names) > 1 and shown in required)):
            names_of[shown] = names
    if not names_of:
        return schema
    copied: dict[str, Any] = copy.deepcopy(
        resolved
    )  # this form's only: the model's component stays
    copied["properties"] = {
        names_of.get(name, [name])[0]: value for name, value in properties.items()
    }
    copied["required"] = []
    for name in required:
        names = names_of.get(name, [name])
        if len(names) == 1:
            copied["required"].append(names[0])
        else:
            group = {"anyOf": [{"required": [each]} for each in names]}
            copied.setdefault("allOf", []).append(group)
    return copied


def _absent(models: list[Any]) -> dict[str, Any]:
    """A form without a model's values: none of its names (no names at all, where a model
    takes or forbids other names)."""
    configs = [getattr(model, "model_config", {}) for model in models]
    if any(config.get("extra") in ("allow", "forbid") for config in configs):
        return {"maxProperties": 0}
    names = sorted(
        {wire for model in models for field in model_fields(model) for _, wire in field.aliases}
    )
    return {"not": {"anyOf": [{"required": [name]} for name in names]}} if names else {}


def _members(annotation: Any) -> list[Any]:
    if typing.get_origin(annotation) in (typing.Union, type(int | None)):
        return [item for item in typing.get_args(annotation) if item is not type(None)]
    return [annotation]


def _models(parameter: Parameter) -> list[Any]:
    return [
        member
        for member in _members(parameter.annotation)
        if dataclasses.replace(parameter, annotation=member, source="form").is_model
    ]
