"""Where arguments come from, through both adapters: path, query, headers, cookies, JSON body,
the request; and the constraints their descriptions carry."""

from __future__ import annotations

import dataclasses
import enum
import re
import typing
import uuid
from collections.abc import Iterator
from typing import Annotated, Any, TypedDict

import msgspec
import pytest
from typing_extensions import TypeAliasType

from hasten import App, Body, Cookie, Depends, Header, Param, Path, Query, Request
from hasten.errors import InvalidParameter
from hasten.params import Marker, MarkerOptions, ParamTypes
from hasten.testing import TestClient
from tests.conftest import ClientFactory

INT = "Input should be a valid integer, unable to parse string as an integer"


class Order(msgspec.Struct):
    id: int
    name: str
    tags: list[str] = []


@dataclasses.dataclass
class Point:
    x: float
    y: float


class Movie(TypedDict):
    title: str
    year: int


class Color(enum.Enum):
    RED = "red"
    BLUE = "blue"


def make_app(max_body_size: int = 1024) -> App:
    app = App(max_body_size=max_body_size)

    @app.get("/items/{item_id}")
    async def item(item_id: int, q: str | None = None, limit: int = 10) -> dict[str, Any]:
        return {"id": item_id, "q": q, "limit": limit}

    @app.get("/search")
    async def search(
        term: str,
        page: int = 1,
        ratio: float = 1.0,
        exact: bool = False,
        tag: Annotated[list[str] | None, Query()] = None,
        ids: Annotated[list[int] | None, Query()] = None,
        color: Color = Color.RED,
        ref: uuid.UUID | None = None,
        note: Annotated[str, "anything"] = "",
    ) -> dict[str, Any]:
        return {
            "term": term,
            "page": page,
            "ratio": ratio,
            "exact": exact,
            "tag": tag,
            "ids": ids,
            "color": color.value,
            "ref": str(ref) if ref else None,
            "note": note,
        }

    @app.get("/required-list")
    async def required_list(tag: Annotated[list[str], Query()]) -> list[str]:
        return tag

    @app.get("/bare-list")
    async def bare_list(q: Annotated[list, Query()] = ["a"]) -> list[Any]:  # type: ignore[type-arg]  # noqa: B006
        return q

    @app.get("/untyped/{value}")
    async def untyped(value, flag=None):  # type: ignore[no-untyped-def]
        return {"value": value, "flag": flag}

    @app.post("/orders", status=201)
    async def create(order: Order) -> Order:
        return order

    @app.post("/points")
    async def point(point: Point) -> dict[str, float]:
        return {"sum": point.x + point.y}

    @app.post("/movies")
    async def movie(movie: Movie, request: Request) -> dict[str, Any]:
        return {"title": movie["title"], "method": request.method}

    @app.post("/orders/batch")
    async def batch(orders: list[Order]) -> int:
        return len(orders)

    @app.post("/optional-body")
    async def optional_body(order: Order | None = None) -> str:
        return "none" if order is None else order.name

    @app.post("/orders/{shop_id}")
    async def shop_order(shop_id: int, order: Order, dry_run: bool = False) -> dict[str, Any]:
        return {"shop": shop_id, "order": order.id, "dry_run": dry_run}

    @app.post("/raw-json")
    async def raw_json(request: Request) -> Any:
        return await request.json()

    return app


def test_path_param_typed_by_annotation(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/items/5", params={"q": "x y", "limit": "3"})
    assert response.json() == {"id": 5, "q": "x y", "limit": 3}


def test_query_defaults(serve: ClientFactory) -> None:
    assert serve(make_app()).get("/items/5").json() == {"id": 5, "q": None, "limit": 10}


def test_bad_path_value_is_422_naming_it(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/items/abc")
    assert response.status_code == 422
    assert response.json() == {
        "detail": [{"type": "int_parsing", "loc": ["path", "item_id"], "msg": INT, "input": "abc"}]
    }


def test_a_typed_template_value_is_validated_as_the_annotation_says(
    serve: ClientFactory,
) -> None:
    # The template's converter makes a float (5.0), which pydantic's lax int takes when it
    # has no fraction: it was a 500 when a text converter was handed the float.
    app = App()

    @app.get("/a/{x:float}")
    async def a(x: int) -> int:
        return x

    client = serve(app)
    assert (client.get("/a/5.0").status_code, client.get("/a/5.0").json()) == (200, 5)
    response = client.get("/a/5.5")
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "int_from_float",
                "loc": ["path", "x"],
                "msg": "Input should be a valid integer, got a number with a fractional part",
                "input": 5.5,
            }
        ]
    }


