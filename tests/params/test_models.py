"""Models, exception handlers, security schemes and background tasks through both adapters."""

# No `from __future__ import annotations`: models and dependencies here are local.

import dataclasses
import logging
import typing
from typing import Annotated, Any, TypedDict

import attrs
import msgspec
import pydantic
import pytest
import typing_extensions
from pydantic.alias_generators import to_camel

import hasten._params.models
from hasten import (
    APIKeyCookie,
    APIKeyHeader,
    APIKeyQuery,
    App,
    BackgroundTasks,
    Depends,
    HTTPAuthorizationCredentials,
    HTTPBasic,
    HTTPBasicCredentials,
    HTTPBearer,
    HTTPError,
    JSONResponse,
    OAuth2PasswordBearer,
    Request,
    RequestValidationError,
    Security,
)
from hasten._params.models import describable, plain_check, plain_encoder
from hasten.errors import PydanticV1NotSupportedError
from tests.conftest import ClientFactory


class UserIn(pydantic.BaseModel):
    name: str
    age: int = pydantic.Field(ge=0)


class UserOut(msgspec.Struct):
    name: str
    bio: str | None = None


class UserInDB(msgspec.Struct):
    name: str
    password: str
    bio: str | None = None


class Team(msgspec.Struct):
    title: str
    members: list[UserOut]


@dataclasses.dataclass
class Point:
    x: int
    y: int


@attrs.define
class Size:
    width: int
    height: int


class Movie(TypedDict):
    title: str


class PydanticOut(pydantic.BaseModel):
    name: str


def test_pydantic_bodies_are_validated_by_pydantic(serve: ClientFactory) -> None:
    app = App()

    @app.post("/users")
    async def create(user: UserIn) -> UserIn:
        return user

    @app.post("/pair")
    async def pair(first: UserIn, second: UserIn) -> list[str]:
        return [first.name, second.name]

    client = serve(app)
    assert client.post("/users", json={"name": "ann", "age": 3}).json() == {"name": "ann", "age": 3}
    response = client.post("/users", json={"age": -1})
    assert response.status_code == 422
    assert response.json() == {
        "detail": [
            {
                "type": "missing",
                "loc": ["body", "name"],
                "msg": "Field required",
                "input": {"age": -1},
            },
            {
                "type": "greater_than_equal",
                "loc": ["body", "age"],
                "msg": "Input should be greater than or equal to 0",
                "input": -1,
                "ctx": {"ge": 0},
            },
        ]
    }
    pair_body: dict[str, dict[str, Any]] = {
        "first": {"name": "a", "age": 1},
        "second": {"name": "b", "age": "x"},
    }
    response = client.post("/pair", json=pair_body)
    assert response.json()["detail"][0]["loc"] == ["body", "second", "age"]
    pair_body["second"]["age"] = 2
    assert client.post("/pair", json=pair_body).json() == ["a", "b"]


def test_structs_dataclasses_attrs_and_typeddicts_are_bodies(serve: ClientFactory) -> None:
    app = App()

    @app.post("/all")
    async def everything(point: Point, size: Size, movie: Movie) -> list[Any]:
        return [point.x, size.height, movie["title"]]

    body = {"point": {"x": 1, "y": 2}, "size": {"width": 3, "height": 4}, "movie": {"title": "M"}}
    assert serve(app).post("/all", json=body).json() == [1, 4, "M"]


def test_the_response_model_keeps_out_what_it_does_not_declare(serve: ClientFactory) -> None:
    app = App()
    stored = UserInDB("ann", "secret", None)

    @app.get("/struct", response_model=UserOut)
    async def struct() -> UserInDB:
        return stored

    @app.get("/dict")
    async def from_dict() -> UserOut:
        return {"name": "ann", "password": "secret"}  # type: ignore[return-value]

    @app.get("/pydantic", response_model=PydanticOut)
    async def from_pydantic() -> Any:
        return {"name": "ann", "password": "secret"}

    @app.get("/nested", response_model=Team)
    async def nested() -> Any:
        return {"title": "t", "members": [msgspec.to_builtins(stored)], "budget": 3}

    @app.get("/list", response_model=list[UserOut])
    async def many() -> Any:
        return [stored, stored]

    @app.get("/none", response_model=None)
    async def unfiltered() -> UserOut:
        return stored  # type: ignore[return-value]

    @app.get("/checked", response_model=UserOut, validate_response=True)
    async def checked() -> Any:
        return {"name": 3}

    client = serve(app, raise_server_exceptions=False)
    assert client.get("/struct").json() == {"name": "ann", "bio": None}
    assert client.get("/dict").json() == {"name": "ann", "bio": None}
    assert client.get("/pydantic").json() == {"name": "ann"}
    assert client.get("/nested").json() == {
        "title": "t",
        "members": [{"name": "ann", "bio": None}],
    }
    assert client.get("/list").json() == [{"name": "ann", "bio": None}] * 2
    assert client.get("/none").json() == {"name": "ann", "password": "secret", "bio": None}
    assert client.get("/checked").status_code == 500


