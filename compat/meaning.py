"""Two OpenAPI documents compared by meaning, not by text.

What a client generator or a reader takes from a document is compared: paths, operations,
parameters, request bodies, responses, schemas (with ``$ref``s followed), component names,
security. What only changes how it is written is not: schema titles, the order of keys and of
``required``, a nullable written as ``anyOf`` with ``null`` or as a list of types, a ``$ref``
wrapped in a one-member ``allOf``.
"""

from __future__ import annotations

from typing import Any

__all__ = ["compare", "normalize"]

MAX_DIFFERENCES = 20


def compare(expected: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Where ``actual`` means something else than ``expected`` (empty: the same meaning)."""
    differences: list[str] = []
    _diff(normalize(expected), normalize(actual), "", differences)
    return differences


def normalize(document: dict[str, Any]) -> dict[str, Any]:
    """The document with its cosmetic differences removed and every ``$ref`` resolved (a
    recursive one is kept as its name)."""
    components = document.get("components", {}).get("schemas", {})
    normal: dict[str, Any] = {
        "openapi": document.get("openapi", "")[:3],
        "paths": _clean(document.get("paths", {}), components, ()),
        "components": sorted(components),
        "security_schemes": _clean(
            document.get("components", {}).get("securitySchemes", {}), components, ()
        ),
        "webhooks": _clean(document.get("webhooks", {}), components, ()),
    }
    for key in ("info", "servers", "tags", "security", "externalDocs"):
        if key in document:
            normal[key] = _clean(document[key], components, ())
    return normal


def _clean(value: Any, components: dict[str, Any], seen: tuple[str, ...]) -> Any:
    if isinstance(value, list):
        return [_clean(item, components, seen) for item in value]
    if not isinstance(value, dict):
        return value
    if "$ref" in value and isinstance(value["$ref"], str):
        name = value["$ref"].rsplit("/", 1)[-1]
        if name in seen or name not in components:
            return {"$ref": name}
        merged = {**components[name], **{k: v for k, v in value.items() if k != "$ref"}}
        return _clean(merged, components, (*seen, name))
    out: dict[str, Any] = {}
    for key, item in value.items():
        if key == "title" and not isinstance(item, dict):
            continue
        out[key] = _clean(item, components, seen)
    if isinstance(out.get("required"), list):
        out["required"] = sorted(out["required"])
    if isinstance(out.get("parameters"), list):
        out["parameters"] = sorted(
            out["parameters"], key=lambda item: (item.get("in", ""), item.get("name", ""))
        )
    allof = out.get("allOf")
    if isinstance(allof, list) and len(allof) == 1 and isinstance(allof[0], dict):
        rest = {key: item for key, item in out.items() if key != "allOf"}
        out = {**allof[0], **rest}
    return _nullable(out)


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``anyOf: [{type: X}, {type: null}]`` and ``type: [X, null]`` as one form: a sorted
    ``anyOf`` of single-type schemas."""
    kinds = schema.get("type")
    if isinstance(kinds, list):
        rest = {key: item for key, item in schema.items() if key != "type"}
        members = [{"type": kind} for kind in kinds]
        return {"anyOf": sorted(members, key=repr), **rest}
    anyof = schema.get("anyOf")
    if isinstance(anyof, list):
        return {**schema, "anyOf": sorted(anyof, key=repr)}
    return schema


def _diff(expected: Any, actual: Any, where: str, out: list[str]) -> None:
    if len(out) >= MAX_DIFFERENCES:
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(expected.keys() | actual.keys(), key=str):
            if key not in actual:
                out.append(f"{where}/{key}: missing (FastAPI: {_short(expected[key])})")
            elif key not in expected:
                out.append(f"{where}/{key}: extra ({_short(actual[key])})")
            else:
                _diff(expected[key], actual[key], f"{where}/{key}", out)
        return
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (left, right) in enumerate(zip(expected, actual, strict=True)):
            _diff(left, right, f"{where}[{index}]", out)
        return
    if expected != actual:
        out.append(f"{where}: {_short(actual)} (FastAPI: {_short(expected)})")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
