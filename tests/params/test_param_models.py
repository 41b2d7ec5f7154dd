"""Parameter models through both adapters, as FastAPI 0.165 reads them: a model that may be
absent (``Model | None``) from the query, headers, cookies or form, a union of form models
picked by its discriminator, and a header model's errors named by the header."""

# No `from __future__ import annotations`: the models here are local classes.

from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, BeforeValidator, ConfigDict

from hasten import App, Cookie, Form, Header, Query
from tests.conftest import ClientFactory


class DateRange(BaseModel):
    start: str
    end: str


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: str = "a"


class Client(BaseModel):
    save_data: bool


class Person(BaseModel):
    kind: Literal["person"]
    name: str


class Company(BaseModel):
    kind: Literal["company"]
    company_name: str


class Email(BaseModel):
    email: str


class Phone(BaseModel):
    phone: str


def make_app() -> App:
    app = App()

    @app.get("/query")
    async def query(
        limit: int = 10, dates: Annotated[DateRange | None, Query()] = None
    ) -> dict[str, Any]:
        return {"limit": limit, "dates": dates}

    @app.get("/header")
    async def header(dates: Annotated[DateRange | None, Header()] = None) -> Any:
        return dates

    @app.get("/cookie")
    async def cookie(dates: Annotated[DateRange | None, Cookie()] = None) -> Any:
        return dates

    @app.get("/strict")
    async def strict(model: Annotated[Strict | None, Query()] = None) -> Any:
        return model

    @app.get("/client")
    async def client(model: Annotated[Client, Header()]) -> Any:
        return model

    @app.post("/profile")
    async def profile(
        token: Annotated[str, Form()], dates: Annotated[DateRange | None, Form()] = None
    ) -> dict[str, Any]:
        return {"token": token, "dates": dates}

    @app.post("/contact")
    async def contact(
        who: Annotated[Person | Company, Form(discriminator="kind")],
        reach: Annotated[Email | Phone | None, Form()] = None,
    ) -> dict[str, Any]:
        return {"who": who, "reach": reach}

    return app


def missing(*loc: str) -> dict[str, Any]:
    return {"type": "missing", "loc": list(loc), "msg": "Field required", "input": None}


def test_an_absent_query_model_is_its_default_and_other_names_do_not_give_it(
    serve: ClientFactory,
) -> None:
    client = serve(make_app())
    response = client.get("/query", params={"limit": "3"})
    assert (response.status_code, response.json()) == (200, {"limit": 3, "dates": None})
    response = client.get("/query", params={"start": "a", "end": "b"})
    assert response.status_code == 200
    assert response.json() == {"limit": 10, "dates": {"start": "a", "end": "b"}}


def test_a_query_model_given_in_part_is_a_422_naming_the_missing_field(
    serve: ClientFactory,
) -> None:
    response = serve(make_app()).get("/query", params={"start": "a", "limit": "3"})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "missing",
                "loc": ["query", "end"],
                "msg": "Field required",
                "input": {"start": "a", "limit": "3"},
            }
        ]
    }


@pytest.mark.parametrize("where", ["header", "cookie"])
def test_a_header_or_cookie_model_may_be_absent(serve: ClientFactory, where: str) -> None:
    client = serve(make_app())
    assert client.get(f"/{where}").json() is None
    given = {"start": "a", "end": "b"}
    if where == "header":
        response = client.get("/header", headers=given)
    else:
        client.cookies.update(given)
        response = client.get("/cookie")
    assert (response.status_code, response.json()) == (200, given)


def test_a_cookie_model_given_in_part_is_a_422(serve: ClientFactory) -> None:
    client = serve(make_app())
    client.cookies.update({"start": "a"})
    response = client.get("/cookie")
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "missing",
                "loc": ["cookie", "end"],
                "msg": "Field required",
                "input": {"start": "a"},
            }
        ]
    }


def test_a_model_that_forbids_extras_is_given_by_any_name(serve: ClientFactory) -> None:
    client = serve(make_app())
    assert client.get("/strict").json() is None
    response = client.get("/strict", params={"tool": "x"})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "extra_forbidden",
                "loc": ["query", "tool"],
                "msg": "Extra inputs are not permitted",
                "input": "x",
            }
        ]
    }


