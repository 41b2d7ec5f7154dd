"""JSON Schemas for every type a document mentions, with component names that never collide.

Operations ask for a type's schema while the document is built and get a placeholder; once every
route has asked, ``resolve`` generates all of them with ``msgspec.json.schema_components`` and
fills the placeholders in place. Named types (Structs, dataclasses, attrs classes, TypedDicts,
NamedTuples, enums) become ``components.schemas`` entries, each under one name: the class name
where it is unique, else ``module__Name`` (the module's dots as ``_``), else that name with a
number, counted in the order routes mention them, so names are stable from run to run.

msgspec names components itself (the class name, or ``module.Qualname`` on a clash), and cannot
tell apart two classes of one qualified name: two made by one factory, or ``Page[a.Item]`` and
``Page[b.Item]``. So when short names clash, each type is generated on its own, and msgspec's
names within that call are mapped back to ours.

Types that hold a pydantic model (or that only pydantic knows) are described by pydantic, as
FastAPI describes them (``pydantic_schemas.py``); fixed schemas (the 422 body, an operation's
form or embedded body) are components under their own names, which a class then gives way to.
"""

from __future__ import annotations

import enum
import re
import sys
from collections.abc import Callable, Collection, Iterable
from typing import Any

import msgspec
import msgspec.inspect as mi

from hasten._params.models import uses_pydantic
from hasten.openapi.formats import add_field_formats, add_formats
from hasten.openapi.pydantic_schemas import (
    Mode,
    has_computed_fields,
    is_pydantic_dataclass,
    pydantic_schemas,
    split_meta,
)

__all__ = ["COMPONENTS", "SchemaHook", "Schemas"]

COMPONENTS = "#/components/schemas/"
SchemaHook = Callable[[type], dict[str, Any]]
_UNSAFE = re.compile(r"[^a-zA-Z0-9.\-_]")
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean"}
_NAMED = (mi.StructType, mi.TypedDictType, mi.DataclassType, mi.NamedTupleType)
# frozendict's (Python 3.15), which msgspec >= 0.23 reads; dicts alone before.
_DICTS: tuple[type[mi.DictType], ...] = (mi.DictType, getattr(mi, "FrozenDictType", mi.DictType))