def test_every_bad_value_is_reported_at_once(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/items/abc", params={"limit": "many"})
    assert response.status_code == 422
    locations = [error["loc"] for error in response.json()["detail"]]
    assert locations == [["path", "item_id"], ["query", "limit"]]


def test_query_types(serve: ClientFactory) -> None:
    ref = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
    response = serve(make_app()).get(
        "/search?term=a+b&page=2&ratio=0.5&exact=true&tag=x&tag=y&ids=1&ids=2"
        f"&color=blue&ref={ref}&note=%26"
    )
    assert response.json() == {
        "term": "a b",
        "page": 2,
        "ratio": 0.5,
        "exact": True,
        "tag": ["x", "y"],
        "ids": [1, 2],
        "color": "blue",
        "ref": ref,
        "note": "&",
    }


def test_query_optional_list_defaults_to_none(serve: ClientFactory) -> None:
    body = serve(make_app()).get("/search", params={"term": "t"}).json()
    assert body["tag"] is None
    assert body["exact"] is False


def test_missing_required_query_is_422(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/search")
    assert response.status_code == 422
    assert response.json()["detail"] == [
        {"type": "missing", "loc": ["query", "term"], "msg": "Field required", "input": None}
    ]


def test_a_bare_list_takes_the_repeated_values_as_text(serve: ClientFactory) -> None:
    client = serve(make_app())
    response = client.get("/bare-list", params={"q": ["1", "b"]})
    assert (response.status_code, response.json()) == (200, ["1", "b"])
    assert client.get("/bare-list").json() == ["a"]


def test_missing_required_list_is_422(serve: ClientFactory) -> None:
    client = serve(make_app())
    assert client.get("/required-list").status_code == 422
    assert client.get("/required-list?tag=a").json() == ["a"]


@pytest.mark.parametrize(
    ("query", "error"),
    [
        (
            "term=t&ids=1&ids=x",
            {"type": "int_parsing", "loc": ["query", "ids", 1], "msg": INT, "input": "x"},
        ),
        (
            "term=t&exact=maybe",
            {
                "type": "bool_parsing",
                "loc": ["query", "exact"],
                "msg": "Input should be a valid boolean, unable to interpret input",
                "input": "maybe",
            },
        ),
        (
            "term=t&color=green",
            {
                "type": "enum",
                "loc": ["query", "color"],
                "msg": "Input should be 'red' or 'blue'",
                "input": "green",
                "ctx": {"expected": "'red' or 'blue'"},
            },
        ),
        (
            "term=t&ref=nope",
            {
                "type": "uuid_parsing",
                "loc": ["query", "ref"],
                "msg": "Input should be a valid UUID, invalid character: found `n` at 0",
                "input": "nope",
                "ctx": {"error": "invalid character: found `n` at 0"},
            },
        ),
    ],
)
def test_bad_query_values_are_422_as_in_fastapi(
    serve: ClientFactory, query: str, error: dict[str, Any]
) -> None:
    response = serve(make_app()).get(f"/search?{query}")
    assert (response.status_code, response.json()) == (422, {"detail": [error]})


def test_unannotated_parameters_are_strings(serve: ClientFactory) -> None:
    response = serve(make_app()).get("/untyped/12?flag=on")
    assert response.json() == {"value": "12", "flag": "on"}


def test_struct_body(serve: ClientFactory) -> None:
    response = serve(make_app()).post("/orders", json={"id": 1, "name": "pen", "tags": ["a"]})
    assert response.status_code == 201
    assert response.json() == {"id": 1, "name": "pen", "tags": ["a"]}


def test_dataclass_typeddict_and_list_bodies(serve: ClientFactory) -> None:
    client = serve(make_app())
    assert client.post("/points", json={"x": 1, "y": 2.5}).json() == {"sum": 3.5}
    movie = client.post("/movies", json={"title": "Heat", "year": 1995})
    assert movie.json() == {"title": "Heat", "method": "POST"}
    orders = [{"id": 1, "name": "a"}, {"id": 2, "name": "b"}]
    assert client.post("/orders/batch", json=orders).json() == 2


def test_body_with_path_and_query(serve: ClientFactory) -> None:
    response = serve(make_app()).post("/orders/9?dry_run=1", json={"id": 4, "name": "x"})
    assert response.json() == {"shop": 9, "order": 4, "dry_run": True}


def test_optional_body(serve: ClientFactory) -> None:
    client = serve(make_app())
    assert client.post("/optional-body").json() == "none"
    assert client.post("/optional-body", json={"id": 1, "name": "n"}).json() == "n"


def test_invalid_body_field_is_422_with_location(serve: ClientFactory) -> None:
    response = serve(make_app()).post("/orders", json={"id": "one", "name": "pen"})
    assert response.status_code == 422
    assert response.json()["detail"] == [
        {"type": "int_parsing", "loc": ["body", "id"], "msg": INT, "input": "one"}
    ]


def test_nested_body_error_location(serve: ClientFactory) -> None:
    response = serve(make_app()).post("/orders", json={"id": 1, "name": "p", "tags": ["a", 2]})
    assert response.json()["detail"][0]["loc"] == ["body", "tags", 1]


def test_missing_body_field_is_422(serve: ClientFactory) -> None:
    response = serve(make_app()).post("/orders", json={"id": 1})
    assert response.status_code == 422
    assert response.json()["detail"] == [
        {"type": "missing", "loc": ["body", "name"], "msg": "Field required", "input": {"id": 1}}
    ]


def test_missing_body_is_422(serve: ClientFactory) -> None:
    response = serve(make_app()).post("/orders")
    assert response.status_code == 422
    assert response.json()["detail"] == [
        {"type": "missing", "loc": ["body"], "msg": "Field required", "input": None}
    ]


def test_body_of_wrong_json_type_is_422(serve: ClientFactory) -> None:
    response = serve(make_app()).post("/orders", json=[1, 2])
    assert response.json() == {
        "detail": [
            {
                "type": "model_attributes_type",
                "loc": ["body"],
                "msg": "Input should be a valid dictionary or object to extract fields from",
                "input": [1, 2],
            }
        ]
    }


def test_malformed_json_is_422_json_invalid_as_in_fastapi(serve: ClientFactory) -> None:
    response = serve(make_app()).post(
        "/orders", content=b'{"id": 1,', headers={"content-type": "application/json"}
    )
    assert (response.status_code, response.json()) == (
        422,
        {
            "detail": [
                {
                    "type": "json_invalid",
                    "loc": ["body", 9],
                    "msg": "JSON decode error",
                    "input": {},
                    "ctx": {"error": "Expecting property name enclosed in double quotes"},
                }
            ]
        },
    )


def test_json_sent_as_another_content_type_is_not_read_as_json(serve: ClientFactory) -> None:
    # FastAPI's rule: the body is JSON only when its content type says so.
    response = serve(make_app()).post(
        "/orders", content=b'{"id": 1, "name": "x"}', headers={"content-type": "text/plain"}
    )
    assert (response.status_code, response.json()) == (
        422,
        {
            "detail": [
                {
                    "type": "model_attributes_type",
                    "loc": ["body"],
                    "msg": "Input should be a valid dictionary or object to extract fields from",
                    "input": '{"id": 1, "name": "x"}',
                }
            ]
        },
    )


def test_a_body_that_is_not_utf8_is_echoed_in_the_422_not_a_500(serve: ClientFactory) -> None:
    # FastAPI's encoder raises on such bytes, and answers 500: hasten keeps the 422.
    response = serve(make_app()).post(
        "/orders", content=b"\xa7<", headers={"content-type": "text/plain"}
    )
    assert (response.status_code, response.json()) == (
        422,
        {
            "detail": [
                {
                    "type": "model_attributes_type",
                    "loc": ["body"],
                    "msg": "Input should be a valid dictionary or object to extract fields from",
                    "input": "\ufffd<",
                }
            ]
        },
    )


def test_json_suffix_and_charset_are_accepted(serve: ClientFactory) -> None:
    client = serve(make_app())
    for content_type in ("application/json; charset=utf-8", "application/vnd.api+json"):
        response = client.post(
            "/orders", content=b'{"id": 1, "name": "x"}', headers={"content-type": content_type}
        )
        assert response.status_code == 201, content_type


def test_body_over_limit_with_content_length_is_413(serve: ClientFactory) -> None:
    client = serve(make_app(max_body_size=64))
    body = b'{"id":1,"name":"' + b"x" * 100 + b'"}'
    response = client.post("/orders", content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    assert response.json()["detail"] == "Request body of 118 bytes exceeds the limit of 64 bytes"


def test_chunked_body_over_limit_is_413(serve: ClientFactory) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"id": 1, "name": "'
        for _ in range(10):
            yield b"x" * 10
        yield b'"}'

    client = serve(make_app(max_body_size=64))
    response = client.post(
        "/orders", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.status_code == 413
    assert response.json()["detail"] == "Request body exceeds the limit of 64 bytes"


def test_chunked_body_within_limit_is_read_whole(serve: ClientFactory) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"id": 1, '
        yield b'"name": "chunked"}'

    response = serve(make_app()).post(
        "/orders", content=chunks(), headers={"content-type": "application/json"}
    )
    assert response.json() == {"id": 1, "name": "chunked", "tags": []}


def test_invalid_content_length_is_400(serve: ClientFactory) -> None:
    client = serve(make_app())
    request = client.build_request("POST", "/raw-json", content=b"{}")
    request.headers["content-length"] = "lots"
    response = client.send(request)
    assert response.status_code == 400
    assert response.json()["detail"] == "Invalid Content-Length header: 'lots'"


def test_request_json(serve: ClientFactory) -> None:
    client = serve(make_app())
    assert client.post("/raw-json", json={"a": [1, 2]}).json() == {"a": [1, 2]}
    assert client.post("/raw-json", content=b"{oops").status_code == 400


def test_two_body_parameters_are_members_of_one_object(serve: ClientFactory) -> None:
    app = App()

    @app.post("/two")
    async def two(a: Order, b: Order) -> list[str]:
        return [a.name, b.name]

    client = serve(app)
    order = {"id": 1, "name": "pen"}
    response = client.post("/two", json={"a": order, "b": {**order, "name": "ink"}})
    assert response.json() == ["pen", "ink"]
    missing = client.post("/two", json={"a": order})
    assert missing.status_code == 422
    assert missing.json() == {
        "detail": [
            {"type": "missing", "loc": ["body", "b"], "msg": "Field required", "input": None}
        ]
    }


def test_var_args_are_rejected() -> None:
    app = App()
    with pytest.raises(TypeError, match=r"\*args and \*\*kwargs"):

        @app.get("/var")
        async def var(*args: int) -> None: ...


def test_unresolvable_annotation_is_rejected() -> None:
    app = App()

    async def handler(x: "Missing") -> None:  # type: ignore[name-defined]  # noqa: F821, UP037
        ...

    with pytest.raises(TypeError, match="Cannot resolve the type annotations"):
        app.add_api_route("/x", handler)


def test_path_parameter_without_handler_parameter_is_rejected() -> None:
    app = App()
    with pytest.raises(TypeError, match=r"takes no parameter for path parameter\(s\) \['id'\]"):

        @app.get("/users/{id}")
        async def user() -> None: ...


def test_handler_taking_request_may_read_path_params_itself(serve: ClientFactory) -> None:
    app = App()

    @app.get("/users/{id:int}")
    async def user(request: Request) -> dict[str, Any]:
        return dict(request.path_params)

    assert serve(app).get("/users/4").json() == {"id": 4}


# The declared sources and constraints of the parameter descriptions.
def constrained_app() -> App:
    app = App()

    @app.get("/n/{n}")
    async def by_path(
        n: Annotated[int, msgspec.Meta(ge=1, le=100)],
        size: Annotated[int, Query(ge=1, le=100)] = 10,
        name: Annotated[str, msgspec.Meta(min_length=2)] = "ab",
        token: Annotated[str | None, Header(pattern="^t[0-9]+$")] = None,
        session: Annotated[str | None, Cookie(min_length=3)] = None,
    ) -> dict[str, Any]:
        return {"n": n, "size": size, "name": name, "token": token, "session": session}

    @app.get("/typed/{n:int}")
    async def typed(n: Annotated[int, msgspec.Meta(gt=5)]) -> int:
        return n

    @app.get("/headers")
    async def headers(
        user_agent: Annotated[str, Header()],
        x_ids: Annotated[list[int], Header()] = [],  # noqa: B006 - never mutated
        raw: str = Header("none", alias="X-Raw-Value", convert_underscores=False),
    ) -> dict[str, Any]:
        return {"ua": user_agent, "ids": x_ids, "raw": raw}

    @app.get("/aliased")
    async def aliased(
        page_size: Annotated[int, Query(alias="page-size")] = 5,
        theme: str = Cookie("light"),
    ) -> list[Any]:
        return [page_size, theme]

    @app.post("/embedded")
    async def embedded(order: Annotated[Order, Body(embed=True)], note: str = Body("")) -> Any:
        return [order.name, note]

    @app.post("/bounded")
    async def bounded(count: Annotated[int, Body(ge=0, le=9)]) -> int:
        return count

    return app


def test_annotated_constraints_hold_on_path_and_query(serve: ClientFactory) -> None:
    client = serve(constrained_app())
    assert client.get("/n/5?size=7&name=xyz").json() == {
        "n": 5,
        "size": 7,
        "name": "xyz",
        "token": None,
        "session": None,
    }
    response = client.get("/n/100000?size=0&name=x")
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "less_than_equal",
                "loc": ["path", "n"],
                "msg": "Input should be less than or equal to 100",
                "input": "100000",
                "ctx": {"le": 100},
            },
            {
                "type": "greater_than_equal",
                "loc": ["query", "size"],
                "msg": "Input should be greater than or equal to 1",
                "input": "0",
                "ctx": {"ge": 1},
            },
            {
                "type": "string_too_short",
                "loc": ["query", "name"],
                "msg": "String should have at least 2 characters",
                "input": "x",
                "ctx": {"min_length": 2},
            },
        ]
    }
    assert client.get("/typed/9").json() == 9
    assert client.get("/typed/3").json() == {
        "detail": [
            {
                "type": "greater_than",
                "loc": ["path", "n"],
                "msg": "Input should be greater than 5",
                "input": 3,
                "ctx": {"gt": 5},
            }
        ]
    }


def test_constraints_hold_on_headers_cookies_and_body(serve: ClientFactory) -> None:
    client = serve(constrained_app())
    ok = client.get("/n/1", headers={"token": "t42", "cookie": "session=abcd"})
    assert ok.json()["token"] == "t42"
    assert ok.json()["session"] == "abcd"
    bad = client.get("/n/1", headers={"token": "nope", "cookie": "session=ab"})
    assert bad.json() == {
        "detail": [
            {
                "type": "string_pattern_mismatch",
                "loc": ["header", "token"],
                "msg": "String should match pattern '^t[0-9]+$'",
                "input": "nope",
                "ctx": {"pattern": "^t[0-9]+$"},
            },
            {
                "type": "string_too_short",
                "loc": ["cookie", "session"],
                "msg": "String should have at least 3 characters",
                "input": "ab",
                "ctx": {"min_length": 3},
            },
        ]
    }
    assert client.post("/bounded", json=4).json() == 4
    assert client.post("/bounded", json=10).json() == {
        "detail": [
            {
                "type": "less_than_equal",
                "loc": ["body"],
                "msg": "Input should be less than or equal to 9",
                "input": 10,
                "ctx": {"le": 9},
            }
        ]
    }


def test_headers_by_name_alias_and_as_lists(serve: ClientFactory) -> None:
    client = serve(constrained_app())
    response = client.get(
        "/headers",
        headers=[("User-Agent", "probe"), ("x-ids", "1"), ("x-ids", "2"), ("X-Raw-Value", "r")],
    )
    assert response.json() == {"ua": "probe", "ids": [1, 2], "raw": "r"}
    missing = client.get("/headers", headers={"user-agent": ""} | {})
    assert missing.json() == {"ua": "", "ids": [], "raw": "none"}
    absent = serve(constrained_app())
    assert absent.get("/headers", headers={"User-Agent": "x", "x-ids": "z"}).json() == {
        "detail": [{"type": "int_parsing", "loc": ["header", "x-ids", 0], "msg": INT, "input": "z"}]
    }


def test_a_header_sent_twice_is_read_by_its_first_value(serve: ClientFactory) -> None:
    """A single-valued Header parameter takes the first value, as FastAPI's (Starlette's
    headers.get): RSGI looks it up in Granian without building request.headers."""
    app = App()

    @app.get("/token")
    async def token(
        x_token: Annotated[str, Header()], other: Annotated[str, Header(alias="X-Other")]
    ) -> dict[str, str]:
        return {"token": x_token, "other": other}

    response = serve(app).get(
        "/token", headers=[("X-Token", "first"), ("x-token", "second"), ("x-other", "o")]
    )
    assert (response.status_code, response.json()) == (200, {"token": "first", "other": "o"})


def header_app() -> App:
    app = App(max_headers=10)

    @app.get("/one")  # a handler reading one header alone
    async def one(x_count: Annotated[int, Header()]) -> int:
        return x_count

    @app.get("/two")  # a header after a query value (the values written out)
    async def two(q: str, x_count: Annotated[int, Header()] = 7) -> list[str | int]:
        return [q, x_count]

    @app.get("/dep")  # a dependency's header (the solver written out)
    async def dep(count: Annotated[int, Depends(counted)]) -> int:
        return count

    return app


async def counted(x_count: Annotated[int, Header(alias="X-Many")]) -> int:
    return x_count


@pytest.mark.parametrize(
    ("path", "name", "loc"),
    [("/one", "x-count", "x-count"), ("/two?q=a", "x-count", ""), ("/dep", "x-many", "X-Many")],
)
def test_a_header_looked_up_in_place_answers_as_its_reader(
    serve: ClientFactory, path: str, name: str, loc: str
) -> None:
    """The plan, the values and the solver look a header up themselves; a value missing, or
    one that does not convert at once, is its reader's, with FastAPI's error or default."""
    client = serve(header_app())
    ok = client.get(path, headers=[(name.upper(), "5"), (name, "6")])
    assert (ok.status_code, ok.content) == (200, b'["a",5]' if loc == "" else b"5")
    bad = client.get(path, headers={name: "five"})
    assert bad.status_code == 422
    assert bad.json() == {
        "detail": [
            {"type": "int_parsing", "loc": ["header", loc or name], "msg": INT, "input": "five"}
        ]
    }
    missing = client.get(path)
    if loc == "":  # a default
        assert (missing.status_code, missing.content) == (200, b'["a",7]')
    else:
        assert missing.status_code == 422
        assert missing.json() == {
            "detail": [
                {"type": "missing", "loc": ["header", loc], "msg": "Field required", "input": None}
            ]
        }
    many = client.get(path, headers={f"x-h{index}": "v" for index in range(10)} | {name: "5"})
    assert (many.status_code, many.content) == (
        431,
        b'{"detail":"The request has more than 10 headers"}',
    )


def test_a_header_or_cookie_is_never_read_from_the_query(serve: ClientFactory) -> None:
    client = serve(constrained_app())
    assert client.get("/aliased?page-size=7", headers={"cookie": "theme=dark"}).json() == [
        7,
        "dark",
    ]
    assert client.get("/aliased?theme=dark&page_size=9").json() == [5, "light"]


def test_embedded_body_parameters(serve: ClientFactory) -> None:
    client = serve(constrained_app())
    body = {"order": {"id": 1, "name": "pen"}, "note": "fast"}
    assert client.post("/embedded", json=body).json() == ["pen", "fast"]
    assert client.post("/embedded", json={"order": {"id": 1}}).json() == {
        "detail": [
            {
                "type": "missing",
                "loc": ["body", "order", "name"],
                "msg": "Field required",
                "input": {"id": 1},
            }
        ]
    }


class Plain:
    """A class msgspec cannot read: no fields it knows of."""


@pytest.mark.parametrize(
    ("annotation", "source"),
    [
        (Plain, "query"),  # a scalar to FastAPI, as an EmailStr is
        (Plain | None, "query"),
        (Annotated[list[Plain], Body()], "body"),
        (Annotated[Plain, Cookie()], "cookie"),
    ],
)
def test_a_parameter_no_request_can_fill_is_refused_at_registration(
    annotation: Any, source: str
) -> None:
    app = App()

    async def handler(thing: Any) -> None: ...

    handler.__annotations__["thing"] = annotation  # a local type, resolvable
    with pytest.raises(TypeError) as raised:
        app.add_api_route("/x", handler)
    message = str(raised.value)
    assert "handler: parameter 'thing'" in message
    assert f"cannot be read from the {source}" in message
    assert "msgspec Struct, dataclass, attrs class, TypedDict" in message
    assert "take the Request" in message


def test_markers_must_agree_with_the_route() -> None:
    app = App()

    async def wrong_path(n: Annotated[int, Path()]) -> None: ...

    # Refused when the app starts: a router's prefix may still bring the path parameter.
    app.add_api_route("/x", wrong_path)
    with pytest.raises(TypeError, match="declared Path\\(\\) but the route has no path parameter"):
        TestClient(app).get("/x")
    app = App()

    async def twice(n: Annotated[int, Query(3)] = 4) -> None: ...

    message = "`Query` default value cannot be set in `Annotated` for 'n'"
    with pytest.raises(InvalidParameter, match=message):
        app.add_api_route("/z", twice)

    async def both(n: Annotated[int, Query()] = Query(3)) -> None: ...

    message = "Cannot specify FastAPI annotations in `Annotated` and default value together"
    with pytest.raises(InvalidParameter, match=message):
        app.add_api_route("/b", both)

    async def depends_twice(n: Annotated[int, Depends(int)] = Depends(int)) -> None: ...

    message = "Cannot specify `Depends` in `Annotated` and default value together for 'n'"
    with pytest.raises(InvalidParameter, match=message):
        app.add_api_route("/d", depends_twice)

    async def request_marked(request: Annotated[Request, Query()]) -> None: ...

    with pytest.raises(TypeError, match="'request' is given by hasten; it takes no marker"):
        app.add_api_route("/r", request_marked)


def test_markers_in_annotated_are_merged_the_last_the_source(serve: ClientFactory) -> None:
    app = App()

    @app.get("/")
    async def read(n: Annotated[int, Query(gt=2, alias="q"), Header(lt=10)]) -> int:
        return n

    client = serve(app)
    # Read from the header (the last marker), under the first's alias, held to both bounds.
    assert client.get("/", headers={"q": "5"}).json() == 5
    assert client.get("/?q=5").json()["detail"][0]["loc"] == ["header", "q"]
    assert [client.get("/", headers={"q": n}).status_code for n in ("1", "12")] == [422, 422]


def test_constraints_that_fit_no_value_are_refused_at_registration() -> None:
    async def handler(n: Annotated[int, Query(pattern="x")]) -> None: ...

    with pytest.raises(TypeError, match="the type or constraints of parameter 'n' cannot be read"):
        App().add_api_route("/x", handler)


def test_an_unknown_marker_keyword_is_an_error() -> None:
    with pytest.raises(TypeError, match="unexpected keyword argument 'lte'"):
        Query(lte=3)  # type: ignore[call-arg]


def test_marker_options_mirror_the_marker() -> None:
    per_source = {"source", "default", "_", "convert_underscores", "embed", "given"}
    fields = [item.name for item in dataclasses.fields(Marker) if item.name not in per_source]
    assert list(typing.get_type_hints(MarkerOptions)) == fields


@pytest.mark.parametrize(
    "content_type",
    [
        "application/json",
        "application/json; charset=utf-8",
        "Application/JSON",
        "application/x+json",
    ],
)
def test_json_media_types_taken_as_json(serve: ClientFactory, content_type: str) -> None:
    response = serve(make_app()).post(
        "/orders", content=b'{"id": 1, "name": "x"}', headers={"content-type": content_type}
    )
    assert (response.status_code, response.json()) == (201, {"id": 1, "name": "x", "tags": []})


def test_markers_answer_repr_and_in_as_fastapi_s_classes() -> None:
    assert [repr(Query("x")), repr(Query(...)), repr(Path()), repr(Body(None))] == [
        "Query(x)",
        "Query(PydanticUndefined)",
        "Path(PydanticUndefined)",
        "Body(None)",
    ]
    assert repr(Param([])) == "Param([])"
    assert [Path().in_, Query().in_, Header().in_, Cookie().in_, Param().in_] == [
        ParamTypes.path,
        ParamTypes.query,
        ParamTypes.header,
        ParamTypes.cookie,
        ParamTypes.query,
    ]
    with pytest.raises(AttributeError, match="Body\\(\\) has no 'in_'"):
        Body().in_  # noqa: B018


def test_a_param_marker_reads_the_query(serve: ClientFactory) -> None:
    app = App()

    @app.get("/items")
    async def items(q: str | None = Param(None)) -> dict[str, Any]:
        return {"q": q}

    client = serve(app)
    assert client.get("/items").json() == {"q": None}
    assert client.get("/items?q=foo").json() == {"q": "foo"}


@pytest.mark.parametrize("source", ["path", "query", "header", "cookie"])
def test_a_compiled_pattern_keeps_its_flags(serve: ClientFactory, source: str) -> None:
    marker = {"path": Path, "query": Query, "header": Header, "cookie": Cookie}[source]
    app = App()

    @app.get("/{value}" if source == "path" else "/")
    async def read(value: str = marker(pattern=re.compile("^abc$", re.IGNORECASE))) -> Any:
        return {"value": value}

    client = serve(app)

    def get(value: str) -> Any:
        if source == "path":
            return client.get(f"/{value}")
        if source == "query":
            return client.get("/", params={"value": value})
        if source == "header":
            return client.get("/", headers={"value": value})
        return client.get("/", headers={"cookie": f"value={value}"})

    assert get("ABC").json() == {"value": "ABC"}
    response = get("xyz")
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "string_pattern_mismatch",
                "loc": [source, "value"],
                "msg": "String should match pattern '^abc$'",
                "input": "xyz",
                "ctx": {"pattern": "^abc$"},
            }
        ]
    }


