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

from hasten._http.datastructures import Headers, QueryParams
from hasten._http.forms import FormData
from hasten._http.uploads import UploadFile
from hasten._params.descriptions import Parameter
from hasten._params.markers import alias_choices
from hasten._params.models import is_pydantic_model
from hasten._params.shapes import is_json, is_sequence
from hasten._params.validation import Errors

__all__ = ["FlatModel", "ModelField", "model_fields"]


@dataclasses.dataclass(frozen=True, slots=True)
class ModelField:
    """One field of a parameter model, as it is read from flat values."""

    name: str  # the field's own name in the model
    # (the key the model validates it by, its name on the wire), in FastAPI's order of
    # preference: the first the request has is read.
    aliases: tuple[tuple[str, str], ...]
    many: bool  # it holds a list: every value of a repeated name

    @property
    def key(self) -> str:
        """The key the model validates it by when the request gives none of its names."""
        return self.aliases[0][0]

    @property
    def wire(self) -> str:
        """Its first name on the wire (the name the document and a missing error give)."""
        return self.aliases[0][1]


class FlatModel:
    """One parameter model, read from flat values: its input gathered from what the request
    has, the parameter as it is validated, and its errors located as FastAPI locates them."""

    __slots__ = (
        "_fields",
        "_form",
        "_loc_by_alias",
        "_nullable",
        "_own",
        "_plain_query",
        "_query",
        "_takes_extras",
        "parameter",
    )

    def __init__(self, parameter: Parameter) -> None:
        models = parameter.models
        assert models, f"{parameter.name!r} is not a parameter model"
        marker = parameter.marker
        header = parameter.source == "header" and (marker is None or marker.convert_underscores)
        fields_of = {model: model_fields(model, header=header) for model in models}
        self._form = parameter.source == "form"
        self._query = parameter.source == "query"
        # Each member of a union reads the whole form itself (``_member_input``).
        self._fields = fields_of[models[0]] if len(models) == 1 else []
        self._own = frozenset(
            wire for fields in fields_of.values() for field in fields for _, wire in field.aliases
        )
        self._nullable = type(None) in typing.get_args(parameter.annotation)
        self._takes_extras = any(_takes_extras(model) for model in models)
        # FastAPI names a header by the header's name in its errors (``save-data``), where
        # the model names it by its field (``save_data``).
        self._loc_by_alias = parameter.source == "header" and _loc_by_alias(models[0])
        self.parameter = parameter if len(models) == 1 else _with_members(parameter, fields_of)
        # A pydantic model reads its input field by field (msgspec in the input's order,
        # which its first error would show): see ``gather``.
        plain = self._query and len(models) == 1 and is_pydantic_model(models[0])
        self._plain_query = _plain_names(self._fields) if plain else None

    def gather(self, found: Any) -> tuple[dict[str, Any] | None, dict[str, str]]:
        """The model's input from ``found`` (query, headers, cookies or form): each field by
        the first of its names the request has, then every other name; None for a model that
        may be absent (``| None``) when none of its names is there (nor, for a model that
        takes or forbids extra names, any other). With it, the header names its errors are
        located by (see ``relocate``)."""
        renamed: dict[str, str] = {}
        if self._form:
            data = _gather_form(self._fields, found)
        elif self._plain_query is not None and self._plain_query.issuperset(found._last):
            # perf: a query of the model's own names, each field read by one name: its dict
            # of last values is the model's input as it is (one C call for what
            # ``_gather_query`` does name by name, ~8,000 instructions for ten fields).
            # pydantic reads its input field by field, so the order of the names changes
            # nothing; tests/project/test_perf_copies.py holds the two equal.
            data = found._last.copy()
        elif self._query:
            data = _gather_query(self._fields, found)
        else:
            data, renamed = _gather(self._fields, found)
        if self._nullable and not (self._takes_extras and data) and not self._given(found):
            return None, renamed
        return data, renamed if self._loc_by_alias else {}

    def _given(self, found: Any) -> bool:
        return any(wire in found for wire in self._own)

    @staticmethod
    def relocate(errors: Errors, renamed: dict[str, str]) -> Errors:
        """``errors`` located by the header names the request used (``renamed``: by field
        name)."""
        if renamed:
            for error in errors:
                loc = error["loc"]
                if len(loc) > 1 and loc[1] in renamed:
                    error["loc"] = (loc[0], renamed[loc[1]], *loc[2:])
        return errors


