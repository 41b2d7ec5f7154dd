"""The 3.0 rendering of a 3.1 document, for client generators that do not read 3.1.

OpenAPI 3.1 schemas are JSON Schema 2020-12; 3.0's are an older dialect of their own. The
differences a hasten document can hold, each rewritten here:

- ``null``: ``type: [x, "null"]`` and ``anyOf: [..., {type: null}]`` become ``nullable: true``
- ``exclusiveMinimum: n`` becomes ``minimum: n, exclusiveMinimum: true`` (and maximum alike)
- ``examples: [...]`` becomes ``example``; ``const`` becomes a one-value ``enum``
- ``prefixItems`` (tuples) becomes ``items: {anyOf: [...]}`` within ``minItems``/``maxItems``
- a ``$ref`` with siblings (ignored by 3.0) is wrapped in ``allOf``
- ``contentEncoding: base64`` becomes ``format: byte``; an array gets ``items`` always
- what 3.0 lacks is left out: ``$defs``, ``propertyNames``, an empty ``required``, the
  document's ``webhooks`` and ``jsonSchemaDialect``, ``info.summary``, ``license.identifier``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["openapi_30", "schema_30"]

_DROPPED = frozenset(
    {
        "$defs",
        "$schema",
        "$id",
        "$comment",
        "propertyNames",
        "unevaluatedProperties",
        "unevaluatedItems",
        "dependentRequired",
        "dependentSchemas",
        "contentMediaType",
        "contentSchema",
        "if",
        "then",
        "else",
    }
)
_NULL = {"nullable": True, "enum": [None]}  # ``{"type": "null"}``, once rendered


def openapi_30(document: dict[str, Any], version: str = "3.0.3") -> dict[str, Any]:
    """``document`` (3.1) rendered as OpenAPI ``version`` (3.0.x); the original is unchanged."""
    rendered: dict[str, Any] = _with_schemas(document)
    rendered["openapi"] = version
    for key in ("webhooks", "jsonSchemaDialect"):
        rendered.pop(key, None)
    info = rendered["info"] = dict(rendered["info"])
    info.pop("summary", None)
    if "license" in info:
        info["license"] = {k: v for k, v in info["license"].items() if k != "identifier"}
    components = rendered.get("components", {})
    if "schemas" in components:
        components["schemas"] = {
            name: schema_30(schema) for name, schema in components["schemas"].items()
        }
    return rendered


def _with_schemas(node: Any) -> Any:
    """A copy of a document (part), each ``schema`` member rendered for 3.0."""
    if isinstance(node, list):
        return [_with_schemas(item) for item in node]
    if not isinstance(node, dict):
        return node
    return {
        key: schema_30(value) if key == "schema" else _with_schemas(value)
        for key, value in node.items()
    }


def schema_30(schema: Any) -> Any:
    """One JSON Schema (2020-12, as OpenAPI 3.1 writes it) as OpenAPI 3.0 writes it."""
    if not isinstance(schema, dict):
        return schema
    result: dict[str, Any] = {}
    for key, value in schema.items():
        _rewrite(result, key, value)
    if "type" in result and isinstance(result["type"], list):
        _type_list(result)
    if result.get("type") == "null":
        del result["type"]
        result["nullable"] = True
        result["enum"] = [None]
    if None in result.get("enum", ()):
        result["nullable"] = True
    if "anyOf" in result:
        result = _any_of(result)
    if result.get("type") == "array" and "items" not in result:
        result["items"] = {}
    if "$ref" in result and len(result) > 1:
        result = {"allOf": [{"$ref": result.pop("$ref")}], **result}
    return result


def _rewrite(result: dict[str, Any], key: str, value: Any) -> None:
    if key in _DROPPED or (key == "required" and not value):
        return
    rewrite = _REWRITES.get(key)
    if rewrite is None:
        result[key] = value
    else:
        rewrite(result, key, value)


def _properties(result: dict[str, Any], key: str, value: Any) -> None:
    result[key] = {name: schema_30(item) for name, item in value.items()}


def _subschema(result: dict[str, Any], key: str, value: Any) -> None:
    if value is not False:  # ``items: false`` closes a tuple; its maxItems says as much
        result[key] = schema_30(value)


def _subschemas(result: dict[str, Any], key: str, value: Any) -> None:
    result[key] = [schema_30(item) for item in value]


def _prefix_items(result: dict[str, Any], key: str, value: Any) -> None:
    members = [schema_30(item) for item in value]
    result["items"] = members[0] if len(members) == 1 else {"anyOf": members}


def _examples(result: dict[str, Any], key: str, value: Any) -> None:
    if value:
        result.setdefault("example", value[0])


def _const(result: dict[str, Any], key: str, value: Any) -> None:
    result["enum"] = [value]


def _exclusive(result: dict[str, Any], key: str, value: Any) -> None:
    if not isinstance(value, bool):
        result["minimum" if key == "exclusiveMinimum" else "maximum"] = value
        value = True
    result[key] = value


def _content_encoding(result: dict[str, Any], key: str, value: Any) -> None:
    if value == "base64":
        result["format"] = "byte"


_REWRITES: dict[str, Callable[[dict[str, Any], str, Any], None]] = {
    "properties": _properties,
    "items": _subschema,
    "additionalProperties": _subschema,
    "not": _subschema,
    "anyOf": _subschemas,
    "oneOf": _subschemas,
    "allOf": _subschemas,
    "prefixItems": _prefix_items,
    "examples": _examples,
    "const": _const,
    "exclusiveMinimum": _exclusive,
    "exclusiveMaximum": _exclusive,
    "contentEncoding": _content_encoding,
}


def _type_list(result: dict[str, Any]) -> None:
    kinds = [kind for kind in result["type"] if kind != "null"]
    if len(kinds) < len(result["type"]):
        result["nullable"] = True
    if len(kinds) == 1:
        result["type"] = kinds[0]
    else:
        del result["type"]
        result["anyOf"] = [{"type": kind} for kind in kinds] + result.get("anyOf", [])


def _any_of(result: dict[str, Any]) -> dict[str, Any]:
    """``anyOf`` with a ``null`` member: the rest, ``nullable``."""
    members = result["anyOf"]
    rest = [member for member in members if member != _NULL]
    if len(rest) == len(members):
        return result
    del result["anyOf"]
    result["nullable"] = True
    if len(rest) > 1:
        result["anyOf"] = rest
        return result
    if not rest:
        result["enum"] = [None]
        return result
    (only,) = rest
    if "$ref" in only:
        return {"allOf": [only], **result}
    return {**only, **result}
