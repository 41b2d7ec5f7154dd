"""The names a value is read by, through both adapters, as FastAPI reads them: aliases,
pydantic's ``AliasChoices`` and ``AliasPath``, a pydantic ``Field()`` beside the marker, a
header model's names; and ``validate_default``."""

from typing import Annotated, Any

import pytest
from pydantic import AliasChoices, AliasPath, BaseModel, BeforeValidator, ConfigDict, Field

from hasten import App, Body, Cookie, Depends, Header, Path, Query, Router
from tests.conftest import ClientFactory

INT = "Input should be a valid integer, unable to parse string as an integer"


def int_parsing(loc: list[str | int], value: str) -> dict[str, Any]:
    return {"type": "int_parsing", "loc": loc, "msg": INT, "input": value}


class Choices(BaseModel):
    value: Annotated[int, Field(alias="ignored", validation_alias=AliasChoices("first", "second"))]
    items: Annotated[list[str], Field(validation_alias=AliasChoices("item", "tag"))] = ["none"]


def choices_app() -> App:
    app = App()

    @app.get("/query")
    async def query(
        value: Annotated[
            int, Query(alias="ignored", validation_alias=AliasChoices("first", "second"))
        ],
        items: Annotated[list[str], Query(validation_alias=AliasChoices("item", "tag"))] = [  # noqa: B006
            "none"
        ],
    ) -> dict[str, Any]:
        return {"value": value, "items": items}

    @app.get("/query-model")
    async def query_model(data: Annotated[Choices, Query()]) -> dict[str, Any]:
        return {"value": data.value, "items": data.items}

    @app.get("/header")
    async def header(
        value: Annotated[int, Header(validation_alias=AliasChoices("X-First", "X-Second"))],
    ) -> int:
        return value

    @app.get("/cookie")
    async def cookie(
        value: Annotated[int, Cookie(validation_alias=AliasChoices("session", "legacy"))],
    ) -> int:
        return value

    return app


@pytest.mark.parametrize("path", ["/query", "/query-model"])
def test_alias_choices_read_the_first_name_the_query_has(serve: ClientFactory, path: str) -> None:
    client = serve(choices_app())
    assert client.get(f"{path}?second=2").json() == {"value": 2, "items": ["none"]}
    # The declared order decides, not the request's; a list keeps every value of its name.
    response = client.get(f"{path}?second=2&first=1&tag=unused&item=a&item=b")
    assert response.json() == {"value": 1, "items": ["a", "b"]}
    # A bad value is named by the name it came by; a missing one by the first name.
    assert client.get(f"{path}?first=x&second=2").json() == {
        "detail": [int_parsing(["query", "first"], "x")]
    }
    assert client.get(f"{path}?second=x").json() == {
        "detail": [int_parsing(["query", "second"], "x")]
    }
    # (A model says what it was given, as pydantic does.)
    given = None if path == "/query" else {"ignored": "1"}
    assert client.get(f"{path}?ignored=1").json() == {
        "detail": [
            {"type": "missing", "loc": ["query", "first"], "msg": "Field required", "input": given}
        ]
    }


def test_alias_choices_of_headers_and_cookies(serve: ClientFactory) -> None:
    client = serve(choices_app())
    assert client.get("/header", headers={"x-second": "2"}).json() == 2
    assert client.get("/header", headers={"X-SECOND": "x"}).json() == {
        "detail": [int_parsing(["header", "X-Second"], "x")]
    }
    assert client.get("/cookie", headers={"cookie": "legacy=2; session=1"}).json() == 1
    assert client.get("/cookie", headers={"cookie": "legacy=x"}).json() == {
        "detail": [int_parsing(["cookie", "legacy"], "x")]
    }
    # Cookie names keep their case.
    assert client.get("/cookie", headers={"cookie": "Session=1"}).json()["detail"][0]["loc"] == [
        "cookie",
        "session",
    ]