class Schemas:
    """The schemas of one document: ask with ``schema(type)`` (or name a fixed one with
    ``component``), then ``resolve()`` once."""

    def __init__(self, schema_hook: SchemaHook | None = None, separate: bool = True) -> None:
        self._hook = schema_hook
        self._separate = separate  # False: a type is documented as read, also where sent
        # Each schema handed out, with the title it gets unless it is a reference.
        self._wanted: dict[tuple[Any, Mode], list[tuple[dict[str, Any], str | None]]] = {}
        self._fixed: dict[str, dict[str, Any]] = {}

    def schema(
        self, annotation: Any, mode: Mode = "validation", title: str | None = None
    ) -> dict[str, Any]:
        """The schema of ``annotation`` as read (``validation``) or as sent
        (``serialization``): empty until ``resolve()`` fills it. Keys set on it before then
        (``default``, ``description``) are kept; ``title`` is given it unless it is a
        ``$ref`` (as FastAPI titles a parameter's or a body member's schema)."""
        placeholder: dict[str, Any] = {}
        if not self._separate and not has_computed_fields(annotation):
            mode = "validation"
        self._wanted.setdefault((annotation, mode), []).append((placeholder, title))
        return placeholder

    def component(self, name: str, schema: dict[str, Any]) -> dict[str, Any]:
        """A reference to ``schema``, kept in the components under ``name`` as it is (a
        class of the same name gets another)."""
        self._fixed[name] = schema
        return {"$ref": COMPONENTS + name}

    def resolve(self) -> dict[str, dict[str, Any]]:
        """Fill every schema handed out; return the named components, by name."""
        infos, by_pydantic = self._partition()
        classes = _named_classes(infos.values())
        names = _component_names(classes, set(self._fixed))
        generated, components = self._generate(infos, names)
        for cls, name in names.items():
            if isinstance(cls, type) and issubclass(cls, enum.Enum) and name in components:
                # msgspec sorts an enum's values; FastAPI keeps the class's order.
                components[name]["enum"] = [member.value for member in cls]
        components.update(self._fixed)
        found, definitions = _pydantic(by_pydantic, components)
        components.update(definitions)
        for component in components.values():
            # FastAPI's cut: what follows a form feed in a docstring is for the code's readers.
            if isinstance(component.get("description"), str):
                component["description"] = component["description"].split("\f")[0]
        for (annotation, mode), placeholders in self._wanted.items():
            schema = found.get((annotation, mode)) or generated.get(annotation, {})
            for placeholder, title in placeholders:
                given = dict(placeholder)
                placeholder.clear()
                if title is not None and "$ref" not in schema:
                    placeholder["title"] = title
                placeholder.update(schema)
                placeholder.update(given)
        return dict(sorted(components.items()))

    def _partition(self) -> tuple[dict[Any, mi.Type], dict[tuple[Any, Mode], Any]]:
        """msgspec's view of each type it describes; the rest, for pydantic (each bare of
        hasten's metadata, by the key it was asked with)."""
        wanted = list(dict.fromkeys(annotation for annotation, _ in self._wanted))
        infos = {
            annotation: info
            for annotation, info in _type_infos(wanted).items()
            if self._describable(info)
        }
        by_pydantic = {
            (annotation, mode): annotation
            for annotation, mode in self._wanted
            if annotation not in infos or _pydantic_only(split_meta(annotation)[0])
        }
        for annotation, _ in by_pydantic:
            infos.pop(annotation, None)
        return infos, by_pydantic if "pydantic" in sys.modules else {}

    def _describable(self, info: mi.Type) -> bool:
        # A type msgspec cannot describe (a class of its own) is documented as any JSON value,
        # unless pydantic describes it.
        return self._hook is not None or not any(
            isinstance(item, mi.CustomType) for item in _walk(info)
        )

    def _generate(
        self, infos: dict[Any, mi.Type], names: dict[Any, str]
    ) -> tuple[dict[Any, dict[str, Any]], dict[str, dict[str, Any]]]:
        short = [_short_name(cls) for cls in names]
        if len(set(short)) == len(short):
            batches = [list(infos)]
        else:
            batches = [[annotation] for annotation in infos]
        generated: dict[Any, dict[str, Any]] = {}
        components: dict[str, dict[str, Any]] = {}
        for batch in batches:
            if not batch:
                continue
            ours = _ours(_named_classes(infos[annotation] for annotation in batch), names)
            schemas, found = msgspec.json.schema_components(
                batch, schema_hook=self._hook, ref_template=COMPONENTS + "{name}"
            )
            for annotation, schema in zip(batch, schemas, strict=True):
                generated[annotation] = _renamed(schema, ours)
                add_formats(infos[annotation], generated[annotation])
            for theirs, schema in found.items():
                components[ours[theirs]] = _renamed(schema, ours)
        for cls, item in _named_infos(infos.values()).items():
            if cls in names and names[cls] in components:
                add_field_formats(item, components[names[cls]])
                if isinstance(item, mi.DataclassType):
                    _title_fields(item, components[names[cls]])
        return generated, components


def _title_fields(info: mi.DataclassType, component: dict[str, Any]) -> None:
    """Title each field of a dataclass's component, as FastAPI (pydantic) writes it:
    ``item_id`` is "Item Id"; a reference stays bare."""
    properties = component.get("properties", {})
    for field in info.fields:
        schema = properties.get(field.encode_name)
        if isinstance(schema, dict) and "$ref" not in schema and "title" not in schema:
            properties[field.encode_name] = {
                "title": field.name.title().replace("_", " "),
                **schema,
            }


