"""The 3.0 rendering: each 3.1 construct hasten writes, as OpenAPI 3.0 writes it."""

from __future__ import annotations

from typing import Any

import pytest

from hasten.openapi import openapi_30
from hasten.openapi.v30 import schema_30

REF = {"$ref": "#/components/schemas/Item"}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"anyOf": [{"type": "string"}, {"type": "null"}]}, {"type": "string", "nullable": True}),
        (
            {"anyOf": [REF, {"type": "null"}], "default": None},
            {"allOf": [REF], "default": None, "nullable": True},
        ),
        (
            {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
            {"anyOf": [{"type": "string"}, {"type": "integer"}], "nullable": True},
        ),
        ({"anyOf": [{"type": "string"}, {"type": "integer"}]}, None),
        ({"type": ["string", "null"]}, {"type": "string", "nullable": True}),
        (
            {"type": ["string", "integer"]},
            {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        ),
        ({"type": "null"}, {"nullable": True, "enum": [None]}),
        ({"anyOf": [{"type": "null"}]}, {"nullable": True, "enum": [None]}),
        ({"enum": ["a", None]}, {"enum": ["a", None], "nullable": True}),
        (
            {"type": "integer", "exclusiveMinimum": 0, "exclusiveMaximum": 9},
            {
                "type": "integer",
                "minimum": 0,
                "exclusiveMinimum": True,
                "maximum": 9,
                "exclusiveMaximum": True,
            },
        ),
        ({"type": "integer", "exclusiveMinimum": True, "minimum": 1}, None),
        ({"type": "string", "examples": ["a", "b"]}, {"type": "string", "example": "a"}),
        ({"type": "string", "examples": []}, {"type": "string"}),
        ({"const": 3}, {"enum": [3]}),
        (
            {"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}
            | {"items": False, "minItems": 2, "maxItems": 2},
            {
                "type": "array",
                "items": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
                "minItems": 2,
                "maxItems": 2,
            },
        ),
        (
            {"type": "array", "prefixItems": [{"type": "integer"}], "items": False},
            {"type": "array", "items": {"type": "integer"}},
        ),
        ({"type": "array"}, {"type": "array", "items": {}}),
        ({"$ref": "#/x", "description": "d"}, {"allOf": [{"$ref": "#/x"}], "description": "d"}),
        ({"$ref": "#/x"}, None),
        ({"type": "string", "contentEncoding": "base64"}, {"type": "string", "format": "byte"}),
        ({"type": "string", "contentEncoding": "7bit"}, {"type": "string"}),
        (
            {"type": "object", "propertyNames": {"pattern": "^a"}, "required": []},
            {"type": "object"},
        ),
        (
            {"type": "object", "properties": {"a": {"const": 1}}, "$defs": {}},
            {"type": "object", "properties": {"a": {"enum": [1]}}},
        ),
        (
            {"type": "object", "additionalProperties": {"type": ["integer", "null"]}},
            {"type": "object", "additionalProperties": {"type": "integer", "nullable": True}},
        ),
        ({"not": {"const": 1}}, {"not": {"enum": [1]}}),
        (
            {"oneOf": [{"const": 1}], "allOf": [{"const": 2}]},
            {"oneOf": [{"enum": [1]}]} | {"allOf": [{"enum": [2]}]},
        ),
        (True, True),
    ],
)
def test_schema_30(schema: Any, expected: Any) -> None:
    assert schema_30(schema) == (schema if expected is None else expected)


def test_openapi_30_rewrites_every_schema_and_leaves_the_original() -> None:
    nullable = {"anyOf": [{"type": "integer"}, {"type": "null"}]}
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {
            "title": "t",
            "version": "1",
            "summary": "s",
            "license": {"name": "MIT", "identifier": "MIT"},
        },
        "jsonSchemaDialect": "https://spec.openapis.org/oas/3.1/dialect/base",
        "webhooks": {},
        "paths": {
            "/x": {
                "get": {
                    "parameters": [{"name": "n", "in": "query", "schema": nullable}],
                    "responses": {
                        "200": {
                            "description": "d",
                            "headers": {"X-N": {"schema": nullable}},
                            "content": {"application/json": {"schema": nullable}},
                        }
                    },
                }
            }
        },
        "components": {"schemas": {"N": nullable}},
    }
    before = repr(document)
    rendered = openapi_30(document)
    assert repr(document) == before
    v30 = {"type": "integer", "nullable": True}
    assert rendered == {
        "openapi": "3.0.3",
        "info": {"title": "t", "version": "1", "license": {"name": "MIT"}},
        "paths": {
            "/x": {
                "get": {
                    "parameters": [{"name": "n", "in": "query", "schema": v30}],
                    "responses": {
                        "200": {
                            "description": "d",
                            "headers": {"X-N": {"schema": v30}},
                            "content": {"application/json": {"schema": v30}},
                        }
                    },
                }
            }
        },
        "components": {"schemas": {"N": v30}},
    }
    assert openapi_30(document, "3.0.1")["openapi"] == "3.0.1"
