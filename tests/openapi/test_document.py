"""The document: what each route, parameter, body and response becomes, and that the whole
passes the OpenAPI validators as 3.1 and as 3.0."""

from __future__ import annotations

import copy
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec
import pydantic
import pydantic_core
import pytest
from openapi_spec_validator import validate
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError

from examples import api
from hasten import (
    App,
    Body,
    Depends,
    File,
    Form,
    Header,
    OAuth2PasswordBearer,
    OAuth2PasswordRequestForm,
    Query,
    Route,
    Router,
    Security,
    StaticFiles,
    UploadFile,
    WebSocket,
)
from hasten.errors import FastAPIError
from hasten.openapi import generate_unique_id, get_openapi, openapi_30
from hasten.openapi.operations import (
    SecurityRequirement,
    openapi_path,
    request_parameters,
    response_type,
    security,
)
from hasten.responses import HTMLResponse, JSONResponse, RedirectResponse
from hasten.sse import EventSourceResponse, ServerSentEvent
from hasten.testing import TestClient
from tests.conftest import ClientFactory
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
        if route.compiled.options.include_in_schema
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
    assert "externalDocs" not in document


def test_external_docs_are_the_documents() -> None:
    docs = {"description": "More", "url": "https://example.com/docs"}
    document = App(openapi_external_docs=docs).openapi()
    assert document["externalDocs"] == docs
    assert list(document)[-1] == "externalDocs"


def test_path_parameters_with_constraints_and_converters(full: Document) -> None:
    found = operation(full, "/params/path/{item_id}/{name}/{key}/{ratio}/{rest}")
    assert found["parameters"] == [
        {
            "name": "item_id",
            "in": "path",
            "description": "The item.",
            "required": True,
            "schema": {
                "title": "Item Id",
                "description": "The item.",
                "type": "integer",
                "minimum": 1,
            },
        },
        {
            "name": "name",
            "in": "path",
            "required": True,
            "schema": {"title": "Name", "type": "string", "maxLength": 8, "minLength": 2},
        },
        {
            "name": "key",
            "in": "path",
            "required": True,
            "schema": {"title": "Key", "type": "string", "format": "uuid"},
        },
        {
            "name": "ratio",
            "in": "path",
            "required": True,
            "schema": {"title": "Ratio", "type": "number"},
        },
        {
            "name": "rest",
            "in": "path",
            "required": True,
            "schema": {"title": "Rest", "type": "string"},
        },
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
        "title": "Limit",
        "examples": [10],
        "type": "integer",
        "minimum": 1,
        "maximum": 100,
        "default": 20,
    }
    assert parameters["word"]["schema"] == {
        "title": "Word",
        "type": "string",
        "maxLength": 5,
        "minLength": 1,
        "pattern": "^[a-z]+$",
        "default": "a",
    }
    assert parameters["scale"]["schema"] == {
        "title": "Scale",
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
        "schema": {
            "title": "Id",
            "type": "array",
            "items": {"type": "integer"},
            "maxItems": 3,
            "default": [],
        },
    }
    assert parameters["colors"]["schema"]["items"] == {"$ref": "#/components/schemas/Color"}
    assert parameters["order"]["schema"] == {
        "title": "Order",
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
        "schema": {
            "title": "Since",
            "anyOf": [{"type": "string", "format": "date"}, {"type": "null"}],
        },
    }
    assert parameters["old"]["deprecated"] is True
    assert parameters["old"]["description"] == "Use limit."
    assert "hidden" not in parameters


def test_header_and_cookie_parameters(full: Document) -> None:
    headers = operation(full, "/params/headers")["parameters"]
    assert [(item["name"], item["in"]) for item in headers] == [
        ("user-agent", "header"),
        ("X-Auth-Token", "header"),
        ("raw_name", "header"),
        ("x-tag", "header"),
    ]
    assert headers[1]["schema"] == {
        "title": "X-Auth-Token",  # its alias, titled as FastAPI titles it
        "type": "string",
        "minLength": 3,
        "default": "abc",
    }
    cookies = operation(full, "/params/cookies")["parameters"]
    assert cookies == [
        {
            "name": "session",
            "in": "cookie",
            "required": True,
            "schema": {"title": "Session", "type": "string", "minLength": 4},
        },
        {
            "name": "theme",
            "in": "cookie",
            "required": False,
            "schema": {
                "title": "Theme",
                "enum": ["dark", "light"],
                "type": "string",
                "default": "light",
            },
        },
    ]