def _pydantic_only(annotation: Any) -> bool:
    """Whether only pydantic says all of ``annotation``: a model in it, or pydantic's
    metadata on it or on a part of it (a model field's ``FieldInfo``, ``annotated_types``
    constraints; ``Annotated[set[str], Field(max_length=3)] | None``)."""
    return (
        uses_pydantic(annotation)
        or _holds_pydantic_dataclass(annotation)
        or _holds_pydantic_metadata(annotation)
    )


def _holds_pydantic_metadata(annotation: Any) -> bool:
    metadata = getattr(annotation, "__metadata__", ())
    if any(
        type(extra).__module__.split(".")[0] in ("pydantic", "annotated_types")
        for extra in metadata
    ):
        return True
    return any(_holds_pydantic_metadata(arg) for arg in getattr(annotation, "__args__", ()))


def _holds_pydantic_dataclass(annotation: Any) -> bool:
    return is_pydantic_dataclass(annotation) or any(
        _holds_pydantic_dataclass(arg) for arg in getattr(annotation, "__args__", ())
    )


def _pydantic(
    wanted: dict[tuple[Any, Mode], Any], taken: dict[str, dict[str, Any]]
) -> tuple[dict[Any, dict[str, Any]], dict[str, dict[str, Any]]]:
    """pydantic's schemas of ``wanted``, its definitions renamed where a name is ``taken``."""
    if not wanted:
        return {}, {}
    bare = {key: split_meta(annotation) for key, annotation in wanted.items()}
    found, definitions = pydantic_schemas(
        ((key, inner, key[1]) for key, (inner, _) in bare.items()), COMPONENTS + "{model}"
    )
    refs: dict[str, str] = {}
    for name in definitions:
        candidate, count = name, 1
        while candidate in taken:
            count += 1
            candidate = f"{name}_{count}"
        refs[name] = candidate
    schemas = {key: {**_renamed(schema, refs), **bare[key][1]} for key, schema in found.items()}
    return schemas, {refs[name]: _renamed(schema, refs) for name, schema in definitions.items()}


def _type_infos(annotations: list[Any]) -> dict[Any, mi.Type]:
    """msgspec's view of each annotation it can read: all at once (the usual case, and
    faster), else one by one."""
    try:
        return dict(zip(annotations, mi.multi_type_info(annotations), strict=True))
    except (TypeError, ValueError):
        pass
    infos = {}
    for annotation in annotations:
        try:
            infos[annotation] = mi.type_info(annotation)
        except (TypeError, ValueError):
            continue  # documented as any JSON value
    return infos


def _walk(info: mi.Type) -> Iterable[mi.Type]:
    """``info`` and every type inside it, each named class once (recursive types end)."""
    seen: set[Any] = set()
    stack = [info]
    while stack:
        item = stack.pop()
        if isinstance(item, _NAMED):
            if item.cls in seen:
                continue
            seen.add(item.cls)
            stack.extend(field.type for field in reversed(item.fields))
        elif isinstance(item, mi.Metadata):
            stack.append(item.type)
        elif isinstance(item, mi.CollectionType):
            stack.append(item.item_type)
        elif isinstance(item, mi.TupleType):
            stack.extend(reversed(item.item_types))
        elif isinstance(item, _DICTS):
            stack.extend((item.value_type, item.key_type))
        elif isinstance(item, mi.UnionType):
            stack.extend(reversed(item.types))
        yield item


def _named_infos(infos: Iterable[mi.Type]) -> dict[Any, mi.Type]:
    """msgspec's view of each class with fields that ``infos`` hold, by class."""
    found: dict[Any, mi.Type] = {}
    for info in infos:
        for item in _walk(info):
            if isinstance(item, _NAMED):
                found.setdefault(item.cls, item)
    return found


def _named_classes(infos: Iterable[mi.Type]) -> list[Any]:
    """The classes that become components, in the order they are first met."""
    classes: dict[Any, None] = {}
    for info in infos:
        for item in _walk(info):
            if isinstance(item, (*_NAMED, mi.EnumType)):
                classes.setdefault(item.cls, None)
    return list(classes)