def test_a_path_value_takes_the_choice_each_route_has(serve: ClientFactory) -> None:
    identifier = Path(alias="unused", validation_alias=AliasChoices("item_id", "id"), ge=1)

    def get_identifier(value: Annotated[int, identifier]) -> int:
        return value

    router = Router()

    @router.get("/")
    async def read(value: Annotated[int, Depends(get_identifier)]) -> int:
        return value

    app = App()
    app.include_router(router, prefix="/items/{item_id}")
    app.include_router(router, prefix="/legacy/{id}")
    client = serve(app)
    assert client.get("/items/3/").json() == 3
    assert client.get("/legacy/4/").json() == 4
    assert client.get("/legacy/0/").json() == {
        "detail": [
            {
                "type": "greater_than_equal",
                "loc": ["path", "id"],
                "msg": "Input should be greater than or equal to 1",
                "input": "0",
                "ctx": {"ge": 1},
            }
        ]
    }
    # The marker, shared by both routes, is left as it was given.
    assert identifier.validation_alias == AliasChoices("item_id", "id")
    assert identifier.alias == "unused"


def test_an_alias_path_on_a_value_reads_it_by_its_name(serve: ClientFactory) -> None:
    app = App()

    @app.get("/")
    async def read(value: Annotated[int, Query(validation_alias=AliasPath("items", 0))]) -> int:
        return value

    assert serve(app).get("/?value=3").json() == 3


class Converted(BaseModel):
    x_user_id: str


class Aliased(BaseModel):
    p: Annotated[str, Field(validation_alias="p_val_alias")]


def header_models_app() -> App:
    app = App()

    @app.get("/converted")
    async def converted(data: Annotated[Converted, Header()]) -> Any:
        return data

    @app.get("/aliased")
    async def aliased(data: Annotated[Aliased, Header()]) -> Any:
        return data

    @app.get("/two")
    async def two(
        converted: Annotated[Converted, Header()],
        literal: Annotated[Converted, Header(convert_underscores=False)],
    ) -> Any:
        return {"converted": converted.x_user_id, "literal": literal.x_user_id}

    return app