def test_a_header_models_error_names_the_header(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/client", headers={"x-other": "1"})
    assert response.status_code == 422
    (error,) = response.json()["detail"]
    assert error == {**missing("header", "save-data"), "input": error["input"]}
    assert error["input"]["x-other"] == "1"
    assert serve(make_app()).get("/client", headers={"save-data": "yes"}).json() == {
        "save_data": True
    }


def test_an_optional_form_model_is_absent_or_whole(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.post("/profile", data={"token": "t"})
    assert (response.status_code, response.json()) == (200, {"token": "t", "dates": None})
    response = client.post("/profile", data={"token": "t", "start": "a", "end": "b"})
    assert response.json() == {"token": "t", "dates": {"start": "a", "end": "b"}}
    response = client.post("/profile", data={"token": "t", "start": "a", "end": ""})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "missing",
                "loc": ["body", "end"],
                "msg": "Field required",
                "input": {"start": "a", "token": "t"},
            }
        ]
    }


def test_a_union_of_form_models_reads_each_member_from_the_form(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.post("/contact", data={"kind": "person", "name": "Rick", "phone": "1"})
    assert response.status_code == 200
    assert response.json() == {"who": {"kind": "person", "name": "Rick"}, "reach": {"phone": "1"}}
    response = client.post("/contact", data={"kind": "company", "company_name": "Acme"})
    assert response.json() == {"who": {"kind": "company", "company_name": "Acme"}, "reach": None}


def test_a_union_of_form_models_locates_errors_under_the_member(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.post("/contact", data={"kind": "person"})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [{**missing("body", "person", "name"), "input": {"kind": "person"}}]
    }
    response = client.post("/contact", data={"name": "Rick"})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "union_tag_not_found",
                "loc": ["body"],
                "msg": "Unable to extract tag using discriminator 'kind'",
                "input": {"name": "Rick"},
                "ctx": {"discriminator": "'kind'"},
            }
        ]
    }


def test_each_member_of_a_form_union_reads_its_own_fields(serve: ClientFactory) -> None:
    # An empty field is absent to the member that declares it, an extra to the others.
    data = {"kind": "person", "name": "R", "email": ""}
    response = serve(make_app()).post("/contact", data=data)
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {**missing("body", "Email", "email"), "input": {"kind": "person", "name": "R"}},
            {**missing("body", "Phone", "phone"), "input": data},
        ]
    }


class Listed(BaseModel):
    kind: Literal["listed"]
    value: str | None = "default"
    items: list[str]


def test_what_a_validator_gives_a_form_union_is_kept(serve: ClientFactory) -> None:
    def clear(data: dict[str, Any]) -> dict[str, Any]:
        return {**data, "value": None, "items": []}

    app = App()

    @app.post("/")
    async def read(
        data: Annotated[Listed | Person, BeforeValidator(clear), Form(discriminator="kind")],
    ) -> Any:
        return data.model_dump(exclude_unset=True)

    response = serve(app).post("/", data={"kind": "listed", "items": "a"})
    # FastAPI's: the validator's None and [] (a 422, "items" missing, where they were dropped).
    assert (response.status_code, response.json()) == (
        200,
        {"kind": "listed", "value": None, "items": []},
    )


class Tagged(BaseModel):
    term: str
    tags: list[str] = []


def test_a_models_default_is_the_handlers_own_each_request(serve: ClientFactory) -> None:
    default = Tagged(term="default")
    app = App()

    @app.get("/")
    async def read(filters: Annotated[Tagged | None, Query()] = default) -> Any:
        assert filters is not None
        filters.tags.append("new")
        return filters

    client = serve(app)
    # A copy of the default each time, as FastAPI's (the second was ["new", "new"]).
    for _ in range(2):
        assert client.get("/").json() == {"term": "default", "tags": ["new"]}
    assert default.tags == []


def test_an_optional_model_without_a_default_documents_its_required_fields() -> None:
    app = App()

    @app.get("/required")
    async def required(filters: Annotated[Tagged | None, Query()]) -> Any: ...

    @app.get("/optional")
    async def optional(filters: Annotated[Tagged | None, Query()] = None) -> Any: ...

    paths = app.openapi()["paths"]
    # Required without a default, as FastAPI documents it (it was never required).
    assert [p["required"] for p in paths["/required"]["get"]["parameters"]] == [True, False]
    assert [p["required"] for p in paths["/optional"]["get"]["parameters"]] == [False, False]
