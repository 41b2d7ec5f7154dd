"""An app that uses every parameter source, constraint, body kind and response kind hasten has:
its document must pass the OpenAPI validators as 3.1 and as 3.0."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, Generic, Literal, NamedTuple, TypedDict, TypeVar

import attrs
import msgspec

from hasten import (
    App,
    Body,
    Cookie,
    Header,
    HTMLResponse,
    JSONResponse,
    Path,
    PlainTextResponse,
    Query,
    Request,
    Response,
    Router,
    StreamingResponse,
)

T = TypeVar("T")


class Color(enum.Enum):
    RED = "red"
    GREEN = "green"


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Point(NamedTuple):
    x: float
    y: float


class Node(msgspec.Struct):
    """A tree: recursive."""

    name: str
    children: list[Node] = []


class Page(msgspec.Struct, Generic[T]):
    items: list[T]
    total: int


class Cat(msgspec.Struct, tag="cat"):
    lives: int


class Dog(msgspec.Struct, tag="dog"):
    good: bool = True


class Everything(msgspec.Struct, forbid_unknown_fields=True):
    """Every field type msgspec describes."""

    text: Annotated[str, msgspec.Meta(min_length=1, max_length=10, pattern="^[a-z]+$")]
    count: Annotated[int, msgspec.Meta(gt=0, lt=100, multiple_of=2)]
    ratio: Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
    flag: bool
    color: Color
    level: Level
    kind: Literal["a", "b"]
    when: datetime.datetime
    day: datetime.date
    at: datetime.time
    span: datetime.timedelta
    money: decimal.Decimal
    ident: uuid.UUID
    raw: bytes
    pair: tuple[int, str]
    unique: frozenset[int]
    mapping: dict[str, int]
    point: Point
    pet: Cat | Dog
    maybe: int | None = None
    tree: Node | None = None
    any_value: Any = None
    fixed: Annotated[str, msgspec.Meta(examples=["example"], description="Documented.")] = "x"


@dataclasses.dataclass
class Shipment:
    weight: Annotated[float, msgspec.Meta(gt=0)]
    fragile: bool = False


class Address(TypedDict):
    street: str
    city: str


@attrs.define
class Customer:
    name: str
    vip: bool = False


app = App(
    title="Everything",
    version="2.0.0",
    summary="Every feature, documented.",
    description="A test app.",
    servers=[{"url": "http://127.0.0.1:8000"}],
    openapi_tags=[{"name": "params", "description": "Every parameter source."}],
    contact={"name": "hasten", "email": "hasten@example.com"},
    license_info={"name": "MIT", "identifier": "MIT"},
    terms_of_service="http://example.com/terms",
)
params = Router(prefix="/params", tags=["params"])


@params.get("/path/{item_id:int}/{name}/{key:uuid}/{ratio:float}/{rest:path}")
async def path_params(
    item_id: Annotated[int, Path(ge=1, description="The item.")],
    name: Annotated[str, Path(min_length=2, max_length=8)],
    key: uuid.UUID,
    ratio: float,
    rest: str,
) -> dict[str, str]:
    return {"name": name}


@params.get("/query")
async def query_params(
    required: Annotated[str, Query(title="Required")],
    limit: Annotated[int, Query(ge=1, le=100, examples=[10])] = 20,
    word: Annotated[str, Query(min_length=1, max_length=5, pattern="^[a-z]+$")] = "a",
    scale: Annotated[float, Query(gt=0, lt=10, multiple_of=0.5)] = 1.0,
    ids: Annotated[list[int], Query(alias="id", max_length=3)] = [],  # noqa: B006
    colors: Annotated[list[Color], Query()] = [],  # noqa: B006
    verbose: bool = False,
    order: Literal["asc", "desc"] = "asc",
    color: Color = Color.RED,
    since: datetime.date | None = None,
    at: datetime.datetime | None = None,
    amount: decimal.Decimal | None = None,
    token: uuid.UUID | None = None,
    old: Annotated[int | None, Query(deprecated=True, description="Use limit.")] = None,
    hidden: Annotated[str | None, Query(include_in_schema=False)] = None,
) -> dict[str, int]:
    return {"limit": limit}


@params.get("/headers")
async def header_params(
    user_agent: Annotated[str | None, Header()] = None,
    x_token: Annotated[str, Header(alias="X-Auth-Token", min_length=3)] = "abc",
    raw_name: Annotated[str | None, Header(convert_underscores=False)] = None,
    x_tag: Annotated[list[str], Header()] = [],  # noqa: B006
) -> dict[str, str | None]:
    return {"user_agent": user_agent}


@params.get("/cookies")
async def cookie_params(
    session: Annotated[str, Cookie(min_length=4)],
    theme: Annotated[Literal["dark", "light"], Cookie()] = "light",
) -> dict[str, str]:
    return {"session": session}


bodies = Router(prefix="/bodies", tags=["bodies"])


@bodies.post("/struct", status=201)
async def struct_body(body: Everything) -> Everything:
    """Every field type.

    Sent back as it came.
    """
    return body


@bodies.post("/dataclass")
async def dataclass_body(shipment: Shipment) -> Shipment:
    return shipment


@bodies.post("/typeddict")
async def typeddict_body(address: Address) -> Address:
    return address


@bodies.post("/attrs")
async def attrs_body(customer: Customer) -> Customer:
    return customer


@bodies.post("/dict")
async def dict_body(counts: dict[str, int]) -> dict[str, int]:
    return counts


@bodies.post("/list")
async def list_body(nodes: list[Node]) -> list[Node]:
    return nodes


@bodies.post("/embedded")
async def embedded_body(
    shipment: Shipment,
    customer: Customer,
    note: Annotated[str, Body(max_length=20)] = "",
) -> dict[str, str]:
    return {"note": note}


@bodies.post("/embed-one")
async def embed_one(
    name: Annotated[str, Body(embed=True, description="Who.", examples=["Ann"])],
) -> dict[str, str]:
    return {"name": name}


@bodies.post("/embed-optional")
async def embed_optional(limit: Annotated[int, Body(embed=True, ge=1)] = 1) -> int:
    return limit


@bodies.post("/optional")
async def optional_body(
    shipment: Annotated[Shipment | None, Body(description="Maybe a shipment.")] = None,
) -> Shipment | None:
    return shipment


@bodies.post("/generic")
async def generic_body(page: Page[Node]) -> Page[Node]:
    return page


responses = Router(prefix="/responses", tags=["responses"])


@responses.get("/text")
async def text() -> str:
    return "text"


@responses.get("/bytes")
async def raw_bytes() -> bytes:
    return b"bytes"


@responses.delete("/nothing", status=204)
async def nothing() -> None:
    return None


@responses.get("/html")
async def html() -> HTMLResponse:
    return HTMLResponse("<p>hi</p>")


@responses.get("/plain")
async def plain() -> PlainTextResponse:
    return PlainTextResponse("plain")


@responses.get("/json")
async def json_response() -> JSONResponse:
    return JSONResponse({"a": 1})


@responses.get("/response")
async def response() -> Response:
    return Response(b"x", media_type="application/x-thing")


@responses.get("/stream")
async def stream() -> StreamingResponse:
    async def chunks() -> AsyncIterator[bytes]:
        yield b"x"

    return StreamingResponse(chunks())


@responses.get("/union")
async def union() -> Node | str | None:
    return None


@responses.get("/untyped")
async def untyped():  # type: ignore[no-untyped-def]
    return {"a": 1}


@responses.get("/pets")
async def pets() -> list[Cat | Dog]:
    return []


@responses.get("/null")
async def null() -> None:
    return None


docs = Router(prefix="/docs-features", tags=["docs"])


@docs.get(
    "/everything",
    tags=["extra"],
    summary="A summary",
    description="A description.",
    response_description="The thing",
    responses={
        404: {"model": Node, "description": "Missing"},
        "5XX": {"description": "Broken"},
        200: {"headers": {"X-Rate": {"schema": {"type": "integer"}}}},
    },
    deprecated=True,
    operation_id="everything",
    openapi_extra={"x-internal": True, "responses": {"200": {"links": {}}}},
    timeout=5,
    max_concurrency=3,
)
def everything() -> Node:
    """Not the summary: the keywords win."""
    return Node("x")


@docs.get("/hidden", include_in_schema=False)
async def hidden() -> str:
    return "hidden"


@docs.route("/many", methods=["GET", "POST", "PUT"])
async def many(request: Request) -> str:
    return request.method


@docs.get("/request/{anything}")
async def request_only(request: Request) -> str:
    return str(request.path_params["anything"])


app.include(params)
app.include(bodies)
app.include(responses)
app.include(docs, tags=["included"])