def shout(schema: dict[str, Any]) -> None:
    schema["x-loud"] = True


def test_the_document_says_what_the_markers_say() -> None:
    app = App()

    @app.get("/{hidden}")
    async def read(
        hidden: Annotated[str, Path(include_in_schema=False)],
        label: Annotated[str, Query(pattern=re.compile("^a$"), json_schema_extra=shout)] = "a",
    ) -> None: ...

    # The hidden path value is not documented (it was, as a path parameter not taken); a
    # compiled pattern is written, and a json_schema_extra function called (it was a 500).
    assert app.openapi()["paths"]["/{hidden}"]["get"]["parameters"] == [
        {
            "name": "label",
            "in": "query",
            "required": False,
            "schema": {
                "type": "string",
                "pattern": "^a$",
                "title": "Label",
                "default": "a",
                "x-loud": True,
            },
        }
    ]


def test_an_unmarked_list_is_the_body_as_in_fastapi(serve: ClientFactory) -> None:
    app = App()

    @app.post("/")
    async def read(ids: list[int] | None = None) -> Any:
        return {"ids": ids}

    client = serve(app)
    assert client.post("/", json=[1, 2]).json() == {"ids": [1, 2]}
    # Not the query's (it was [3] where FastAPI, reading the body, gives None).
    assert client.post("/?ids=3").json() == {"ids": None}


if typing.TYPE_CHECKING:
    from collections.abc import AsyncGenerator  # only a type checker resolves it here


async def _client() -> AsyncGenerator[str, None]:
    yield "client"


async def _some_value() -> int:
    return 123


DependedValue = TypeAliasType("DependedValue", Annotated[int, Depends(_some_value)])


def test_a_return_annotation_only_a_type_checker_resolves_is_left_out(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.get("/")
    async def people(client: Annotated[str, Depends(_client)], value: DependedValue) -> list[Any]:
        return [client, value]

    assert serve(app).get("/").json() == ["client", 123]
