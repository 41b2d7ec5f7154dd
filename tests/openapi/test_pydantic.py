"""pydantic models in the document as FastAPI writes them: components with ``$ref``s, and
pydantic's own schemas (aliases, serialization, defaults of None left unsaid)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

import msgspec
import pytest
from openapi_spec_validator import validate
from pydantic import (
    AliasChoices,
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    Tag,
    computed_field,
)
from pydantic.dataclasses import dataclass as pydantic_dataclass

from hasten import App, Body, Cookie, Form, Header, Query
from tests.conftest import ClientFactory

REF = "#/components/schemas/"


class Item(BaseModel):
    """An item.\fWhat follows the form feed is not documented."""

    name: str
    description: str | None = None
    tags: list[str] = []


class Person(BaseModel):
    first_name: str = Field(alias="firstName")


class Priced(BaseModel):
    price: float

    @computed_field  # type: ignore[prop-decorator]
    @property
    def with_tax(self) -> float:
        return self.price * 1.2


class Point(msgspec.Struct):
    x: int


def build() -> App:
    app = App()

    @app.post("/items/")
    async def create_item(item: Item) -> Item:
        return item

    @app.get("/items/")
    async def read_items() -> list[Item]:
        return []

    @app.post("/people/")
    async def create_person(person: Person) -> Person:
        return person

    @app.post("/prices/")
    async def create_price(priced: Priced) -> Priced:
        return priced

    @app.post("/points/")
    async def create_point(point: Point, note: Item | None = Body(None)) -> Point:
        return point

    return app


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return build().openapi()


def body(document: dict[str, Any], path: str) -> Any:
    return document["paths"][path]["post"]["requestBody"]["content"]["application/json"]


def returned(document: dict[str, Any], path: str, method: str = "post") -> Any:
    return document["paths"][path][method]["responses"]["200"]["content"]["application/json"]


def test_a_model_is_a_component_written_by_pydantic(document: dict[str, Any]) -> None:
    assert body(document, "/items/") == {"schema": {"$ref": REF + "Item"}}
    assert returned(document, "/items/") == {"schema": {"$ref": REF + "Item"}}
    assert returned(document, "/items/", "get") == {
        "schema": {
            "title": "Response Read Items Items  Get",
            "type": "array",
            "items": {"$ref": REF + "Item"},
        }
    }
    assert document["components"]["schemas"]["Item"] == {
        "description": "An item.",
        "properties": {
            "name": {"title": "Name", "type": "string"},
            "description": {
                "anyOf": [{"type": "string"}, {"type": "null"}],
                "title": "Description",
            },
            "tags": {"default": [], "items": {"type": "string"}, "title": "Tags", "type": "array"},
        },
        "required": ["name"],
        "title": "Item",
        "type": "object",
    }


def test_aliases_are_the_names_on_the_wire(document: dict[str, Any]) -> None:
    person = document["components"]["schemas"]["Person"]
    assert person["properties"] == {"firstName": {"title": "Firstname", "type": "string"}}
    assert person["required"] == ["firstName"]


def test_input_and_output_that_differ_are_two_components(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    assert body(document, "/prices/") == {"schema": {"$ref": REF + "Priced-Input"}}
    assert returned(document, "/prices/") == {"schema": {"$ref": REF + "Priced-Output"}}
    assert schemas["Priced-Input"]["required"] == ["price"]
    assert schemas["Priced-Output"]["required"] == ["price", "with_tax"]
    assert schemas["Priced-Output"]["properties"]["with_tax"] == {
        "readOnly": True,
        "title": "With Tax",
        "type": "number",
    }


def test_msgspec_and_pydantic_types_share_one_document(document: dict[str, Any]) -> None:
    assert body(document, "/points/")["schema"] == {"$ref": REF + "Body_create_point_points__post"}
    schema = document["components"]["schemas"]["Body_create_point_points__post"]
    assert schema["properties"]["point"] == {"$ref": REF + "Point"}
    assert schema["properties"]["note"] == {
        "anyOf": [{"$ref": REF + "Item"}, {"type": "null"}],
        "title": "Note",
    }
    assert document["components"]["schemas"]["Point"]["properties"] == {"x": {"type": "integer"}}
    validate(document)


class Filters(BaseModel):
    limit: int = Field(100, gt=0, le=100, description="How many.")
    tags: list[str] = []


class Client(msgspec.Struct):
    x_client_name: str
    x_retries: int = 3


class Theme(BaseModel):
    theme: str


class Aliased(BaseModel):
    many: int = Field(alias="X-Many")
    plain_name: str = "p"
    other: str = Field("o", serialization_alias="X-Other")  # read and documented by its name


def test_a_header_models_alias_is_documented_as_written() -> None:
    """As FastAPI documents it (and with no warning from pydantic about the alias)."""
    app = App()

    @app.get("/h")
    async def read(headers: Annotated[Aliased, Header()]) -> None:
        return None

    assert app.openapi()["paths"]["/h"]["get"]["parameters"] == [
        {
            "name": "X-Many",
            "in": "header",
            "required": True,
            "schema": {"title": "X-Many", "type": "integer"},
        },
        {
            "name": "plain-name",
            "in": "header",
            "required": False,
            "schema": {"title": "Plain Name", "type": "string", "default": "p"},
        },
        {
            "name": "other",
            "in": "header",
            "required": False,
            "schema": {"title": "Other", "type": "string", "default": "o"},
        },
    ]


def test_parameter_models_are_documented_field_by_field() -> None:
    app = App()

    @app.get("/items/")
    async def read_items(
        filters: Annotated[Filters, Query()],
        client: Annotated[Client, Header()],
        theme: Annotated[Theme | None, Cookie()] = None,
    ) -> None:
        return None

    document = app.openapi()
    assert document["paths"]["/items/"]["get"]["parameters"] == [
        {
            "name": "limit",
            "in": "query",
            "description": "How many.",
            "required": False,
            "schema": {
                "title": "Limit",
                "default": 100,
                "description": "How many.",
                "exclusiveMinimum": 0,
                "maximum": 100,
                "type": "integer",
            },
        },
        {
            "name": "tags",
            "in": "query",
            "required": False,
            "schema": {
                "title": "Tags",
                "default": [],
                "items": {"type": "string"},
                "type": "array",
            },
        },
        {
            "name": "x-client-name",
            "in": "header",
            "required": True,
            "schema": {"title": "X Client Name", "type": "string"},
        },
        {
            "name": "x-retries",
            "in": "header",
            "required": False,
            "schema": {"title": "X Retries", "type": "integer", "default": 3},
        },
        # A model that may be absent: none of its fields is required.
        {
            "name": "theme",
            "in": "cookie",
            "required": False,
            "schema": {"title": "Theme", "type": "string"},
        },
    ]
    assert "Filters" not in document["components"]["schemas"]
    assert "Client" not in document["components"]["schemas"]


class Price(BaseModel):
    amount: Decimal


@pytest.mark.parametrize(
    ("separate", "read", "sent"),
    [(True, "Price-Input", "Price-Output"), (False, "Price", "Price")],
)
def test_separate_input_output_schemas(separate: bool, read: str, sent: str) -> None:
    app = App(separate_input_output_schemas=separate)

    @app.post("/prices/")
    async def create_price(price: Price) -> Price:
        return price

    document = app.openapi()
    assert body(document, "/prices/") == {"schema": {"$ref": REF + read}}
    assert returned(document, "/prices/") == {"schema": {"$ref": REF + sent}}
    assert document["components"]["schemas"][read]["properties"]["amount"]["anyOf"] == [
        {"type": "number"},
        {"type": "string"},
    ]


class Profile(BaseModel):
    name: str


class Someone(BaseModel):
    kind: Literal["person"]
    name: str


class Firm(BaseModel):
    kind: Literal["company"]
    company_name: str


def test_form_models_beside_other_values_are_in_all_of() -> None:
    app = App()

    @app.post("/profiles/")
    async def create_profile(
        profile: Annotated[Profile, Form()],
        token: Annotated[str, Form()],
        contact: Annotated[Someone | Firm | None, Form(discriminator="kind")] = None,
    ) -> None:
        return None

    document = app.openapi()
    name = "Body_create_profile_profiles__post"
    assert document["paths"]["/profiles/"]["post"]["requestBody"] == {
        "content": {"application/x-www-form-urlencoded": {"schema": {"$ref": REF + name}}},
        "required": True,
    }
    union = {
        "discriminator": {
            "mapping": {"company": REF + "Firm", "person": REF + "Someone"},
            "propertyName": "kind",
        },
        "oneOf": [{"$ref": REF + "Someone"}, {"$ref": REF + "Firm"}],
    }  # titled beside it, as FastAPI writes it
    absent = {"not": {"anyOf": [{"required": [key]} for key in ("company_name", "kind", "name")]}}
    assert document["components"]["schemas"][name] == {
        "type": "object",
        "title": name,
        "allOf": [
            {"$ref": REF + "Profile"},
            {"anyOf": [absent, {"anyOf": [union], "title": "Contact"}]},
        ],
        "properties": {"token": {"title": "Token", "type": "string"}},
        "required": ["token"],
    }


class Blob(BaseModel):
    model_config = ConfigDict(ser_json_bytes="base64", val_json_bytes="base64")

    data: bytes


class Raw(BaseModel):
    data: bytes


def test_bytes_are_octet_strings_base64_where_the_config_says_so() -> None:
    app = App()

    @app.post("/blobs/")
    async def create_blob(blob: Blob, raw: Raw) -> None:
        return None

    schemas = app.openapi()["components"]["schemas"]
    octets = {"title": "Data", "type": "string", "contentMediaType": "application/octet-stream"}
    assert schemas["Blob"]["properties"]["data"] == {**octets, "contentEncoding": "base64"}
    assert schemas["Raw"]["properties"]["data"] == octets


@pydantic_dataclass
class Tagged:
    name: str

    @computed_field  # type: ignore[prop-decorator]
    @property
    def slug(self) -> str:
        return self.name.lower()


@pytest.mark.parametrize("separate", [True, False])
def test_computed_fields_are_documented_apart_as_read_and_as_sent(separate: bool) -> None:
    """A pydantic dataclass is described by pydantic, as FastAPI does; a model with computed
    fields has an Input and an Output even where the app does not separate them (FastAPI's:
    only the output has the computed field)."""
    app = App(separate_input_output_schemas=separate)

    @app.post("/tagged")
    def tag(item: Tagged) -> Tagged:
        return item

    @app.post("/priced")
    def price(item: Priced) -> Priced:
        return item

    document = app.openapi()
    schemas = document["components"]["schemas"]
    assert schemas["Tagged-Input"] == {
        "properties": {"name": {"title": "Name", "type": "string"}},
        "required": ["name"],
        "title": "Tagged",
        "type": "object",
    }
    assert schemas["Tagged-Output"]["properties"]["slug"] == {
        "readOnly": True,
        "title": "Slug",
        "type": "string",
    }
    assert {"Priced-Input", "Priced-Output"} <= set(schemas)
    assert "Tagged" not in schemas


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")

    code: str


def test_a_form_model_that_may_be_absent_is_documented_as_fastapi_does() -> None:
    app = App()

    @app.post("/optional")
    async def optional(contact: Annotated[Someone | Firm | None, Form()] = None) -> None: ...

    @app.post("/required")
    async def required(strict: Annotated[Strict | None, Form()]) -> None: ...

    document = app.openapi()
    schemas = document["components"]["schemas"]
    # Even alone, a model that may be absent is a member of the form's object.
    assert document["paths"]["/optional"]["post"]["requestBody"] == {
        "content": {
            "application/x-www-form-urlencoded": {
                "schema": {"$ref": REF + "Body_optional_optional_post"}
            }
        }
    }
    absent = {"not": {"anyOf": [{"required": [key]} for key in ("company_name", "kind", "name")]}}
    contact = {"anyOf": [{"$ref": REF + "Someone"}, {"$ref": REF + "Firm"}], "title": "Contact"}
    assert schemas["Body_optional_optional_post"]["allOf"] == [{"anyOf": [absent, contact]}]
    # A model that forbids other names is absent with no names at all; a required one not.
    strict = {"anyOf": [{"$ref": REF + "Strict"}], "title": "Strict"}
    assert schemas["Body_required_required_post"]["allOf"] == [
        {"not": {"maxProperties": 0}},
        strict,
    ]


MaxSizedSet = Annotated[set[str], Field(max_length=3)]


def test_pydantic_metadata_inside_a_union_is_documented_and_enforced(serve: ClientFactory) -> None:
    app = App()

    @app.get("/")
    def read_root(foo: Annotated[MaxSizedSet | None, Query()] = None) -> dict[str, Any]:
        return {"foo": sorted(foo) if foo is not None else None}

    client = serve(app)
    (parameter,) = client.get("/openapi.json").json()["paths"]["/"]["get"]["parameters"]
    # pydantic's Field() on a member of the union says the array's bound, as FastAPI writes it.
    assert parameter["schema"] == {
        "anyOf": [
            {"items": {"type": "string"}, "maxItems": 3, "type": "array", "uniqueItems": True},
            {"type": "null"},
        ],
        "title": "Foo",
    }
    assert client.get("/?foo=b&foo=a").json() == {"foo": ["a", "b"]}
    response = client.get("/?foo=a&foo=b&foo=c&foo=d")
    assert response.status_code == 422
    assert [(error["type"], error["loc"]) for error in response.json()["detail"]] == [
        ("too_long", ["query", "foo"])
    ]


class Tabby(BaseModel):
    pet_type: str = "cat"
    meows: int


class Hound(BaseModel):
    pet_type: str = "dog"
    barks: float


def _pet_type(value: Any) -> str:
    return str(value.get("pet_type", "")) if isinstance(value, dict) else str(value.pet_type)


Pet = Annotated[
    Annotated[Tabby, Tag("cat")] | Annotated[Hound, Tag("dog")], Discriminator(_pet_type)
]


def test_a_callable_discriminator_is_documented_where_fastapi_keeps_it(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.post("/assigned")
    async def assigned(pet: Pet = Body()) -> Any:
        return pet

    @app.post("/annotated")
    async def annotated(pet: Annotated[Pet, Body()]) -> Any:
        return pet

    client = serve(app)
    document = client.get("/openapi.json").json()
    pets = [{"$ref": REF + "Tabby"}, {"$ref": REF + "Hound"}]
    # In Annotated beside Body(), the discriminator is the body's: one of the two. A Body()
    # given as the default takes the bare union, as FastAPI reads that declaration.
    assert body(document, "/annotated")["schema"] == {"oneOf": pets, "title": "Pet"}
    assert body(document, "/assigned")["schema"] == {"anyOf": pets, "title": "Pet"}
    for path in ("/assigned", "/annotated"):
        response = client.post(path, json={"pet_type": "dog", "barks": 3.5})
        assert (response.status_code, response.json()) == (200, {"pet_type": "dog", "barks": 3.5})


class Badge(BaseModel):
    model_config = ConfigDict(populate_by_name=True)

    name: str = Field(alias="display_name")
    department: str


class Pager(BaseModel):
    number: str = Field(validation_alias=AliasChoices("pager", "beeper"))


def test_a_form_models_other_names_are_written_in_its_place(serve: ClientFactory) -> None:
    app = App()

    @app.post("/")
    def submit(
        pager: Annotated[Pager, Form()], badge: Annotated[Badge | None, Form()] = None
    ) -> list[Any]:
        return [pager, badge]

    client = serve(app)
    document = client.get("/openapi.json").json()
    form = document["components"]["schemas"]["Body_submit__post"]["allOf"]
    # A field read by two names while required needs one of them: the form's schema says so
    # in the model's place; the model's own component stays as pydantic writes it.
    badge = {
        "type": "object",
        "title": "Badge",
        "properties": {
            "display_name": {"title": "Display Name", "type": "string"},
            "department": {"title": "Department", "type": "string"},
        },
        "required": ["department"],
        "allOf": [{"anyOf": [{"required": ["display_name"]}, {"required": ["name"]}]}],
    }
    assert form[1]["anyOf"][1] == {"anyOf": [badge], "title": "Badge"}
    pager = {
        "type": "object",
        "title": "Pager",
        "properties": {"pager": {"title": "Pager", "type": "string"}},
        "required": [],
        "allOf": [{"anyOf": [{"required": ["pager"]}, {"required": ["beeper"]}]}],
    }
    assert form[0] == pager
    assert document["components"]["schemas"]["Badge"]["required"] == ["display_name", "department"]
    for data in (
        {"name": "Rick", "department": "Science", "beeper": "1"},
        {"display_name": "Rick", "department": "Science", "pager": "1"},
    ):
        response = client.post("/", data=data)
        assert (response.status_code, response.json()) == (
            200,
            [{"number": "1"}, {"display_name": "Rick", "department": "Science"}],
        )