def test_a_pydantic_result_is_encoded(serve: ClientFactory) -> None:
    app = App()

    @app.get("/")
    async def handler():  # type: ignore[no-untyped-def]
        return PydanticOut(name="ann")

    assert serve(app).get("/").json() == {"name": "ann"}


def realworld_app() -> App:
    app = App()

    @app.exception_handler(HTTPError)
    async def http_error(request: Request, exc: HTTPError) -> JSONResponse:
        return JSONResponse({"errors": {"body": [str(exc.detail)]}}, exc.status, exc.headers)

    @app.exception_handler(RequestValidationError)
    def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        messages = [f"{error['loc'][-1]} {error['msg']}" for error in exc.errors()]
        return JSONResponse({"errors": {"body": messages}}, 422)

    @app.get("/articles/{slug}")
    async def article(slug: str, limit: int = 10) -> dict[str, str]:
        raise HTTPError(404, "article not found")

    return app


def test_exception_handlers_give_errors_the_realworld_shape(serve: ClientFactory) -> None:
    client = serve(realworld_app())
    response = client.get("/articles/x")
    assert (response.status_code, response.json()) == (
        404,
        {"errors": {"body": ["article not found"]}},
    )
    response = client.get("/articles/x?limit=many")
    assert (response.status_code, response.json()) == (
        422,
        {
            "errors": {
                "body": [
                    "limit Input should be a valid integer, unable to parse string as an integer"
                ]
            }
        },
    )
    response = client.get("/nowhere")
    assert (response.status_code, response.json()) == (404, {"errors": {"body": ["Not Found"]}})