def _gather(fields: list[ModelField], found: Any) -> tuple[dict[str, Any], dict[str, str]]:
    """FastAPI's reading of a query, header or cookie model: each field by the first of its
    names ``found`` has (the first name if none), each name read marked taken (a header's
    own field name too, which is never an extra), then every name not taken."""
    headers = isinstance(found, Headers)
    data: dict[str, Any] = {}
    taken = set()
    renamed: dict[str, str] = {}
    for field in fields:
        key, wire = next((pair for pair in field.aliases if pair[1] in found), field.aliases[0])
        value = _value_of(found, wire, field.many)
        if value is not _ABSENT:
            data[key] = value
        if headers:
            taken.add(wire.lower())
            taken.update(key.lower() for key, name in field.aliases if key != name)
            if key != wire:
                renamed[field.name] = wire
        else:
            taken.add(wire)
    for wire, value in _extras(found, taken):
        data[wire] = value
    return data, renamed


def _gather_query(fields: list[ModelField], query: QueryParams) -> dict[str, Any]:
    """``_gather`` of a query: the same data, read from the query's own dict of last values
    (perf: no isinstance of an ABC nor list of every value per field; about a fifth of the
    instructions). tests/project/test_perf_copies.py holds the two equal."""
    last = query._last
    data: dict[str, Any] = {}
    taken = set()
    for field in fields:
        aliases = field.aliases
        key, wire = aliases[0]
        if len(aliases) > 1:
            for pair in aliases:
                if pair[1] in last:
                    key, wire = pair
                    break
        if field.many:
            values = query.get_all(wire)
            if values:
                data[key] = values
        else:
            value = last.get(wire)
            if value is not None:
                data[key] = value
        taken.add(wire)
    if not taken.issuperset(last):
        for wire, value in _extras(query, taken):
            data[wire] = value
    return data


def _plain_names(fields: list[ModelField]) -> frozenset[str] | None:
    """The names a query model is read by, where each field is read by one name, which the
    model validates it by, and holds one value (not a list); else None."""
    plain = all(
        len(field.aliases) == 1 and field.key == field.wire and not field.many for field in fields
    )
    return frozenset(field.wire for field in fields) if plain else None


def _gather_form(fields: list[ModelField], found: Any) -> dict[str, Any]:
    """FastAPI's reading of a form model: each field by the first of its keys the form has a
    value for (an empty field is none), each key tried marked taken, then every other key."""
    data: dict[str, Any] = {}
    taken = set()
    for field in fields:
        for key, _ in field.aliases:
            taken.add(key)
            value = _value_of(found, key, field.many)
            if value is not _ABSENT:
                data[key] = value
                break
    for wire, value in _extras(found, taken):
        data[wire] = value
    return data


# A value the request does not give (FastAPI's Undefined): the model's default applies.
_ABSENT: Any = object()


def _value_of(found: Any, wire: str, many: bool) -> Any:
    """One field's value: a list of every value for a list, else one; _ABSENT for none, an
    empty list, or an empty form field or file."""
    form = isinstance(found, FormData)
    if many and isinstance(found, QueryParams | Headers | FormData):
        value: Any = found.get_all(wire)
        if form:
            value = [item for item in value if not _empty_file(item)]
    elif isinstance(found, QueryParams | FormData):
        values = found.get_all(wire)
        value = values[-1] if values else None
    else:
        value = found.get(wire)
    if value is None or (form and (value == "" or _empty_file(value))):
        return _ABSENT
    if many and len(value) == 0:
        return _ABSENT
    return value


def _empty_file(value: Any) -> bool:
    # Browsers send a file without name nor content for nothing chosen.
    return isinstance(value, UploadFile) and value.filename == "" and value.size == 0


def _with_members(parameter: Parameter, fields_of: dict[Any, list[ModelField]]) -> Parameter:
    """The parameter of a union of form models, each member reading its own fields from the
    whole form before pydantic validates it, and named in pydantic's errors by its ``Tag``
    (its class's name where it has none)."""
    from pydantic import BeforeValidator, Tag

    declared = [
        member for member in typing.get_args(parameter.annotation) if member is not type(None)
    ]
    members: list[Any] = []
    for member, (model, fields) in zip(declared, fields_of.items(), strict=True):
        annotated = typing.get_origin(member) is typing.Annotated
        extras = typing.get_args(member)[1:] if annotated else ()
        tag = () if any(isinstance(extra, Tag) for extra in extras) else (Tag(model.__name__),)
        reads = BeforeValidator(functools.partial(_member_input, fields))
        members.append(typing.Annotated[(model, reads, *extras, *tag)])
    if type(None) in typing.get_args(parameter.annotation):
        members.append(type(None))
    return dataclasses.replace(parameter, annotation=typing.Union[tuple(members)])  # noqa: UP007