def _short_name(cls: Any) -> str:
    """msgspec's name for a class: its name (with a generic's arguments), made URL-safe."""
    origin = getattr(cls, "__origin__", None)
    if origin is None:
        return _UNSAFE.sub("_", cls.__name__)
    arguments = ", ".join(
        argument.__name__ if isinstance(argument, type) else repr(argument)
        for argument in cls.__args__
    )
    return _UNSAFE.sub("_", f"{origin.__name__}[{arguments}]")


def _full_name(cls: Any) -> str:
    """msgspec's name for a class whose short name clashes: module and qualified name."""
    return _UNSAFE.sub("_", f"{cls.__module__}.{cls.__qualname__}")


def _component_names(classes: list[Any], reserved: Collection[str]) -> dict[Any, str]:
    """Our name for each class: short where unique (and not ``reserved``), else
    ``module__Name``, else numbered."""
    names = _unique_by(classes, _short_name, _qualified, reserved)
    taken: dict[str, int] = {}
    result: dict[Any, str] = {}
    for cls in classes:
        name = names[cls]
        count = taken[name] = taken.get(name, 0) + 1
        result[cls] = name if count == 1 else f"{name}_{count}"
    return result


def _qualified(cls: Any) -> str:
    module = _UNSAFE.sub("_", cls.__module__).replace(".", "_")
    return f"{module}__{_short_name(cls)}"


def _unique_by(
    classes: list[Any],
    first: Callable[[Any], str],
    second: Callable[[Any], str],
    reserved: Collection[str] = (),
) -> dict[Any, str]:
    """``first(cls)`` for each class whose first name no other class (nor ``reserved``)
    shares, else ``second(cls)``."""
    counts: dict[str, int] = dict.fromkeys(reserved, 1)
    for cls in classes:
        counts[first(cls)] = counts.get(first(cls), 0) + 1
    return {cls: first(cls) if counts[first(cls)] == 1 else second(cls) for cls in classes}


def _ours(classes: list[Any], names: dict[Any, str]) -> dict[str, str]:
    """msgspec's name for each class of one call, to ours."""
    theirs = _unique_by(classes, _short_name, _full_name)
    first: dict[str, Any] = {}
    for cls in classes:
        other = first.setdefault(theirs[cls], cls)
        if other is not cls:
            raise TypeError(
                f"OpenAPI cannot tell apart two classes named {_full_name(cls)} inside one "
                "type: give one of them a name of its own."
            )
    return {theirs[cls]: names[cls] for cls in classes}


def _renamed(schema: Any, refs: dict[str, str]) -> Any:
    """``schema`` with msgspec's references replaced by ours (``$ref`` and discriminator
    mappings alike), the type of an enum's values said, as tools show it, and a bare list's
    items and a bare dict's values said (any), a fixed tuple's not, as FastAPI writes them."""
    if isinstance(schema, dict):
        result = {key: _renamed(value, refs) for key, value in schema.items()}
        if result.get("type") == "array" and "items" not in result and "prefixItems" not in result:
            result["items"] = {}  # a bare list, as FastAPI writes it: items of any kind
        if "prefixItems" in result and result.get("items") is False:
            del result["items"]  # a fixed tuple: its length says it, as pydantic writes it
        if result.get("type") == "object" and not {"properties", "additionalProperties"} & set(
            result
        ):
            result["additionalProperties"] = True  # a dict of any values, as pydantic says
        if "enum" in result and "type" not in result:
            kinds = {_JSON_TYPES.get(type(value)) for value in result["enum"]}
            if len(kinds) == 1 and None not in kinds:
                result["type"] = kinds.pop()
        return result
    if isinstance(schema, list):
        return [_renamed(value, refs) for value in schema]
    if isinstance(schema, str) and schema.startswith(COMPONENTS):
        name = schema.removeprefix(COMPONENTS)
        return COMPONENTS + refs.get(name, name)
    return schema