def test_the_most_specific_handler_wins_and_a_failing_handler_is_a_logged_500(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    class AppError(Exception):
        pass

    class NotFoundError(AppError):
        pass

    app = App()
    app.add_exception_handler(AppError, lambda request, exc: JSONResponse({"kind": "app"}, 400))
    app.add_exception_handler(
        NotFoundError, lambda request, exc: JSONResponse({"kind": "missing"}, 404)
    )
    app.add_exception_handler(418, lambda request, exc: JSONResponse({"kind": "teapot"}, 418))

    @app.exception_handler(ZeroDivisionError)
    def broken(request: Request, exc: Exception) -> JSONResponse:
        raise RuntimeError("the handler broke")

    @app.get("/{kind}")
    async def fail(kind: str) -> None:
        errors: dict[str, Exception] = {
            "app": AppError(),
            "missing": NotFoundError(),
            "teapot": HTTPError(418),
            "zero": ZeroDivisionError(),
        }
        raise errors[kind]

    client = serve(app, raise_server_exceptions=False)
    assert client.get("/app").json() == {"kind": "app"}
    assert client.get("/missing").json() == {"kind": "missing"}
    assert client.get("/teapot").json() == {"kind": "teapot"}
    with caplog.at_level(logging.ERROR, logger="hasten.error"):
        response = client.get("/zero")
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    assert "exception handler for ZeroDivisionError() failed" in caplog.text
    with pytest.raises(RuntimeError, match="add an exception handler"):
        app.add_exception_handler(KeyError, broken)


def secured_app() -> App:
    app = App()
    bearer = HTTPBearer()
    basic = HTTPBasic(realm="hasten")
    optional = HTTPBearer(auto_error=False, scheme_name="optional")
    oauth2 = OAuth2PasswordBearer(tokenUrl="/token", scopes={"read": "Read"})

    @app.get("/bearer")
    async def with_bearer(credentials: HTTPAuthorizationCredentials = Depends(bearer)) -> str:
        return credentials.credentials

    @app.get("/basic")
    async def with_basic(credentials: Annotated[HTTPBasicCredentials, Depends(basic)]) -> str:
        return f"{credentials.username}:{credentials.password}"

    @app.get("/optional")
    async def maybe(credentials: Any = Depends(optional)) -> str:
        return "anonymous" if credentials is None else credentials.credentials

    @app.get("/keys")
    async def keys(
        header: str = Depends(APIKeyHeader(name="X-Key")),
        query: str = Depends(APIKeyQuery(name="key")),
        cookie: str = Depends(APIKeyCookie(name="key")),
    ) -> list[str]:
        return [header, query, cookie]

    @app.get("/oauth2")
    async def with_oauth2(token: str = Security(oauth2, scopes=["read"])) -> str:
        return token

    return app


@pytest.mark.parametrize(
    ("path", "headers", "status", "answer", "challenge"),
    [
        ("/bearer", {"authorization": "Bearer abc"}, 200, "abc", None),
        ("/bearer", {}, 401, {"detail": "Not authenticated"}, "Bearer"),
        ("/bearer", {"authorization": "Basic abc"}, 401, {"detail": "Not authenticated"}, "Bearer"),
        ("/basic", {"authorization": "Basic YW5uOnB3"}, 200, "ann:pw", None),
        ("/basic", {"authorization": "Basic !!"}, 401, {"detail": "Not authenticated"}, None),
        ("/basic", {}, 401, {"detail": "Not authenticated"}, 'Basic realm="hasten"'),
        ("/optional", {}, 200, "anonymous", None),
        ("/optional", {"authorization": "Bearer t"}, 200, "t", None),
        (
            "/keys",
            {"x-key": "h", "cookie": "key=c"},
            401,
            {"detail": "Not authenticated"},
            "APIKey",
        ),
        ("/keys?key=q", {"x-key": "h", "cookie": "key=c"}, 200, ["h", "q", "c"], None),
        ("/oauth2", {"authorization": "Bearer tok"}, 200, "tok", None),
        ("/oauth2", {}, 401, {"detail": "Not authenticated"}, "Bearer"),
    ],
)
def test_security_schemes_answer_as_fastapi(
    serve: ClientFactory,
    path: str,
    headers: dict[str, str],
    status: int,
    answer: Any,
    challenge: str | None,
) -> None:
    response = serve(secured_app()).get(path, headers=headers)
    assert response.status_code == status
    assert response.json() == answer
    if challenge is not None:
        assert response.headers["www-authenticate"] == challenge


def test_security_schemes_describe_themselves_for_openapi() -> None:
    app = secured_app()
    found = {
        route.path: [
            (scheme.scheme_name, scheme.security_scheme(), scopes)
            for scheme, scopes in route.security
        ]
        for route in app.routes
    }
    assert found["/bearer"] == [("HTTPBearer", {"type": "http", "scheme": "bearer"}, ())]
    assert found["/basic"] == [("HTTPBasic", {"type": "http", "scheme": "basic"}, ())]
    assert found["/oauth2"] == [
        (
            "OAuth2PasswordBearer",
            {
                "type": "oauth2",
                "flows": {"password": {"tokenUrl": "/token", "scopes": {"read": "Read"}}},
            },
            ("read",),
        )
    ]
    assert [item[1] for item in found["/keys"]] == [
        {"type": "apiKey", "in": "header", "name": "X-Key"},
        {"type": "apiKey", "in": "query", "name": "key"},
        {"type": "apiKey", "in": "cookie", "name": "key"},
    ]


def test_background_tasks_run_after_the_response_and_failures_are_logged(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()
    done: list[str] = []

    def failing(name: str) -> None:
        raise ValueError(name)

    async def later(name: str) -> None:
        done.append(f"async {name}")

    async def with_tasks(tasks: BackgroundTasks) -> BackgroundTasks:
        tasks.add_task(done.append, "from a dependency")
        return tasks

    @app.post("/send")
    async def send(tasks: BackgroundTasks, same: BackgroundTasks = Depends(with_tasks)) -> str:
        assert tasks is same
        tasks.add_task(failing, "boom")
        tasks.add_task(later, name="mail")
        return "queued"

    @app.post("/fails")
    async def fails(tasks: BackgroundTasks) -> str:
        tasks.add_task(done.append, "never")
        raise HTTPError(400)

    client = serve(app, raise_server_exceptions=False)
    with caplog.at_level(logging.ERROR, logger="hasten.error"):
        assert client.post("/send").json() == "queued"
    assert done == ["from a dependency", "async mail"]
    assert "Background task tests.params.test_models." in caplog.text
    assert "failing failed" in caplog.text
    assert client.post("/fails").status_code == 400
    assert done == ["from a dependency", "async mail"]
    with pytest.raises(ValueError, match="boom"):  # in a test, as Starlette's
        serve(app).post("/send")


def test_a_pydantic_v1_model_is_refused_with_what_to_do() -> None:
    """FastAPI 0.165 takes pydantic v2 models only: a v1 one is refused at registration, by
    name, with the import to use instead (not a 500 at the first request)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pydantic.v1 warns on Python 3.14
        from pydantic.v1 import BaseModel as V1Model

    class Legacy(V1Model):
        name: str

    app = App()
    fix = "declare it with `from pydantic import BaseModel`, not `from pydantic.v1 import"

    async def takes(item: Legacy) -> str:
        return item.name

    with pytest.raises(
        TypeError, match=rf"parameter 'item' is a pydantic v1 model \(.*Legacy\).*{fix}"
    ):
        app.post("/in")(takes)

    async def returns() -> list[Legacy]:
        return []

    async def union(item: dict[str, str] | Legacy) -> str:
        return "never"

    with pytest.raises(TypeError, match=rf"response model holds a pydantic v1 model .*{fix}"):
        app.get("/out")(returns)
    with pytest.raises(TypeError, match=r"response model holds a pydantic v1 model \(.*Legacy\)"):
        app.get("/out", response_model=Legacy | None)(lambda: None)
    # FastAPI's class (a TypeError too), also for a model in responses=.
    with pytest.raises(PydanticV1NotSupportedError, match=r"responses= holds a pydantic v1"):
        app.get("/error", response_model=None, responses={400: {"model": Legacy}})(lambda: None)
    with pytest.raises(PydanticV1NotSupportedError, match="parameter 'item' is a pydantic v1"):
        app.post("/union")(union)


class CamelOut(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(alias_generator=to_camel, populate_by_name=True)

    user_name: str
    created_at: str | None = None
    tags: list[str] = []


def test_aliases_are_never_lost(serve: ClientFactory) -> None:
    app = App()

    @app.get("/instance")
    async def instance() -> CamelOut:
        return CamelOut(user_name="ada", created_at="today")

    @app.get("/by-name", response_model=CamelOut, response_model_by_alias=False)
    async def by_name() -> Any:
        return {"userName": "ada"}

    @app.get("/plain")
    async def plain() -> Any:  # no response model: still dumped by alias, as FastAPI does
        return [CamelOut(user_name="ada")]

    client = serve(app)
    answer = client.get("/instance")
    assert answer.status_code == 200
    assert answer.json() == {"userName": "ada", "createdAt": "today", "tags": []}
    assert client.get("/by-name").json() == {"user_name": "ada", "created_at": None, "tags": []}
    assert client.get("/plain").json() == [{"userName": "ada", "createdAt": None, "tags": []}]


def test_a_result_that_does_not_fit_its_pydantic_model_is_a_500(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = App()

    @app.get("/missing", response_model=PydanticOut)
    async def missing() -> Any:
        return {"nom": "ann"}  # a field would be lost: refused, not sent as {}

    answer = serve(app, raise_server_exceptions=False).get("/missing")
    assert (answer.status_code, answer.text) == (500, "Internal Server Error")
    assert "ResponseValidationError" in caplog.text


class Stored(pydantic.BaseModel):
    name: str
    description: str | None = None
    price: float
    tax: float = 10.5


class StoredStruct(msgspec.Struct):
    name: str
    price: float
    description: str | None = None
    tax: float = 10.5


@pytest.mark.parametrize("model", [Stored, StoredStruct])
def test_response_model_dump_options(serve: ClientFactory, model: Any) -> None:
    app = App()
    stored = {"name": "Bar", "price": 62.0, "description": None, "tax": 10.5}

    @app.get("/unset", response_model=model, response_model_exclude_unset=True)
    async def unset() -> Any:
        return {"name": "Foo", "price": 50.2}

    @app.get("/defaults", response_model=model, response_model_exclude_defaults=True)
    async def defaults() -> Any:
        return stored

    @app.get("/none", response_model=model, response_model_exclude_none=True)
    async def none() -> Any:
        return stored

    @app.get("/include", response_model=model, response_model_include={"name", "tax"})
    async def include() -> Any:
        return stored

    @app.get("/exclude", response_model=list[model], response_model_exclude={"__all__": {"tax"}})
    async def exclude() -> Any:
        return [stored]

    client = serve(app)
    assert client.get("/unset").json() == {"name": "Foo", "price": 50.2}
    assert client.get("/defaults").json() == {"name": "Bar", "price": 62.0}
    assert client.get("/none").json() == {"name": "Bar", "price": 62.0, "tax": 10.5}
    assert client.get("/include").json() == {"name": "Bar", "tax": 10.5}
    assert client.get("/exclude").json() == [{"name": "Bar", "price": 62.0, "description": None}]


def test_a_set_of_exclusions_is_read_once_as_the_route_is_made(serve: ClientFactory) -> None:
    # The set changed after the routes: each writes its model by the set as it was, whether
    # pydantic writes it straight to JSON (the default class) or hands it to the class given.
    app = App()
    excluded = {"tax"}

    @app.get("/json", response_model=Stored, response_model_exclude=excluded)
    async def as_json() -> Any:
        return {"name": "Bar", "price": 62.0}

    @app.get(
        "/class",
        response_model=Stored,
        response_model_exclude=excluded,
        response_class=JSONResponse,
    )
    async def by_class() -> Any:
        return {"name": "Bar", "price": 62.0}

    excluded.add("price")
    client = serve(app)
    expected = {"name": "Bar", "price": 62.0, "description": None}
    for path in ("/json", "/class"):
        answer = client.get(path)
        assert (answer.status_code, answer.json()) == (200, expected), path


@dataclasses.dataclass
class Priced:
    name: str
    price: float | None = None
    owner_ids: list[int] | None = None


class PricedDict(typing_extensions.TypedDict):  # pydantic reads typing's from Python 3.12
    name: str
    price: float


@pydantic.dataclasses.dataclass
class PricedPydantic:
    name: str
    price: float


@pytest.mark.parametrize("model", [Priced, PricedPydantic, list[Priced]])
def test_a_dataclass_response_model_is_validated_as_fastapi_does(
    serve: ClientFactory, model: Any
) -> None:
    app = App()
    many = typing.get_origin(model) is list

    @app.get("/coerce", response_model=model)
    async def coerce() -> Any:
        result = {"name": "coerce", "price": "1.0", "dropped": True}
        return [result] if many else result

    @app.get("/invalid", response_model=model)
    async def invalid() -> Any:
        result = {"name": "invalid", "price": "foo"}
        return [result] if many else result

    client = serve(app, raise_server_exceptions=False)
    coerced = client.get("/coerce")
    expected: dict[str, Any] = {"name": "coerce", "price": 1.0}
    if model is not PricedPydantic:
        expected["owner_ids"] = None
    assert (coerced.status_code, coerced.json()) == (200, [expected] if many else expected)
    failed = client.get("/invalid")
    assert (failed.status_code, failed.text) == (500, "Internal Server Error")


def test_a_typeddict_response_model_is_validated_as_fastapi_does(serve: ClientFactory) -> None:
    app = App()

    @app.get("/coerce", response_model=PricedDict)
    async def coerce() -> Any:
        return {"name": "coerce", "price": "2", "dropped": True}

    answer = serve(app).get("/coerce")
    assert answer.json() == {"name": "coerce", "price": 2.0}


def test_a_validation_error_names_its_endpoint_as_fastapi_does(serve: ClientFactory) -> None:
    app = App()
    sub = App()
    caught: list[RequestValidationError] = []

    async def capture(request: Request, exc: RequestValidationError) -> JSONResponse:
        caught.append(exc)
        return JSONResponse({"seen": True}, status=422)

    app.add_exception_handler(RequestValidationError, capture)
    sub.add_exception_handler(RequestValidationError, capture)

    @app.get("/users/{user_id}")
    async def get_user(user_id: int) -> int:
        return user_id

    @sub.get("/items/{item_id}")
    async def get_sub_item(item_id: int) -> int:
        return item_id

    app.mount("/sub", sub)
    client = serve(app)
    assert client.get("/users/x").status_code == 422
    assert client.get("/sub/items/x").status_code == 422
    line = get_user.__code__.co_firstlineno
    assert str(caught[0]).splitlines()[1:] == [
        f"  {caught[0].errors()[0]}",
        f'  File "{__file__}", line {line}, in get_user',
        "    GET /users/{user_id}",
    ]
    assert str(caught[1]).endswith("in get_sub_item\n    GET /sub/items/{item_id}")
    given = RequestValidationError([], endpoint_ctx={"path": "GET /x"})
    assert str(given) == "0 validation errors:\n  Endpoint: GET /x"


def test_any_declared_type_is_validated_as_fastapi_does(serve: ClientFactory) -> None:
    app = App()

    @app.get("/number", response_model=int)
    async def number() -> Any:
        return "3"

    @app.get("/not-a-number")
    async def not_a_number() -> int:
        return "x"  # type: ignore[return-value]  # the mistake FastAPI's 500 reports

    @app.get("/numbers")
    async def numbers() -> list[int]:
        return ["1", 2.0]  # type: ignore[list-item]  # coerced, as pydantic does

    @app.get("/prices")
    async def prices() -> dict[str, float]:
        return {"a": 1}

    @app.get("/text")
    async def text() -> str:
        return b"x"  # type: ignore[return-value]  # pydantic reads bytes as their text

    @app.get("/not-text")
    async def not_text() -> str:
        return 3  # type: ignore[return-value]

    @app.get("/anything")
    async def anything() -> dict[str, Any]:
        return {"kept": Priced(name="as is", price=1)}  # no validation to do: sent as it is

    client = serve(app, raise_server_exceptions=False)
    answers = {
        path: (answer.status_code, answer.content)
        for path in ("/number", "/not-a-number", "/numbers", "/prices", "/text", "/not-text")
        for answer in [client.get(path)]
    }
    assert answers == {
        "/number": (200, b"3"),
        "/not-a-number": (500, b"Internal Server Error"),  # was 200 "x"
        "/numbers": (200, b"[1,2]"),
        "/prices": (200, b'{"a":1.0}'),
        "/text": (200, b'"x"'),
        "/not-text": (500, b"Internal Server Error"),
    }
    assert client.get("/anything").json() == {
        "kept": {"name": "as is", "price": 1, "owner_ids": None}
    }


def test_a_result_already_of_its_plain_types_is_sent_as_pydantic_would_send_it(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.get("/plain")
    async def plain() -> dict[str, list[int | None]]:
        return {"a": [1, None], "b": []}

    @app.get("/a-bool-for-an-int")
    async def a_bool_for_an_int() -> dict[str, int]:
        return {"a": True}  # not exactly an int: pydantic reads it

    @app.get("/a-number-for-a-text")
    async def a_number_for_a_text() -> dict[str, str]:
        return {"a": 1}  # type: ignore[dict-item]  # pydantic refuses it: a 500

    @app.get("/a-key-not-text")
    async def a_key_not_text() -> dict[str, str]:
        return {1: "a"}  # type: ignore[dict-item]  # pydantic refuses it too

    client = serve(app, raise_server_exceptions=False)
    answers = {
        path: (answer.status_code, answer.content)
        for path in ("/plain", "/a-bool-for-an-int", "/a-number-for-a-text", "/a-key-not-text")
        for answer in [client.get(path)]
    }
    assert answers == {
        "/plain": (200, b'{"a":[1,null],"b":[]}'),
        "/a-bool-for-an-int": (200, b'{"a":1}'),
        "/a-number-for-a-text": (500, b"Internal Server Error"),
        "/a-key-not-text": (500, b"Internal Server Error"),
    }


def test_plain_check_takes_plain_json_types_only() -> None:
    check = plain_check(dict[str, list[float] | None])
    assert check is not None
    assert [check(value) for value in ({"a": [1.5]}, {"a": None}, {"a": [1]}, {1: None})] == [
        True,
        True,
        False,
        False,
    ]
    assert plain_check(dict[int, str]) is None
    assert plain_check(list[Priced]) is None


def test_plain_encoder_sends_plain_results_itself_and_others_by_the_model() -> None:
    def by_the_model(value: object) -> bytes:
        return b"model"

    shapes: list[tuple[Any, list[Any]]] = [
        (str | None, ["x", None, 1]),
        (list[int], [[1], [True], ()]),
        (dict[str, bool], [{"a": True}, {"a": 1}, {1: True}]),
    ]
    sent = {}
    for model, values in shapes:
        encode = plain_encoder(model, by_the_model)
        assert encode is not None
        sent[str(model)] = [encode(value) for value in values]
    assert sent == {
        "str | None": [b'"x"', b"null", b"model"],
        "list[int]": [b"[1]", b"model", b"model"],
        "dict[str, bool]": [b'{"a":true}', b"model", b"model"],
    }
    assert plain_encoder(list[Priced], by_the_model) is None


def test_object_is_any_value_without_pydantic(monkeypatch: pytest.MonkeyPatch) -> None:
    class Plain:
        pass

    monkeypatch.setattr(hasten._params.models, "pydantic_installed", lambda: False)
    described = [describable(model) for model in (dict[str, object], list[object], list[Plain])]
    assert described == [True, True, False]
