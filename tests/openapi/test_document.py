"""The document: what each route, parameter, body and response becomes, and that the whole
passes the OpenAPI validators as 3.1 and as 3.0."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from examples import api
from hasten import App, Body, Header, Query, Router, StaticFiles, WebSocket
from hasten.openapi import get_openapi, openapi_30
from hasten.openapi.operations import (
    SecurityRequirement,
    openapi_path,
    request_parameters,
    response_type,
    security,
)
from hasten.responses import HTMLResponse, JSONResponse, RedirectResponse
from tests.openapi import full_app

Document = dict[str, Any]


def operation(document: Document, path: str, method: str = "get") -> Any:
    return document["paths"][path][method]


@pytest.fixture(scope="module")
def full() -> Document:
    return get_openapi(title="t", version="1", routes=full_app.app.routes)


@pytest.mark.parametrize("app", [full_app.app, api.app], ids=["full_app", "examples.api"])
@pytest.mark.parametrize("version", ["3.1.0", "3.0.3"])
def test_the_document_passes_the_validator(app: App, version: str) -> None:
    document = get_openapi(
        title=app.settings.title,
        version=app.settings.version,
        routes=app.routes,
        openapi_version=version,
        servers=app.settings.servers,
        contact=app.settings.contact,
        license_info=app.settings.license_info,
    )
    assert document["openapi"] == version
    validate(document)


def test_the_validator_catches_a_broken_document(full: Document) -> None:
    broken = copy.deepcopy(full)
    broken["paths"]["/params/cookies"]["get"]["parameters"][0]["in"] = "body"
    with pytest.raises(OpenAPIValidationError):
        validate(broken)


def test_every_route_is_documented_except_hidden_ones(full: Document) -> None:
    operations = {(method.upper(), path) for path, item in full["paths"].items() for method in item}
    assert operations == {
        (method, openapi_path(route.template))
        for route in full_app.app.routes
        if route.endpoint.options.include_in_schema
        for method in route.methods
    }
    assert "/docs-features/hidden" not in full["paths"]
    assert "/params/path/{item_id}/{name}/{key}/{ratio}/{rest}" in full["paths"]


def test_info_and_servers() -> None:
    document = full_app.app.openapi()
    assert document["info"] == {
        "title": "Everything",
        "version": "2.0.0",
        "summary": "Every feature, documented.",
        "description": "A test app.",
        "termsOfService": "http://example.com/terms",
        "contact": {"name": "hasten", "email": "hasten@example.com"},
        "license": {"name": "MIT", "identifier": "MIT"},
    }
    assert document["servers"] == [{"url": "http://127.0.0.1:8000"}]
    assert document["tags"] == [{"name": "params", "description": "Every parameter source."}]
    assert full_app.app.openapi() is document  # generated once


def test_path_parameters_with_constraints_and_converters(full: Document) -> None:
    found = operation(full, "/params/path/{item_id}/{name}/{key}/{ratio}/{rest}")
    assert found["parameters"] == [
        {
            "name": "item_id",
            "in": "path",
            "description": "The item.",
            "required": True,
            "schema": {"description": "The item.", "type": "integer", "minimum": 1},
        },
        {
            "name": "name",
            "in": "path",
            "required": True,
            "schema": {"type": "string", "maxLength": 8, "minLength": 2},
        },
        {
            "name": "key",
            "in": "path",
            "required": True,
            "schema": {"type": "string", "format": "uuid"},
        },
        {"name": "ratio", "in": "path", "required": True, "schema": {"type": "number"}},
        {"name": "rest", "in": "path", "required": True, "schema": {"type": "string"}},
    ]


def test_query_parameters(full: Document) -> None:
    parameters = {item["name"]: item for item in operation(full, "/params/query")["parameters"]}
    assert parameters["required"] == {
        "name": "required",
        "in": "query",
        "required": True,
        "schema": {"title": "Required", "type": "string"},
    }
    assert parameters["limit"]["schema"] == {
        "examples": [10],
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 20,
    }
    assert parameters["word"]["schema"] == {
        "type": "string",
        "maxLength": 5,
        "minLength": 1,
        "pattern": "^[a-z]+$",
        "default": "a",
    }
    assert parameters["scale"]["schema"] == {
        "type": "number",
        "exclusiveMinimum": 0,
        "exclusiveMaximum": 10,
        "multipleOf": 0.5,
        "default": 1.0,
    }
    # A list: repeated keys (?id=1&id=2), OpenAPI's default style for a query (form, explode).
    assert parameters["id"] == {
        "name": "id",
        "in": "query",
        "required": False,
        "schema": {"type": "array", "items": {"type": "integer"}, "maxItems": 3, "default": []},
    }
    assert parameters["colors"]["schema"]["items"] == {"$ref": "#/components/schemas/Color"}
    assert parameters["order"]["schema"] == {
        "enum": ["asc", "desc"],
        "type": "string",
        "default": "asc",
    }
    assert parameters["color"]["schema"] == {
        "$ref": "#/components/schemas/Color",
        "default": "red",
    }
    assert parameters["since"] == {
        "name": "since",
        "in": "query",
        "required": False,
        "schema": {"anyOf": [{"type": "string", "format": "date"}, {"type": "null"}]},
    }
    assert parameters["old"]["deprecated"] is True
    assert parameters["old"]["description"] == "Use limit."
    assert "hidden" not in parameters


def test_header_and_cookie_parameters(full: Document) -> None:
    headers = operation(full, "/params/headers")["parameters"]
    assert [(item["name"], item["in"]) for item in headers] == [
        ("user-agent", "header"),
        ("x-auth-token", "header"),
        ("raw_name", "header"),
        ("x-tag", "header"),
    ]
    assert headers[1]["schema"] == {"type": "string", "minLength": 3, "default": "abc"}
    cookies = operation(full, "/params/cookies")["parameters"]
    assert cookies == [
        {
            "name": "session",
            "in": "cookie",
            "required": True,
            "schema": {"type": "string", "minLength": 4},
        },
        {
            "name": "theme",
            "in": "cookie",
            "required": False,
            "schema": {"enum": ["dark", "light"], "type": "string", "default": "light"},
        },
    ]


def test_a_path_parameter_the_handler_does_not_take_is_still_declared(full: Document) -> None:
    assert operation(full, "/docs-features/request/{anything}")["parameters"] == [
        {"name": "anything", "in": "path", "required": True, "schema": {"type": "string"}}
    ]


def json_body(schema: Any, required: bool = True) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}, "required": required}


@pytest.mark.parametrize(
    ("path", "component"),
    [
        ("/bodies/struct", "Everything"),
        ("/bodies/dataclass", "Shipment"),
        ("/bodies/typeddict", "Address"),
        ("/bodies/attrs", "Customer"),
        ("/bodies/generic", "Page_Node_"),
    ],
)
def test_model_bodies_are_components(full: Document, path: str, component: str) -> None:
    found = operation(full, path, "post")
    assert found["requestBody"] == json_body({"$ref": f"#/components/schemas/{component}"})
    assert component in full["components"]["schemas"]


def test_collection_and_embedded_bodies(full: Document) -> None:
    assert operation(full, "/bodies/dict", "post")["requestBody"] == json_body(
        {"type": "object", "additionalProperties": {"type": "integer"}}
    )
    assert operation(full, "/bodies/list", "post")["requestBody"] == json_body(
        {"type": "array", "items": {"$ref": "#/components/schemas/Node"}}
    )
    # Several body parameters: one object, a member each, as hasten reads them.
    assert operation(full, "/bodies/embedded", "post")["requestBody"] == json_body(
        {
            "type": "object",
            "properties": {
                "shipment": {"$ref": "#/components/schemas/Shipment"},
                "customer": {"$ref": "#/components/schemas/Customer"},
                "note": {"type": "string", "maxLength": 20, "default": ""},
            },
            "required": ["shipment", "customer"],
        }
    )
    assert operation(full, "/bodies/embed-one", "post")["requestBody"] == json_body(
        {
            "type": "object",
            "properties": {"name": {"description": "Who.", "examples": ["Ann"], "type": "string"}},
            "required": ["name"],
        }
    )


def test_an_embedded_body_of_optional_members_is_still_one_object(full: Document) -> None:
    assert operation(full, "/bodies/embed-optional", "post")["requestBody"] == json_body(
        {
            "type": "object",
            "properties": {"limit": {"type": "integer", "minimum": 1, "default": 1}},
        }
    )


def test_an_optional_body_is_not_required(full: Document) -> None:
    assert operation(full, "/bodies/optional", "post")["requestBody"] == {
        **json_body(
            {
                "anyOf": [
                    {"description": "Maybe a shipment.", "$ref": "#/components/schemas/Shipment"},
                    {"type": "null"},
                ]
            },
            required=False,
        ),
        "description": "Maybe a shipment.",
    }


def error(description: str, component: str) -> dict[str, Any]:
    schema = {"$ref": f"#/components/schemas/{component}"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def test_a_body_route_declares_its_errors(full: Document) -> None:
    responses = operation(full, "/bodies/struct", "post")["responses"]
    assert responses == {
        "201": {
            "description": "Successful Response",
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Everything"}}
            },
        },
        "422": error("Validation Error", "HTTPValidationError"),
        "400": error("Malformed JSON body", "HTTPError"),
        "413": error("Request body too large", "HTTPError"),
        "415": error("Not a JSON body", "HTTPError"),
    }
    assert full["components"]["schemas"]["HTTPValidationError"]["properties"] == {
        "detail": {"type": "array", "items": {"$ref": "#/components/schemas/ValidationError"}}
    }
    assert full["components"]["schemas"]["ValidationError"]["required"] == ["loc", "msg", "type"]


def test_a_route_without_parameters_declares_no_422(full: Document) -> None:
    assert list(operation(full, "/responses/text")["responses"]) == ["200"]


def content(full: Document, path: str, method: str = "get", status: str = "200") -> Any:
    return operation(full, path, method)["responses"][status].get("content")


def test_responses_by_return_annotation(full: Document) -> None:
    assert content(full, "/responses/text") == {"text/plain": {"schema": {"type": "string"}}}
    assert content(full, "/responses/bytes") == {
        "application/octet-stream": {"schema": {"type": "string", "format": "binary"}}
    }
    assert content(full, "/responses/nothing", "delete", "204") is None
    assert content(full, "/responses/html") == {"text/html": {"schema": {"type": "string"}}}
    assert content(full, "/responses/plain") == {"text/plain": {"schema": {"type": "string"}}}
    assert content(full, "/responses/json") == {"application/json": {"schema": {}}}
    assert content(full, "/responses/response") is None  # its media type is the handler's
    assert content(full, "/responses/stream") is None
    assert content(full, "/responses/untyped") == {"application/json": {"schema": {}}}
    assert content(full, "/responses/null") == {"application/json": {"schema": {"type": "null"}}}
    assert content(full, "/responses/union") == {
        "text/plain": {"schema": {"type": "string"}},
        "application/json": {
            "schema": {"anyOf": [{"$ref": "#/components/schemas/Node"}, {"type": "null"}]}
        },
    }
    assert content(full, "/responses/pets") == {
        "application/json": {
            "schema": {
                "type": "array",
                "items": {
                    "anyOf": [
                        {"$ref": "#/components/schemas/Cat"},
                        {"$ref": "#/components/schemas/Dog"},
                    ],
                    "discriminator": {
                        "propertyName": "type",
                        "mapping": {
                            "cat": "#/components/schemas/Cat",
                            "dog": "#/components/schemas/Dog",
                        },
                    },
                },
            }
        }
    }


def test_summary_and_description_from_the_docstring(full: Document) -> None:
    found = operation(full, "/bodies/struct", "post")
    assert found["summary"] == "Every field type."
    assert found["description"] == "Sent back as it came."
    assert operation(full, "/bodies/dict", "post")["summary"] == "Dict Body"  # from the name
    assert "description" not in operation(full, "/bodies/dict", "post")


def test_route_keywords(full: Document) -> None:
    found = operation(full, "/docs-features/everything")
    assert found == {
        "tags": ["included", "docs", "extra"],
        "summary": "A summary",
        "description": "A description.",
        "operationId": "everything",
        "responses": {
            "200": {
                "description": "The thing",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}},
                "headers": {"X-Rate": {"schema": {"type": "integer"}}},
                "links": {},
            },
            "404": {
                "description": "Missing",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Node"}}},
            },
            "5XX": {"description": "Broken"},
            "503": error("Too many requests in progress", "HTTPError"),
            "504": error("The handler timed out", "HTTPError"),
        },
        "deprecated": True,
        "x-internal": True,
    }


def test_operation_ids_are_fastapis_and_one_per_method(full: Document) -> None:
    assert operation(full, "/params/query")["operationId"] == "query_params_params_query_get"
    many = full["paths"]["/docs-features/many"]
    assert list(many) == ["get", "put", "post"]
    assert [item["operationId"] for item in many.values()] == [
        "many_docs_features_many_get",
        "many_docs_features_many_put",
        "many_docs_features_many_post",
    ]


def test_clashing_operation_ids_are_numbered() -> None:
    app = App()

    @app.get("/a-b")
    async def f() -> str:
        return ""

    @app.get("/a_b")
    async def g() -> str:
        return ""

    app.add_route("/a.b", f)
    ids = [item["get"]["operationId"] for item in app.openapi()["paths"].values()]
    assert ids == ["f_a_b_get", "g_a_b_get", "f_a_b_get_2"]


def test_router_and_include_tags_come_before_the_routes() -> None:
    inner = Router(prefix="/inner", tags=["inner"])

    @inner.get("/x", tags=["own"])
    async def x() -> str:
        return ""

    outer = Router(prefix="/outer", tags=["outer"])
    outer.include(inner, tags=["via"])
    app = App()
    app.include(outer)
    assert operation(app.openapi(), "/outer/inner/x")["tags"] == ["outer", "via", "inner", "own"]


def test_one_openapi_path_for_two_converters_keeps_the_first() -> None:
    app = App()

    @app.get("/n/{n:int}")
    async def number(n: int) -> int:
        return n

    @app.get("/n/{n}")
    async def text(n: str) -> str:
        return n

    found = operation(app.openapi(), "/n/{n}")
    assert found["operationId"] == "number_n__n__get"


class Item(msgspec.Struct):
    name: Annotated[str, msgspec.Meta(examples=["Teapot"], description="The name.")]


class Opaque:
    pass


class Money:
    pass


def test_examples_and_descriptions_of_body_fields() -> None:
    app = App()

    @app.post("/items")
    async def create(
        item: Item, note: Annotated[str, Body(examples=["hi"])], x: Annotated[int, Header()] = 0
    ) -> Item:
        return item

    document = app.openapi()
    assert document["components"]["schemas"]["Item"]["properties"]["name"] == {
        "description": "The name.",
        "examples": ["Teapot"],
        "type": "string",
    }
    schema = operation(document, "/items", "post")["requestBody"]["content"]["application/json"]
    assert schema["schema"]["properties"]["note"] == {"examples": ["hi"], "type": "string"}
    v30 = openapi_30(document)
    assert v30["components"]["schemas"]["Item"]["properties"]["name"]["example"] == "Teapot"


def test_a_default_json_cannot_write_is_left_out() -> None:
    app = App()
    marker = object()

    @app.get("/odd")
    async def odd(value: Annotated[Any, Query()] = marker) -> str:
        return ""

    (parameter,) = operation(app.openapi(), "/odd")["parameters"]
    assert "default" not in parameter["schema"]


def test_a_class_msgspec_cannot_describe_is_any_json() -> None:
    app = App()

    @app.get("/opaque")
    async def opaque() -> Opaque:
        return Opaque()

    assert content(app.openapi(), "/opaque") == {"application/json": {"schema": {}}}


def test_a_schema_hook_describes_other_classes() -> None:
    app = App()

    @app.get("/money")
    async def money() -> list[Money]:
        return []

    document = get_openapi(
        title="t", version="1", routes=app.routes, schema_hook=lambda cls: {"type": "string"}
    )
    assert content(document, "/money") == {
        "application/json": {"schema": {"type": "array", "items": {"type": "string"}}}
    }


def test_the_hooks_read_todays_endpoint() -> None:
    (route,) = [
        route for route in api.app.routes if route.path == "/orders" and "POST" in route.methods
    ]
    endpoint = route.endpoint
    assert request_parameters(endpoint) == endpoint.parameters
    assert response_type(endpoint) is api.Receipt
    assert security(endpoint) == []


class Left(msgspec.Struct):
    left: int


class Right(msgspec.Struct):
    right: int


def test_a_type_msgspec_refuses_is_any_json() -> None:
    # Two untagged Structs in one union: msgspec cannot tell them apart, nor describe them.
    app = App()

    @app.get("/either")
    async def either() -> Left | Right:
        return Left(1)

    assert content(app.openapi(), "/either") == {"application/json": {"schema": {}}}


def test_a_mixed_enum_says_no_type() -> None:
    app = App()

    @app.get("/mixed")
    async def mixed(value: Literal[1, "one"] = 1) -> Literal["a", "b"]:
        return "a"

    document = app.openapi()
    (parameter,) = operation(document, "/mixed")["parameters"]
    assert parameter["schema"] == {"enum": [1, "one"], "default": 1}
    assert content(document, "/mixed") == {
        "application/json": {"schema": {"enum": ["a", "b"], "type": "string"}}
    }


def test_security_requirements_plug_in_through_the_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    from hasten.openapi import document as module

    bearer = {"type": "http", "scheme": "bearer"}

    def requirements(endpoint: Any) -> list[SecurityRequirement]:
        return [("HTTPBearer", bearer, [])] if endpoint.name.endswith("private") else []

    monkeypatch.setattr(module, "security", requirements)
    app = App()

    @app.get("/private")
    async def private() -> str:
        return ""

    @app.get("/public")
    async def public() -> str:
        return ""

    document = app.openapi()
    assert document["components"]["securitySchemes"] == {"HTTPBearer": bearer}
    assert operation(document, "/private")["security"] == [{"HTTPBearer": []}]
    assert "security" not in operation(document, "/public")
    validate(document)
    validate(openapi_30(document))


def test_websocket_routes_and_mounts_are_left_out() -> None:
    # As in FastAPI: OpenAPI describes HTTP operations; a WebSocket route has none, and a
    # mounted app documents itself.
    app = App()

    @app.get("/items")
    async def items() -> list[int]:
        return []

    @app.websocket("/items/live")
    async def live(websocket: WebSocket) -> None:
        await websocket.accept()

    async def legacy(scope: Any, receive: Any, send: Any) -> None:
        raise AssertionError("never called")

    app.mount("/legacy", legacy)
    app.mount("/static", StaticFiles(directory=Path(__file__).parent))
    document = app.openapi()
    assert list(document["paths"]) == ["/items"]
    validate(document)


class Listed(msgspec.Struct):
    name: str


def test_response_classes_and_generators_are_documented_as_fastapi_does() -> None:
    app = App()

    @app.get("/html", response_class=HTMLResponse)
    async def html() -> str:
        return ""

    @app.get("/redirect", response_class=RedirectResponse)
    async def redirect() -> str:
        return "/"

    @app.get("/json", response_class=JSONResponse)
    async def json() -> Listed:
        return Listed("a")

    @app.get("/lines")
    async def lines() -> AsyncIterator[Listed]:
        yield Listed("a")

    document = get_openapi(title="t", version="1", routes=app.routes)

    def success(path: str) -> Any:
        return operation(document, path)["responses"]

    assert success("/html")["200"]["content"] == {"text/html": {"schema": {"type": "string"}}}
    assert success("/redirect") == {"307": {"description": "Successful Response"}}
    item = {"$ref": "#/components/schemas/Listed"}
    assert success("/json")["200"]["content"] == {"application/json": {"schema": item}}
    assert success("/lines")["200"]["content"] == {"application/jsonl": {"itemSchema": item}}