def test_a_path_parameter_the_handler_does_not_take_is_still_declared(full: Document) -> None:
    assert operation(full, "/docs-features/request/{anything}")["parameters"] == [
        {"name": "anything", "in": "path", "required": True, "schema": {"type": "string"}}
    ]


def json_body(schema: Any, required: bool = True) -> dict[str, Any]:
    body: dict[str, Any] = {"content": {"application/json": {"schema": schema}}}
    if required:  # FastAPI writes ``required`` only when it is true
        body["required"] = True
    return body


def body_component(
    document: Document, path: str, name: str, media: str = "application/json"
) -> Any:
    """The object of a route's embedded body members or form fields: the component FastAPI
    names ``Body_`` and the operation's id."""
    body: dict[str, Any] = {
        "content": {media: {"schema": {"$ref": f"#/components/schemas/{name}"}}}
    }
    if "required" in document["components"]["schemas"][name]:
        body["required"] = True
    assert operation(document, path, "post")["requestBody"] == body
    return document["components"]["schemas"][name]


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
        {"title": "Counts", "type": "object", "additionalProperties": {"type": "integer"}}
    )
    assert operation(full, "/bodies/list", "post")["requestBody"] == json_body(
        {"title": "Nodes", "type": "array", "items": {"$ref": "#/components/schemas/Node"}}
    )
    # Several body parameters: one object, a member each, as hasten reads them.
    assert body_component(full, "/bodies/embedded", "Body_embedded_body_bodies_embedded_post") == {
        "type": "object",
        "title": "Body_embedded_body_bodies_embedded_post",
        "properties": {
            "shipment": {"$ref": "#/components/schemas/Shipment"},
            "customer": {"$ref": "#/components/schemas/Customer"},
            "note": {"title": "Note", "type": "string", "maxLength": 20, "default": ""},
        },
        "required": ["shipment", "customer"],
    }
    assert body_component(full, "/bodies/embed-one", "Body_embed_one_bodies_embed_one_post") == {
        "type": "object",
        "title": "Body_embed_one_bodies_embed_one_post",
        "properties": {
            "name": {"title": "Name", "description": "Who.", "examples": ["Ann"], "type": "string"}
        },
        "required": ["name"],
    }


def test_an_embedded_body_of_optional_members_is_not_required(full: Document) -> None:
    name = "Body_embed_optional_bodies_embed_optional_post"
    assert body_component(full, "/bodies/embed-optional", name) == {
        "type": "object",
        "title": name,
        "properties": {"limit": {"title": "Limit", "type": "integer", "minimum": 1, "default": 1}},
    }


def test_an_optional_body_is_not_required(full: Document) -> None:
    assert operation(full, "/bodies/optional", "post")["requestBody"] == {
        **json_body(
            {
                # Beside the anyOf, as FastAPI writes it.
                "anyOf": [{"$ref": "#/components/schemas/Shipment"}, {"type": "null"}],
                "description": "Maybe a shipment.",
                "title": "Shipment",
            },
            required=False,
        ),
        "description": "Maybe a shipment.",
    }


def error(description: str, component: str) -> dict[str, Any]:
    schema = {"$ref": f"#/components/schemas/{component}"}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def test_a_body_route_declares_its_422_as_fastapi_does(full: Document) -> None:
    responses = operation(full, "/bodies/struct", "post")["responses"]
    assert responses == {
        "201": {
            "description": "Successful Response",
            "content": {
                "application/json": {"schema": {"$ref": "#/components/schemas/Everything"}}
            },
        },
        "422": error("Validation Error", "HTTPValidationError"),
    }
    assert full["components"]["schemas"]["HTTPValidationError"] == {
        "properties": {
            "detail": {
                "items": {"$ref": "#/components/schemas/ValidationError"},
                "type": "array",
                "title": "Detail",
            }
        },
        "type": "object",
        "title": "HTTPValidationError",
    }
    assert full["components"]["schemas"]["ValidationError"] == {
        "properties": {
            "loc": {
                "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
                "type": "array",
                "title": "Location",
            },
            "msg": {"type": "string", "title": "Message"},
            "type": {"type": "string", "title": "Error Type"},
            "input": {"title": "Input"},
            "ctx": {"type": "object", "title": "Context"},
        },
        "type": "object",
        "required": ["loc", "msg", "type"],
        "title": "ValidationError",
    }