def _member_input(fields: list[ModelField], value: Any) -> Any:
    """One member's input from the whole form's (a value, or a list for a repeated name);
    what a validator of the union put there (None, an empty list, a number) is kept as it is,
    as FastAPI keeps it."""
    if not isinstance(value, dict):
        return value
    pairs: list[tuple[str, Any]] = []
    given: dict[str, Any] = {}
    for key, items in value.items():
        if isinstance(items, _FORM_VALUES):
            pairs.append((key, items))
        elif isinstance(items, list) and items and all(isinstance(i, _FORM_VALUES) for i in items):
            pairs += [(key, item) for item in items]
        else:
            given[key] = items
    return {**given, **_gather_form(fields, FormData(pairs))}


# What a form holds: its values' types.
_FORM_VALUES = (str, UploadFile)


def _takes_extras(model: Any) -> bool:
    """Whether the model takes or forbids names it does not declare (rather than ignore
    them): then any such name gives the model."""
    if is_pydantic_model(model):
        return model.model_config.get("extra") in ("allow", "forbid")
    config = getattr(model, "__struct_config__", None)
    return bool(config is not None and config.forbid_unknown_fields)


def _loc_by_alias(model: Any) -> bool:
    return not is_pydantic_model(model) or bool(model.model_config.get("loc_by_alias", True))


def _extras(found: Any, taken: set[str]) -> list[tuple[str, Any]]:
    """Every other name of ``found``: one value, or a list when it repeats."""
    grouped: dict[str, list[Any]] = {}
    if isinstance(found, QueryParams | FormData):
        items = found.multi_items()
    elif isinstance(found, Headers):
        items = found.items()
    else:
        items = list(found.items())
    for key, value in items:
        if key not in taken:
            grouped.setdefault(key, []).append(value)
    return [(key, found[0] if len(found) == 1 else found) for key, found in grouped.items()]


def model_fields(model: Any, *, header: bool = False) -> list[ModelField]:
    """Each field of a parameter model, with the names it is read by (a header's own name
    with ``_`` as ``-``), as FastAPI reads them."""
    if is_pydantic_model(model):
        return [
            ModelField(name, _aliases(name, field, model, header), _is_many(field))
            for name, field in model.model_fields.items()
        ]
    fields = []
    for item in getattr(mi.type_info(model), "fields", ()):
        key = item.encode_name
        wire = key.replace("_", "-") if header else key
        many = isinstance(item.type, mi.ListType | mi.SetType | mi.FrozenSetType)
        fields.append(ModelField(item.name, ((key, wire),), many))
    return fields


def _aliases(name: str, field: Any, model: Any, header: bool) -> tuple[tuple[str, str], ...]:
    """A pydantic field's (key, name on the wire) pairs, in FastAPI's order: its validation
    alias (else alias, else name; a header's own name converted), or each of its
    ``AliasChoices`` as written; its own name too where the model validates by name."""
    chosen = field.validation_alias
    alias = chosen if isinstance(chosen, str) and chosen else (field.alias or name)
    convert = header and alias == name
    pairs = [(alias, alias.replace("_", "-") if convert else alias)]
    choices = alias_choices(chosen)
    if choices is None:  # an AliasPath, alone or among the choices: read by its key
        return tuple(pairs)
    if choices:
        pairs = [(choice, choice) for choice in choices]
    config = {} if _own_config_ignored(field.annotation) else model.model_config
    by_alias = config.get("validate_by_alias") is not False
    by_name = config.get("validate_by_name", config.get("populate_by_name", False))
    if not by_alias or by_name:
        own = (name, name.replace("_", "-") if header else name)
        if not by_alias:
            return (own,)
        if name not in [key for key, _ in pairs]:
            pairs.append(own)
    return tuple(pairs)


def _own_config_ignored(annotation: Any) -> bool:
    """FastAPI reads a field holding a model, dict or dataclass without its model's config."""
    if not isinstance(annotation, type):
        return False
    return (
        is_pydantic_model(annotation)
        or issubclass(annotation, dict)
        or (dataclasses.is_dataclass(annotation))
    )


def _is_many(field: Any) -> bool:
    """Whether a pydantic field reads every value of its name (as ``Parameter.many``)."""
    return is_sequence(field.annotation) and not any(map(is_json, field.metadata))
