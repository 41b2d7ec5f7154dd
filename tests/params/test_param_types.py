"""Every type FastAPI reads from a path, query, header or cookie value, read, through both
adapters: what msgspec reads is read by msgspec, anything else pydantic validates (an
``EmailStr``, a URL, a secret, an IP address, ``Json[...]``, a tuple) with FastAPI's 422s; and
registration refuses what FastAPI refuses, with FastAPI's words."""

import ipaddress
import pathlib
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, EmailStr, HttpUrl, Json, SecretStr, conint

from hasten import App, Cookie, Header, Query
from hasten.errors import InvalidParameter
from tests.conftest import ClientFactory


def types_app() -> App:
    app = App()

    @app.get("/email")
    async def email(email_to: EmailStr) -> Any:
        return {"email": email_to}

    @app.get("/mixed/{address}")
    async def mixed(
        address: ipaddress.IPv4Address,
        site: Annotated[HttpUrl, Header()],
        secret: Annotated[SecretStr, Cookie()],
        where: pathlib.Path = pathlib.Path("/"),
        level: conint(gt=3) = 4,  # type: ignore[valid-type]  # pydantic's constrained int
    ) -> Any:
        return [str(address), str(site), secret.get_secret_value(), str(where), level]

    @app.get("/json")
    async def json(ids: Annotated[Json[list[int]], Query()]) -> Any:
        return ids

    @app.get("/tuple")
    async def pair(pair: Annotated[tuple[int, str], Query()]) -> Any:
        return list(pair)

    return app


def test_an_email_address_from_the_query(serve: ClientFactory) -> None:
    client = serve(types_app())
    assert client.get("/email?email_to=ann@example.com").json() == {"email": "ann@example.com"}
    reason = "An email address must have an @-sign."
    assert client.get("/email?email_to=nope").json() == {
        "detail": [
            {
                "type": "value_error",
                "loc": ["query", "email_to"],
                "msg": f"value is not a valid email address: {reason}",
                "input": "nope",
                "ctx": {"reason": reason},
            }
        ]
    }


def test_pydantic_types_from_the_path_headers_and_cookies(serve: ClientFactory) -> None:
    client = serve(types_app())
    headers = {"site": "https://example.com", "cookie": "secret=s3"}
    assert client.get("/mixed/10.0.0.1?where=/tmp&level=5", headers=headers).json() == [
        "10.0.0.1",
        "https://example.com/",
        "s3",
        "/tmp",
        5,
    ]
    response = client.get("/mixed/10.0.0.999?level=3", headers={**headers, "site": "x"})
    assert response.json() == {
        "detail": [
            {
                "type": "ip_v4_address",
                "loc": ["path", "address"],
                "msg": "Input is not a valid IPv4 address",
                "input": "10.0.0.999",
            },
            {
                "type": "greater_than",
                "loc": ["query", "level"],
                "msg": "Input should be greater than 3",
                "input": "3",
                "ctx": {"gt": 3},
            },
            {
                "type": "url_parsing",
                "loc": ["header", "site"],
                "msg": "Input should be a valid URL, relative URL without a base",
                "input": "x",
                "ctx": {"error": "relative URL without a base"},
            },
        ]
    }


def test_json_and_tuples_from_the_query(serve: ClientFactory) -> None:
    client = serve(types_app())
    # One JSON text, not every value of the name.
    assert client.get("/json?ids=[1,2]").json() == [1, 2]
    assert client.get("/json?ids=[1,x]").json()["detail"][0]["type"] == "json_invalid"
    assert client.get("/tuple?pair=1&pair=a").json() == [1, "a"]
    assert client.get("/tuple?pair=1").json() == {
        "detail": [
            {
                "type": "missing",
                "loc": ["query", "pair", 1],
                "msg": "Field required",
                "input": ["1"],
            }
        ]
    }


class Item(BaseModel):
    title: str


@pytest.mark.parametrize(
    ("path", "annotation", "message"),
    [
        ("/{id}", list[Item], "Path params must be of one of the supported types"),
        ("/{id}", dict, "Path params must be of one of the supported types"),
        ("/{id}", tuple, "Path params must be of one of the supported types"),
        ("/", Annotated[list[Item], Query()], "Query parameter 'id' must be one of the"),
        ("/", Annotated[dict | None, Query()], "Query parameter 'id' must be one of the"),
    ],
)
def test_what_fastapi_refuses_is_refused_with_its_words(
    path: str, annotation: Any, message: str
) -> None:
    async def handler(id: Any) -> None: ...

    handler.__annotations__["id"] = annotation
    # An AssertionError too, as FastAPI's.
    with pytest.raises(InvalidParameter, match=message) as raised:
        App().add_api_route(path, handler)
    assert isinstance(raised.value, AssertionError)
    assert isinstance(raised.value, TypeError)