def test_a_header_model_reads_the_hyphenated_header_only(serve: ClientFactory) -> None:
    client = serve(header_models_app())
    # Both headers sent: the hyphenated one (it was the underscore one).
    headers = [("x-user-id", "hyphen"), ("x_user_id", "underscore")]
    assert client.get("/converted", headers=headers).json() == {"x_user_id": "hyphen"}
    # The underscore one alone is not the field (it was read as it).
    response = client.get("/converted", headers={"x_user_id": "underscore"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["header", "x-user-id"]


def test_header_models_each_read_their_own_names(serve: ClientFactory) -> None:
    client = serve(header_models_app())
    headers = [("x-user-id", "hyphen"), ("x_user_id", "underscore")]
    # Each model by its own conversion (the second took the first's value).
    assert client.get("/two", headers=headers).json() == {
        "converted": "hyphen",
        "literal": "underscore",
    }


def test_a_header_model_field_with_a_validation_alias_is_not_read_by_its_name(
    serve: ClientFactory,
) -> None:
    client = serve(header_models_app())
    assert client.get("/aliased", headers={"p_val_alias": "v"}).json() == {"p": "v"}
    # Its name alone is not one of its names (it was read, 200 with the value).
    response = client.get("/aliased", headers={"p": "v"})
    assert response.status_code == 422
    assert response.json()["detail"][0]["loc"] == ["header", "p_val_alias"]


def test_a_model_validating_by_name_reads_the_name_too(serve: ClientFactory) -> None:
    class ByName(BaseModel):
        model_config = ConfigDict(populate_by_name=True)
        items: Annotated[list[int], Field(alias="item")]

    app = App()

    @app.get("/")
    async def read(data: Annotated[ByName, Query()]) -> Any:
        return data.items

    client = serve(app)
    assert client.get("/?items=1").json() == [1]
    assert client.get("/?items=1&item=2").json() == [2]
    assert client.get("/?items=1&item=x").json()["detail"][0]["loc"] == ["query", "item", 0]


Count = Annotated[int, Field(alias="original", title="Original")]


def test_a_pydantic_field_beside_the_marker_is_merged_as_fastapi_does(
    serve: ClientFactory,
) -> None:
    made = []

    def factory() -> int:
        made.append(1)
        return 5

    app = App()

    @app.get("/")
    async def read(
        preserved: Annotated[Count, Query()],
        replaced: Annotated[Count, Query(alias="replacement")],
        cleared: Annotated[Count, Query(alias=None)],
        made_: Annotated[int, Field(default_factory=factory), Query(alias="made")],
        inferred: Annotated[int, Field(alias="n")] = 10,
    ) -> Any:
        return [preserved, replaced, cleared, made_, inferred]

    client = serve(app)
    params = {"original": "1", "replacement": "2", "cleared": "3", "n": "4"}
    # Each value by its own name: ``alias=None`` clears the Field's alias.
    assert client.get("/", params=params).json() == [1, 2, 3, 5, 4]
    assert made == [1]
    assert client.get("/", params={**params, "made": "6"}).json() == [1, 2, 3, 6, 4]
    assert made == [1]


Doubled = Annotated[int | None, BeforeValidator(lambda value: 0 if value is None else value * 2)]


def test_validate_default_validates_the_default(serve: ClientFactory) -> None:
    app = App()

    @app.get("/doubled")
    async def doubled(
        value: Annotated[Doubled, Query(validate_default=True)] = 10,
        plain: Annotated[Doubled, Header()] = 10,
    ) -> Any:
        return [value, plain]

    @app.get("/invalid")
    async def invalid(value: Annotated[int, Query(gt=0, validate_default=True)] = -1) -> int:
        return value

    client = serve(app)
    assert client.get("/doubled").json() == [20, 10]
    # An invalid default is FastAPI's 422 (it was the default, 200).
    assert client.get("/invalid").json() == {
        "detail": [
            {
                "type": "greater_than",
                "loc": ["query", "value"],
                "msg": "Input should be greater than 0",
                "input": -1,
                "ctx": {"gt": 0},
            }
        ]
    }
    assert client.get("/invalid?value=1").json() == 1


def test_a_path_value_of_a_router_under_a_prefix(serve: ClientFactory) -> None:
    router = Router()

    @router.get("/")
    async def read(item_id: Annotated[int, Path()]) -> int:
        return item_id

    app = App()
    app.include_router(router, prefix="/items/{item_id}")
    assert serve(app).get("/items/3/").json() == 3


def test_body_members_are_read_by_the_first_of_their_alias_choices(serve: ClientFactory) -> None:
    app = App()

    @app.post("/embedded")
    async def embedded(
        value: Annotated[
            int, Body(embed=True, alias="ignored", validation_alias=AliasChoices("first", "second"))
        ] = 10,
    ) -> int:
        return value

    @app.post("/members")
    async def members(
        items: Annotated[list[int], Body(validation_alias=AliasChoices("items", "tags"))],
        value: Annotated[int | None, Body(validation_alias=AliasChoices("first", "second"))] = 10,
    ) -> dict[str, Any]:
        return {"items": items, "value": value}

    client = serve(app)
    assert client.post("/embedded", json={"second": 2, "first": 0}).json() == 0
    assert client.post("/embedded", json={"second": 2}).json() == 2
    assert client.post("/embedded", json={}).json() == 10
    # null is a value given: neither the next name nor the default is read.
    answer = client.post("/embedded", json={"first": None, "second": 2})
    assert answer.json()["detail"][0]["loc"] == ["body", "first"]
    answer = client.post("/members", json={"tags": [3, 4], "second": None})
    assert answer.json() == {"items": [3, 4], "value": None}
    answer = client.post("/members", json={"tags": ["x"], "second": "y"})
    assert answer.status_code == 422
    assert answer.json()["detail"] == [
        int_parsing(["body", "tags", 0], "x"),
        int_parsing(["body", "second"], "y"),
    ]
