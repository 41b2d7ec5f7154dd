"""A form's model members as FastAPI documents them: their fields are the form's own.

``profile: Annotated[Profile, Form()]`` beside other form values reads ``Profile``'s fields
from the form itself, so the form's object schema holds the model in ``allOf`` rather than as
a member: the model (``$ref``), a union of models (with its discriminator), or, for a member
that may be absent, "none of the model's fields, or the model".
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from ..models import uses_pydantic
from ..param_models import model_fields
from ..params import Parameter
from .schemas import Schemas

__all__ = ["form_model_schema", "is_form_model"]


def is_form_model(parameter: Parameter) -> bool:
    """Whether a form parameter is a model, or a union of models (either may be absent)."""
    models = _models(parameter)
    return bool(models) and len(models) == len(_members(parameter.annotation))


def form_model_schema(parameter: Parameter, schemas: Schemas) -> dict[str, Any]:
    """The schema of a form model member, for the form object's ``allOf``."""
    members = _members(parameter.annotation)
    whole = members[0] if len(members) == 1 else typing.Union[tuple(members)]  # noqa: UP007
    discriminator = None if parameter.marker is None else parameter.marker.discriminator
    if discriminator is not None and uses_pydantic(whole):
        from pydantic import Field

        whole = typing.Annotated[whole, Field(discriminator=discriminator)]
    schema = schemas.schema(whole)
    title = parameter.name.replace("_", " ").title()
    if len(members) > 1:
        schema["title"] = title
    if type(None) not in typing.get_args(parameter.annotation):
        return schema
    fields = sorted({field.wire for model in members for field in model_fields(model)})
    absent = {"not": {"anyOf": [{"required": [name]} for name in fields]}}
    return {"anyOf": [absent, {"anyOf": [schema], "title": title}]}


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
