"""What an operation documents as FastAPI 0.165 does: ``responses=`` (its keys, descriptions,
models in the route's media type, a 422 of the app's own), the title of a response's schema,
an untyped parameter, ``openapi_extra`` lists, ``example=``; and the OpenAPI models."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec
import pytest
from pydantic import BaseModel, ValidationError

from hasten import App, Body, Cookie, Depends, Header, Query
from hasten.errors import FastAPIDeprecationWarning
from hasten.openapi.models import OAuthFlowPassword, OAuthFlows, OpenAPI, Schema
from hasten.responses import HTMLResponse
from hasten.security import OAuth2
from tests.conftest import ClientFactory

REF = "#/components/schemas/"


class Problem(msgspec.Struct):
    code: int


class Item(BaseModel):
    data: str


def test_responses_keys_descriptions_and_models_are_fastapis(serve: ClientFactory) -> None:
    app = App()

    @app.get(
        "/page",
        response_class=HTMLResponse,
        responses={
            "5xx": {"description": "Broken"},
            "4xx": {},
            "DEFAULT": {"model": Problem},
            404: {"model": list[Problem]},
            418: {},
        },
    )
    def page() -> str:
        return "<p>hi</p>"

    document = serve(app).get("/openapi.json").json()
    responses = document["paths"]["/page"]["get"]["responses"]
    assert responses == {
        "200": {
            "description": "Successful Response",
            "content": {"text/html": {"schema": {"type": "string"}}},
        },
        "5XX": {"description": "Broken"},
        "4XX": {"description": "Client Error"},
        "default": {
            "description": "Default Response",
            "content": {"text/html": {"schema": {"$ref": REF + "Problem"}}},
        },
        "404": {
            "description": "Not Found",
            "content": {
                "text/html": {
                    "schema": {
                        "title": "Response 404 Page Page Get",
                        "type": "array",
                        "items": {"$ref": REF + "Problem"},
                    }
                }
            },
        },
        "418": {"description": "I'm a Teapot"},
    }  # fmt: skip


def test_a_responses_key_that_is_no_status_is_a_value_error() -> None:
    app = App()

    @app.get("/a", responses={"hello": {"description": "no status"}})
    def a() -> None: ...

    with pytest.raises(ValueError, match=r"^responses=\{'hello': ...\}: a key is a status code"):
        app.openapi()


def test_an_apps_own_422_replaces_the_validation_error(serve: ClientFactory) -> None:
    app = App()

    @app.get("/a/{item_id}", responses={422: {"description": "Bad", "model": Problem}})
    def a(item_id: int) -> None: ...

    @app.get("/b", responses={"4XX": {"description": "Any client error"}})
    def b(q: int) -> None: ...

    document = serve(app).get("/openapi.json").json()
    assert document["paths"]["/a/{item_id}"]["get"]["responses"]["422"] == {
        "description": "Bad",
        "content": {"application/json": {"schema": {"$ref": REF + "Problem"}}},
    }
    assert "422" not in document["paths"]["/b"]["get"]["responses"]
    assert sorted(document["components"]["schemas"]) == ["Problem"]


def test_a_response_schema_that_is_no_reference_is_titled_by_the_operation(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.get("/items/", generate_unique_id_function=lambda route: f"own_{route.name}")
    def read_items() -> list[Problem]:
        return []

    @app.get("/one")
    def read_one() -> Problem:
        return Problem(1)

    @app.get("/nothing")
    def nothing() -> None: ...

    document = serve(app).get("/openapi.json").json()

    def schema(path: str) -> Any:
        return document["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]

    assert schema("/items/") == {
        "schema": {
            "title": "Response Own Read Items",
            "type": "array",
            "items": {"$ref": REF + "Problem"},
        }
    }
    assert schema("/one") == {"schema": {"$ref": REF + "Problem"}}
    assert schema("/nothing") == {"schema": {"type": "null"}}


def test_an_untyped_parameter_is_documented_as_any_value(serve: ClientFactory) -> None:
    app = App()

    @app.get("/items/{item_id}")
    def read(item_id, q=None) -> Any:  # type: ignore[no-untyped-def]  # untyped on purpose
        return {"item_id": item_id, "q": q}

    client = serve(app)
    assert client.get("/items/3?q=x").json() == {"item_id": "3", "q": "x"}
    parameters = client.get("/openapi.json").json()["paths"]["/items/{item_id}"]["get"][
        "parameters"
    ]
    assert parameters == [
        {"name": "item_id", "in": "path", "required": True, "schema": {"title": "Item Id"}},
        {"name": "q", "in": "query", "required": False, "schema": {"title": "Q"}},
    ]


def test_openapi_extra_adds_to_the_operations_lists(serve: ClientFactory) -> None:
    app = App()
    extra = {"name": "extra", "in": "query", "required": False, "schema": {"type": "string"}}

    @app.get("/", openapi_extra={"parameters": [extra], "x-note": {"a": 1}})
    def read(standard: int = 1) -> None: ...

    found = serve(app).get("/openapi.json").json()["paths"]["/"]["get"]
    assert [item["name"] for item in found["parameters"]] == ["standard", "extra"]
    assert found["x-note"] == {"a": 1}


def test_example_is_written_beside_the_schema_as_fastapi_does(serve: ClientFactory) -> None:
    app = App()

    with pytest.warns(FastAPIDeprecationWarning, match="^`example` has been deprecated"):

        @app.post("/items/")
        def create(
            item: Annotated[Item, Body(example={"data": "body"})],
            q: Annotated[str | None, Query(example="query", openapi_examples=None)] = None,
        ) -> None: ...

    document = serve(app).get("/openapi.json").json()
    found = document["paths"]["/items/"]["post"]
    assert found["requestBody"]["content"]["application/json"]["example"] == {"data": "body"}
    assert found["parameters"][0]["example"] == "query"


def test_the_openapi_models_read_the_document_and_validate_as_fastapis() -> None:
    app = App()

    @app.get("/items/{item_id}")
    def read(item_id: int) -> list[Problem]:
        return []

    document = app.openapi()
    model = OpenAPI.model_validate(document)
    assert model.model_dump(by_alias=True, exclude_none=True, mode="json") == document
    assert Schema(type=["string", "null"]).type == ["string", "null"]
    with pytest.raises(ValidationError, match=r"^2 validation errors for Schema"):
        Schema(type=True)  # type: ignore[arg-type]  # refused, which is the point
    flows = OAuthFlows(password=OAuthFlowPassword(tokenUrl="token", scopes={"me": "Me"}))
    assert OAuth2(flows=flows).security_scheme() == {
        "type": "oauth2",
        "flows": {"password": {"tokenUrl": "token", "scopes": {"me": "Me"}}},
    }


def test_a_dict_of_any_values_says_so_as_pydantic_does(serve: ClientFactory) -> None:
    app = App()

    @app.post("/items")
    def create(item: dict[str, Any]) -> dict[str, int]:
        return {}

    found = serve(app).get("/openapi.json").json()["paths"]["/items"]["post"]
    assert found["requestBody"]["content"]["application/json"]["schema"] == {
        "title": "Item",
        "type": "object",
        "additionalProperties": True,
    }
    assert found["responses"]["200"]["content"]["application/json"]["schema"] == {
        "title": "Response Create Items Post",
        "type": "object",
        "additionalProperties": {"type": "integer"},
    }


def test_parameters_are_listed_by_where_they_are_as_fastapi_lists_them(
    serve: ClientFactory,
) -> None:
    app = App()

    async def token(x_token: Annotated[str, Header()], page: int = 1) -> None: ...

    @app.get("/users/{username}", dependencies=[Depends(token)])
    def read(session: Annotated[str, Cookie()], q: str, username: str) -> None: ...

    found = serve(app).get("/openapi.json").json()["paths"]["/users/{username}"]["get"]
    assert [(item["in"], item["name"]) for item in found["parameters"]] == [
        ("path", "username"),
        ("query", "page"),
        ("query", "q"),
        ("header", "x-token"),
        ("cookie", "session"),
    ]