def test_a_route_without_parameters_declares_no_422(full: Document) -> None:
    assert list(operation(full, "/responses/text")["responses"]) == ["200"]


def content(full: Document, path: str, method: str = "get", status: str = "200") -> Any:
    return operation(full, path, method)["responses"][status].get("content")


def test_responses_by_return_annotation(full: Document) -> None:
    # A str, and bytes (their text), are JSON strings, as FastAPI sends and documents them.
    assert content(full, "/responses/text") == {
        "application/json": {
            "schema": {"title": "Response Text Responses Text Get", "type": "string"}
        }
    }
    assert content(full, "/responses/bytes") == {
        "application/json": {
            "schema": {
                "type": "string",
                "contentMediaType": "application/octet-stream",
                "title": "Response Raw Bytes Responses Bytes Get",
            }
        }
    }
    assert content(full, "/responses/nothing", "delete", "204") is None
    assert content(full, "/responses/html") == {"text/html": {"schema": {"type": "string"}}}
    assert content(full, "/responses/plain") == {"text/plain": {"schema": {"type": "string"}}}
    assert content(full, "/responses/json") == {"application/json": {"schema": {}}}
    # Any other Response: FastAPI documents the route's default, JSON of any kind.
    assert content(full, "/responses/response") == {"application/json": {"schema": {}}}
    assert content(full, "/responses/stream") == {"application/json": {"schema": {}}}
    assert content(full, "/responses/untyped") == {"application/json": {"schema": {}}}
    assert content(full, "/responses/null") == {"application/json": {"schema": {"type": "null"}}}
    assert content(full, "/responses/union") == {
        "application/json": {
            "schema": {
                "title": "Response Union Responses Union Get",
                "anyOf": [
                    {"type": "string"},
                    {"$ref": "#/components/schemas/Node"},
                    {"type": "null"},
                ],
            }
        },
    }
    assert content(full, "/responses/pets") == {
        "application/json": {
            "schema": {
                "title": "Response Pets Responses Pets Get",
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


def test_summary_from_the_name_and_description_from_the_docstring(full: Document) -> None:
    found = operation(full, "/bodies/struct", "post")
    assert found["summary"] == "Struct Body"
    assert found["description"] == "Every field type.\n\nSent back as it came."
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


def test_clashing_operation_ids_are_numbered_with_fastapis_warning() -> None:
    app = App()

    @app.get("/a-b")
    async def f() -> str:
        return ""

    @app.get("/a_b")
    async def g() -> str:
        return ""

    app.add_api_route("/a.b", f)
    with pytest.warns(UserWarning, match="^Duplicate Operation ID f_a_b_get for function f at "):
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


def test_one_openapi_path_for_two_converters_keeps_the_last_as_fastapi() -> None:
    app = App()

    @app.get("/n/{n:int}")
    async def number(n: int) -> int:
        return n

    @app.get("/n/{n}")
    async def text(n: str) -> str:
        return n

    found = operation(app.openapi(), "/n/{n}")
    assert found["operationId"] == "text_n__n__get"


def test_a_callbacks_routers_routes_are_documented_on_the_operation(
    serve: ClientFactory,
) -> None:
    callbacks = Router()

    @callbacks.post("{$callback_url}/invoices/{$request.body.id}")
    def invoice_notification(body: dict[str, bool]) -> None:
        """Tell the API user."""

    app = App()

    @app.post("/invoices/", callbacks=callbacks.routes)
    def create_invoice(callback_url: str | None = None) -> dict[str, str]:
        return {"msg": "Invoice received"}

    client = serve(app)
    response = client.post("/invoices/")
    assert (response.status_code, response.json()) == (200, {"msg": "Invoice received"})
    assert client.post("/{$callback_url}/invoices/{$request.body.id}").status_code == 404
    callback = callbacks.routes[0]
    assert isinstance(callback, Route)
    assert callback.endpoint({}) is None  # the function, as FastAPI's route.endpoint
    document = client.get("/openapi.json").json()
    validate(document)
    found = document["paths"]["/invoices/"]["post"]["callbacks"]
    assert list(found) == ["invoice_notification"]
    sent = found["invoice_notification"]["{$callback_url}/invoices/{$request.body.id}"]["post"]
    assert sent["operationId"] == (
        "invoice_notification__callback_url__invoices___request_body_id__post"
    )
    assert (sent["summary"], sent["description"]) == ("Invoice Notification", "Tell the API user.")
    assert sent["requestBody"]["required"] is True
    assert list(document["paths"]) == ["/invoices/"]


class Item(msgspec.Struct):
    name: Annotated[str, msgspec.Meta(examples=["Teapot"], description="The name.")]


class Opaque:
    pass


class Money:
    """A class msgspec does not know, but pydantic does: a valid response model."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        return pydantic_core.core_schema.any_schema()


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
    schema = body_component(document, "/items", "Body_create_items_post")
    assert schema["properties"]["note"] == {"title": "Note", "examples": ["hi"], "type": "string"}
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


def test_a_response_model_nothing_can_describe_is_refused_as_fastapi_does() -> None:
    app = App()
    with pytest.raises(FastAPIError, match="invalid args for response field"):

        @app.get("/opaque")
        async def opaque() -> Opaque:
            return Opaque()

    with pytest.raises(FastAPIError, match="invalid args for response field"):

        @app.get("/declared", responses={500: {"model": list[Opaque]}})
        async def declared() -> None: ...

    @app.get("/unchecked", response_model=None)
    async def unchecked() -> Opaque:
        return Opaque()

    assert content(app.openapi(), "/unchecked") == {"application/json": {"schema": {}}}


def test_a_schema_hook_describes_other_classes() -> None:
    app = App()

    @app.get("/money")
    async def money() -> list[Money]:
        return []

    document = get_openapi(
        title="t", version="1", routes=app.routes, schema_hook=lambda cls: {"type": "string"}
    )
    assert content(document, "/money") == {
        "application/json": {
            "schema": {
                "title": "Response Money Money Get",
                "type": "array",
                "items": {"type": "string"},
            }
        }
    }


def test_the_hooks_read_todays_route() -> None:
    (route,) = [
        route for route in api.app.routes if route.path == "/orders" and "POST" in route.methods
    ]
    assert isinstance(route, Route)
    assert request_parameters(route) == route.compiled.parameters
    assert response_type(route.compiled) is api.Receipt
    assert security(route) == []


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

    assert content(app.openapi(), "/either") == {
        "application/json": {"schema": {"title": "Response Either Either Get"}}
    }


def test_a_mixed_enum_says_no_type() -> None:
    app = App()

    @app.get("/mixed")
    async def mixed(value: Literal[1, "one"] = 1) -> Literal["a", "b"]:
        return "a"

    document = app.openapi()
    (parameter,) = operation(document, "/mixed")["parameters"]
    assert parameter["schema"] == {"title": "Value", "enum": [1, "one"], "default": 1}
    assert content(document, "/mixed") == {
        "application/json": {
            "schema": {"title": "Response Mixed Mixed Get", "enum": ["a", "b"], "type": "string"}
        }
    }


def test_security_requirements_plug_in_through_the_hook(monkeypatch: pytest.MonkeyPatch) -> None:
    from hasten.openapi import document as module

    bearer = {"type": "http", "scheme": "bearer"}

    def requirements(route: Any) -> list[SecurityRequirement]:
        return [("HTTPBearer", bearer, [])] if route.path == "/private" else []

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


def test_the_apps_and_routers_dependencies_document_their_parameters_and_422() -> None:
    async def verify_token(x_token: Annotated[str, Header()]) -> None:
        return None

    async def verify_key(key: str) -> None:
        return None

    app = App(dependencies=[Depends(verify_token)])
    router = Router(dependencies=[Depends(verify_key)])

    @app.get("/items/")
    async def read_items() -> list[str]:
        return []

    @router.get("/users/")
    async def read_users() -> list[str]:
        return []

    app.include_router(router)
    document = app.openapi()
    token_schema = {"title": "X-Token", "type": "string"}  # its wire name, as FastAPI 0.165
    token = {"name": "x-token", "in": "header", "required": True, "schema": token_schema}
    key_schema = {"title": "Key", "type": "string"}
    key = {"name": "key", "in": "query", "required": True, "schema": key_schema}
    assert operation(document, "/items/")["parameters"] == [token]
    # By where each is, as FastAPI lists them: the query's before the header's.
    assert operation(document, "/users/")["parameters"] == [key, token]
    for path in ("/items/", "/users/"):
        assert list(operation(document, path)["responses"]) == ["200", "422"]


def test_files_optional_or_many_with_their_descriptions() -> None:
    app = App()

    @app.post("/files/")
    async def create_files(
        files: Annotated[list[bytes], File(description="Many files.")],
        cover: Annotated[UploadFile | None, File()] = None,
    ) -> None:
        return None

    document = app.openapi()
    name = "Body_create_files_files__post"
    schema = body_component(document, "/files/", name, "multipart/form-data")
    binary = {"type": "string", "contentMediaType": "application/octet-stream"}
    assert schema["properties"] == {
        "files": {"type": "array", "items": binary, "title": "Files", "description": "Many files."},
        "cover": {"anyOf": [binary, {"type": "null"}], "title": "Cover"},
    }
    assert schema["required"] == ["files"]


NORMAL = {"summary": "A normal example", "value": {"id": 1}}
SHORT = {"summary": "Short", "value": "ab"}


def test_openapi_examples_are_example_objects_beside_the_schema() -> None:
    app = App()

    @app.put("/items/")
    async def update(
        item: Annotated[dict[str, int], Body(openapi_examples={"normal": NORMAL})],
        q: Annotated[str, Query(openapi_examples={"short": SHORT})] = "",
    ) -> None:
        return None

    found = operation(document := app.openapi(), "/items/", "put")
    assert found["requestBody"]["content"]["application/json"] == {
        "schema": {"title": "Item", "type": "object", "additionalProperties": {"type": "integer"}},
        "examples": {"normal": NORMAL},
    }
    (parameter,) = found["parameters"]
    assert parameter["examples"] == {"short": SHORT}
    assert "examples" not in parameter["schema"]
    validate(document)


def test_json_schema_extra_and_the_password_forms_secret_fields() -> None:
    app = App()

    @app.post("/token")
    async def login(
        form: Annotated[OAuth2PasswordRequestForm, Depends()],
        code: Annotated[str, Query(json_schema_extra={"format": "otp"})] = "",
    ) -> None:
        return None

    document = app.openapi()
    (parameter,) = operation(document, "/token", "post")["parameters"]
    assert parameter["schema"] == {
        "title": "Code",
        "type": "string",
        "default": "",
        "format": "otp",
    }
    name = "Body_login_token_post"
    body = body_component(document, "/token", name, "application/x-www-form-urlencoded")
    assert body["properties"]["password"] == {
        "title": "Password",
        "type": "string",
        "format": "password",
    }
    assert body["properties"]["client_secret"] == {
        "title": "Client Secret",
        "anyOf": [{"type": "string"}, {"type": "null"}],
        "format": "password",
    }


def test_response_model_none_documents_any_json() -> None:
    app = App()

    @app.get("/portal", response_model=None)
    async def portal() -> dict[str, int]:
        return {}

    assert content(app.openapi(), "/portal") == {"application/json": {"schema": {}}}


def test_generate_unique_id_function_names_operations_and_bodies() -> None:
    def tag_and_name(route: Route) -> str:
        return f"{route.tags[0]}-{route.name}"

    app = App(generate_unique_id_function=tag_and_name)
    router = Router(tags=["shop"])

    @router.post("/items/", tags=["items"])
    async def create_item(name: Annotated[str, Body()], price: Annotated[int, Body()]) -> None:
        return None

    @app.get("/users/", tags=["users"], operation_id="listUsers")
    async def read_users() -> list[str]:
        return []

    app.include_router(router)
    document = app.openapi()
    found = operation(document, "/items/", "post")
    assert found["tags"] == ["shop", "items"]
    assert found["operationId"] == "shop-create_item"
    assert "Body_shop-create_item" in document["components"]["schemas"]
    assert operation(document, "/users/")["operationId"] == "listUsers"
    (route,) = [route for route in app.routes if route.path == "/users/"]
    assert isinstance(route, Route)
    assert generate_unique_id(route) == "read_users_users__get"


class Subscription(msgspec.Struct):
    username: str


def test_webhooks_are_documented_by_name_and_never_served() -> None:
    app = App()

    @app.webhooks.post("new-subscription")
    def new_subscription(body: Subscription) -> None:
        """Sent when a user subscribes."""

    document = app.openapi()
    assert document["paths"] == {}
    assert document["webhooks"] == {
        "new-subscription": {
            "post": {
                "summary": "New Subscription",
                "description": "Sent when a user subscribes.",
                "operationId": "new_subscriptionnew_subscription_post",
                "requestBody": json_body({"$ref": "#/components/schemas/Subscription"}),
                "responses": {
                    "200": {
                        "description": "Successful Response",
                        "content": {"application/json": {"schema": {"type": "null"}}},
                    },
                    "422": error("Validation Error", "HTTPValidationError"),
                },
            }
        }
    }
    validate(document)
    with TestClient(app) as client:
        assert client.post("/new-subscription", json={"username": "a"}).status_code == 404
    (route,) = app.webhooks.routes
    assert isinstance(route, Route)
    assert route.endpoint(Subscription("a")) is None  # the function, as Starlette's endpoint


OAUTH2 = OAuth2PasswordBearer(tokenUrl="token", scopes={"me": "You.", "items": "Your items."})


async def current_user(token: Annotated[str, Depends(OAUTH2)]) -> str:
    return token


async def active_user(user: Annotated[str, Security(current_user, scopes=["me"])]) -> str:
    return user


def test_a_scheme_requires_the_scopes_of_every_security_above_it() -> None:
    app = App()

    @app.get("/users/me")
    async def me(user: Annotated[str, Depends(active_user)]) -> str:
        return user

    @app.get("/users/me/items")
    async def items(user: Annotated[str, Security(active_user, scopes=["items"])]) -> str:
        return user

    document = app.openapi()
    assert operation(document, "/users/me")["security"] == [{"OAuth2PasswordBearer": ["me"]}]
    assert operation(document, "/users/me/items")["security"] == [
        {"OAuth2PasswordBearer": ["items", "me"]}
    ]


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


class Price(msgspec.Struct):
    name: str
    price: float


def test_server_sent_events_document_each_event_as_fastapi(serve: ClientFactory) -> None:
    app = App()

    @app.get("/prices", response_class=EventSourceResponse)
    async def prices() -> AsyncIterator[Price]:
        yield Price("Plumbus", 32.99)

    @app.get("/events", response_class=EventSourceResponse)
    async def events() -> AsyncIterator[ServerSentEvent]:
        yield ServerSentEvent(data="tick", event="clock")

    client = serve(app)
    response = client.get("/prices")
    assert (response.status_code, response.text) == (
        200,
        'data: {"name":"Plumbus","price":32.99}\n\n',
    )
    document = client.get("/openapi.json").json()
    event = {
        "data": {"type": "string"},
        "event": {"type": "string"},
        "id": {"type": "string"},
        "retry": {"type": "integer", "minimum": 0},
    }
    priced = {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": {"$ref": "#/components/schemas/Price"},
    }
    assert operation(document, "/prices")["responses"]["200"]["content"] == {
        "text/event-stream": {
            "itemSchema": {
                "type": "object",
                "properties": {**event, "data": priced},
                "required": ["data"],
            }
        }
    }
    assert operation(document, "/events")["responses"]["200"]["content"] == {
        "text/event-stream": {"itemSchema": {"type": "object", "properties": event}}
    }
    assert sorted(document["components"]["schemas"]) == ["Price"]  # no ServerSentEvent


VND = "application/vnd.api+json"


def test_a_body_is_documented_in_the_media_type_its_parameters_give() -> None:
    app = App()

    @app.post("/json")
    async def json_body(data: Annotated[dict[str, int], Body(media_type=VND)]) -> None: ...

    @app.post("/members")
    async def members(
        a: Annotated[int, Body(media_type=VND)], b: Annotated[int, Body(media_type=VND)]
    ) -> None: ...

    @app.post("/mixed")
    async def mixed(a: Annotated[int, Body(media_type=VND)], b: Annotated[int, Body()]) -> None: ...

    @app.post("/form")
    async def form(
        a: Annotated[str, Form()], b: Annotated[str, Form(media_type="multipart/form-data")]
    ) -> None: ...

    @app.post("/file")
    async def file(
        a: Annotated[str, Form(media_type="application/x-www-form-urlencoded; charset=utf-8")],
        b: Annotated[bytes, File()],
    ) -> None: ...

    document = app.openapi()

    def media(path: str) -> list[str]:
        return list(operation(document, path, "post")["requestBody"]["content"])

    assert media("/json") == [VND]
    assert media("/members") == [VND]
    assert media("/mixed") == ["application/json"]  # they disagree: FastAPI's default
    assert media("/form") == ["multipart/form-data"]  # one field asks for it
    assert media("/file") == ["multipart/form-data"]


def count_files(files: Annotated[list[bytes], File()]) -> int:
    return len(files)


def test_a_form_value_read_by_one_name_as_two_types_is_documented_twice() -> None:
    app = App()

    @app.post("/")
    async def submit(
        counted: Annotated[int, Depends(count_files)],
        files: Annotated[list[UploadFile], File()],
        last: Annotated[bytes, File(alias="files")],
    ) -> None: ...

    document = app.openapi()
    body = document["components"]["schemas"]["Body_submit__post"]
    assert body["properties"]["files"]["type"] == "array"
    # As FastAPI: the other types read by that name beside it, in allOf.
    assert [item["properties"]["files"].get("type") for item in body["allOf"]] == [
        "array",
        "string",
    ]


def test_a_bytes_default_is_documented_as_its_text(serve: ClientFactory) -> None:
    app = App()

    @app.post("/upload")
    def upload(
        file: Annotated[bytes | None, File()] = b"default",
        note: Annotated[bytes, Form()] = b"none",
        tags: Annotated[list[bytes], Query()] = [b"a"],  # noqa: B006
    ) -> dict[str, int]:
        return {"file": len(file or b""), "note": len(note), "tags": len(tags)}

    client = serve(app)
    document = client.get("/openapi.json").json()
    body = document["components"]["schemas"]["Body_upload_upload_post"]["properties"]
    # As FastAPI (pydantic) writes bytes: their UTF-8 text, not base64 ("ZGVmYXVsdA==").
    assert body["file"]["default"] == "default"
    assert body["note"]["default"] == "none"
    (query,) = document["paths"]["/upload"]["post"]["parameters"]
    assert query["schema"]["default"] == ["a"]
    response = client.post("/upload", files={"note": (None, b"no")})
    assert (response.status_code, response.json()) == (200, {"file": 7, "note": 2, "tags": 1})


class Named(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(populate_by_name=True)
    name: str = pydantic.Field(alias="display_name")
    department: str


def test_a_form_model_read_by_two_names_is_documented_with_both() -> None:
    app = App()

    @app.post("/")
    async def submit(
        profile: Annotated[Named | None, Form()] = None, note: Annotated[str, Form()] = ""
    ) -> None: ...

    document = app.openapi()
    body = document["components"]["schemas"]["Body_submit__post"]
    present = body["allOf"][0]["anyOf"][1]["anyOf"][0]
    # As FastAPI: the form's own copy, "one of its names" for the field (it was the $ref).
    assert present == {
        "properties": {
            "display_name": {"title": "Display Name", "type": "string"},
            "department": {"title": "Department", "type": "string"},
        },
        "required": ["department"],
        "allOf": [{"anyOf": [{"required": ["display_name"]}, {"required": ["name"]}]}],
        "title": "Named",
        "type": "object",
    }
    assert document["components"]["schemas"]["Named"]["required"] == ["display_name", "department"]
