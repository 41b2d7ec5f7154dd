"""Security schemes through both adapters: what each reads and returns, the 401 and challenge
it answers (or None with ``auto_error=False``), a subclass's own error, the scopes a
dependency sees and how often it runs, a WebSocket's refused handshake, and OpenAPI."""

# No `from __future__ import annotations`: the dependencies here are local functions, which
# string annotations could not name.
from typing import Annotated, Any

import pytest

from hasten import App, Depends, HTTPException, Request, Security, WebSocket
from hasten._cli.servers import Interface
from hasten.security import (
    APIKeyCookie,
    APIKeyHeader,
    APIKeyQuery,
    HTTPAuthorizationCredentials,
    HTTPBase,
    HTTPBasic,
    HTTPBearer,
    HTTPDigest,
    OAuth2,
    OAuth2AuthorizationCodeBearer,
    OAuth2PasswordBearer,
    OAuth2PasswordRequestFormStrict,
    OpenIdConnect,
    SecurityBase,
    SecurityScopes,
)
from hasten.security.utils import get_authorization_scheme_param
from hasten.testing import TestClient, WebSocketDenialResponse
from tests.conftest import ClientFactory


class HTTPBearer403(HTTPBearer):
    def make_not_authenticated_error(self) -> HTTPException:
        return HTTPException(status_code=403, detail="Not authenticated")


def bearer_app(scheme: HTTPBearer) -> App:
    app = App()

    @app.get("/me")
    def read_me(credentials: HTTPAuthorizationCredentials = Depends(scheme)) -> dict[str, str]:
        return {"token": credentials.credentials}

    return app


def test_missing_credentials_are_a_401_with_the_schemes_challenge(serve: ClientFactory) -> None:
    client = serve(bearer_app(HTTPBearer()))
    response = client.get("/me")
    assert (response.status_code, response.json()) == (401, {"detail": "Not authenticated"})
    assert response.headers["www-authenticate"] == "Bearer"
    response = client.get("/me", headers={"Authorization": "Bearer secret"})
    assert (response.status_code, response.json()) == (200, {"token": "secret"})
    assert HTTPBasic(realm="api").make_authenticate_headers() == {
        "WWW-Authenticate": 'Basic realm="api"'
    }


def test_a_scheme_written_for_fastapi_subclasses_security_base_without_its_init(
    serve: ClientFactory,
) -> None:
    # FastAPI's SecurityBase has no __init__: a scheme of fastapi-users' kind calls none.
    class HeaderToken(SecurityBase):
        def __call__(self, request: Request) -> str | None:
            return request.headers.get("x-token")

    scheme = HeaderToken()
    app = App()

    @app.get("/token")
    def read_token(token: str | None = Depends(scheme)) -> dict[str, str | None]:
        return {"token": token}

    client = serve(app)
    assert (scheme.scheme_name, scheme.auto_error) == ("HeaderToken", True)
    response = client.get("/token", headers={"x-token": "t"})
    assert (response.status_code, response.json()) == (200, {"token": "t"})
    response = client.get("/token")
    assert (response.status_code, response.json()) == (200, {"token": None})


def test_a_scheme_may_answer_its_own_error(serve: ClientFactory) -> None:
    response = serve(bearer_app(HTTPBearer403())).get("/me")
    assert (response.status_code, response.json()) == (403, {"detail": "Not authenticated"})
    assert "www-authenticate" not in response.headers


# Each scheme: a request it takes, what it returns then, and its challenge.
SCHEMES = [
    (
        HTTPBase(scheme="Other"),
        {"Authorization": "Other  s3 "},
        {"scheme": "Other", "credentials": "s3"},
        "Other",
    ),
    (
        HTTPDigest(),
        {"Authorization": "Digest s3"},
        {"scheme": "Digest", "credentials": "s3"},
        "Digest",
    ),
    (
        HTTPBasic(),
        {"Authorization": "Basic am9objpzZWNyZXQ="},
        {"username": "john", "password": "secret"},
        "Basic",
    ),
    (OAuth2(), {"Authorization": "Other s3"}, "Other s3", "Bearer"),
    (OAuth2PasswordBearer("/token"), {"Authorization": "Bearer s3"}, "s3", "Bearer"),
    (
        OAuth2AuthorizationCodeBearer("/authorize", "/token"),
        {"Authorization": "Bearer s3"},
        "s3",
        "Bearer",
    ),
    (OpenIdConnect(openIdConnectUrl="/o"), {"Authorization": "Bearer s3"}, "Bearer s3", "Bearer"),
    (APIKeyHeader(name="key"), {"key": "s3"}, "s3", "APIKey"),
    (APIKeyCookie(name="key"), {"Cookie": "key=s3"}, "s3", "APIKey"),
]


@pytest.mark.parametrize(("scheme", "headers", "expected", "challenge"), SCHEMES)
def test_each_scheme_returns_its_credentials_or_answers_its_challenge(
    serve: ClientFactory, scheme: Any, headers: dict[str, str], expected: Any, challenge: str
) -> None:
    app = App()

    @app.get("/")
    def read(credentials: Any = Security(scheme)) -> Any:
        return credentials

    client = serve(app)
    response = client.get("/", headers=headers)
    assert (response.status_code, response.json()) == (200, expected)
    response = client.get("/")
    assert (response.status_code, response.json()) == (401, {"detail": "Not authenticated"})
    assert response.headers["www-authenticate"] == challenge


@pytest.mark.parametrize(
    "scheme",
    [
        HTTPDigest(auto_error=False),
        HTTPBase(scheme="Other", auto_error=False),
        OAuth2(auto_error=False),
        OAuth2AuthorizationCodeBearer("/a", "/t", auto_error=False),
        OpenIdConnect(openIdConnectUrl="/o", auto_error=False),
        APIKeyQuery(name="key", auto_error=False),
    ],
)
def test_without_auto_error_missing_credentials_are_none(serve: ClientFactory, scheme: Any) -> None:
    app = App()

    @app.get("/")
    def read(credentials: Any = Security(scheme)) -> dict[str, Any]:
        return {"credentials": credentials}

    response = serve(app).get("/")
    assert (response.status_code, response.json()) == (200, {"credentials": None})


def test_digest_and_bearer_refuse_another_scheme(serve: ClientFactory) -> None:
    app = App()

    digest_scheme = HTTPDigest(auto_error=False)
    code_scheme = OAuth2AuthorizationCodeBearer("/a", "/t")

    @app.get("/digest")
    def digest(credentials: Any = Security(digest_scheme)) -> Any:
        return {"credentials": credentials}

    @app.get("/code")
    def code(token: Any = Security(code_scheme)) -> Any:
        return token

    client = serve(app)
    response = client.get("/digest", headers={"Authorization": "Bearer s3"})
    assert (response.status_code, response.json()) == (200, {"credentials": None})
    response = client.get("/code", headers={"Authorization": "Basic s3"})
    assert (response.status_code, response.headers["www-authenticate"]) == (401, "Bearer")


def test_the_strict_password_form_requires_grant_type_password(serve: ClientFactory) -> None:
    app = App()

    @app.post("/token")
    def login(form: Annotated[OAuth2PasswordRequestFormStrict, Depends()]) -> Any:
        return form

    client = serve(app)
    response = client.post("/token", data={"username": "jo", "password": "pw"})
    assert response.status_code == 422
    assert response.json()["detail"] == [
        {"type": "missing", "loc": ["body", "grant_type"], "msg": "Field required", "input": None}
    ]
    data = {"username": "jo", "password": "pw", "grant_type": "password", "scope": "a b"}
    response = client.post("/token", data=data)
    assert (response.status_code, response.json()) == (
        200,
        {
            "grant_type": "password",
            "username": "jo",
            "password": "pw",
            "scopes": ["a", "b"],
            "client_id": None,
            "client_secret": None,
        },
    )


def test_a_dependency_that_ignores_scopes_runs_once_whatever_scopes_are_above_it(
    serve: ClientFactory,
) -> None:
    calls: list[str] = []

    def get_db() -> str:
        calls.append("db")
        return f"db{len(calls)}"

    def get_user(scopes: SecurityScopes, db: Annotated[str, Depends(get_db)]) -> dict[str, Any]:
        calls.append("user")
        return {"scopes": scopes.scopes, "db": db}

    def get_me(user: Annotated[dict[str, Any], Security(get_user, scopes=["me", "me"])]) -> Any:
        return user

    app = App()

    @app.get("/")
    def read(
        db: Annotated[str, Depends(get_db)],
        me: Annotated[Any, Depends(get_me)],
        items: Annotated[Any, Security(get_me, scopes=["items", "me"])],
    ) -> dict[str, Any]:
        return {"db": db, "me": me, "items": items}

    response = serve(app).get("/")
    # get_db runs once (its value does not depend on the scopes); get_user once per set of
    # scopes, which it sees each once, outermost first.
    assert (response.status_code, response.json()) == (
        200,
        {
            "db": "db1",
            "me": {"scopes": ["me"], "db": "db1"},
            "items": {"scopes": ["items", "me"], "db": "db1"},
        },
    )
    assert calls == ["db", "user", "user"]


@pytest.mark.parametrize(
    "scheme", [HTTPBearer(), APIKeyQuery(name="key"), OpenIdConnect(openIdConnectUrl="/o")]
)
def test_a_websocket_without_credentials_is_refused_with_the_schemes_401(
    interface: Interface, scheme: Any
) -> None:
    app = App()

    @app.websocket("/")
    async def socket(websocket: WebSocket, credentials: Any = Security(scheme)) -> None:
        await websocket.accept()
        await websocket.send_json(credentials)
        await websocket.close()

    with TestClient(app, interface=interface) as client:
        with pytest.raises(WebSocketDenialResponse) as refused, client.websocket_connect("/"):
            pass  # pragma: no cover - refused
        assert refused.value.status_code == 401
        # An ASGI server sends the error response as it is; Granian's RSGI, its status alone.
        if interface == "asgi":
            assert refused.value.json() == {"detail": "Not authenticated"}
            assert refused.value.headers["www-authenticate"] == scheme._challenge()
        else:
            assert refused.value.content == b""
        with client.websocket_connect("/?key=k", headers={"Authorization": "Bearer k"}) as ws:
            assert ws.receive_json() in ({"scheme": "Bearer", "credentials": "k"}, "k", "Bearer k")


def test_openapi_documents_each_scheme_once_with_every_scope_asked_of_it() -> None:
    code = OAuth2AuthorizationCodeBearer(
        "authorize", "token", scopes={"read": "Read", "write": "Write"}, description="Code"
    )

    def token(value: Annotated[str, Depends(code)]) -> str:
        return value

    app = App(dependencies=[Depends(token)])

    @app.get("/admin", dependencies=[Security(token, scopes=["read", "write", "read"])])
    def admin() -> None: ...

    @app.get(
        "/other",
        dependencies=[Depends(HTTPDigest()), Depends(OpenIdConnect(openIdConnectUrl="/o"))],
    )
    def other() -> None: ...

    document = app.openapi()
    assert document["paths"]["/admin"]["get"]["security"] == [
        {"OAuth2AuthorizationCodeBearer": ["read", "write"]}
    ]
    assert document["paths"]["/other"]["get"]["security"] == [
        {"OAuth2AuthorizationCodeBearer": []},
        {"HTTPDigest": []},
        {"OpenIdConnect": []},
    ]
    assert document["components"]["securitySchemes"] == {
        "HTTPDigest": {"type": "http", "scheme": "digest"},
        "OAuth2AuthorizationCodeBearer": {
            "type": "oauth2",
            "flows": {
                "authorizationCode": {
                    "authorizationUrl": "authorize",
                    "tokenUrl": "token",
                    "scopes": {"read": "Read", "write": "Write"},
                }
            },
            "description": "Code",
        },
        "OpenIdConnect": {"type": "openIdConnect", "openIdConnectUrl": "/o"},
    }


def test_a_scheme_written_for_fastapi_is_documented_from_its_model(serve: ClientFactory) -> None:
    class Custom(SecurityBase):
        def __init__(self) -> None:
            self.model = {"type": "http", "scheme": "custom", "description": None}
            self.scheme_name = "Custom"

        async def __call__(self) -> str:
            return "ok"

    app = App()

    @app.get("/", dependencies=[Depends(Custom())])
    def read() -> None: ...

    document = serve(app).get("/openapi.json").json()
    assert document["components"]["securitySchemes"] == {
        "Custom": {"type": "http", "scheme": "custom"}
    }
    assert OAuth2(
        flows={"password": {"tokenUrl": "t", "refreshUrl": None, "scopes": {}}}
    ).security_scheme() == {
        "type": "oauth2",
        "flows": {"password": {"tokenUrl": "t", "scopes": {}}},
    }


def test_the_authorization_header_splits_at_the_first_space() -> None:
    assert get_authorization_scheme_param("Bearer  a b ") == ("Bearer", "a b")
    assert get_authorization_scheme_param(None) == ("", "")
    assert get_authorization_scheme_param("Bearer") == ("Bearer", "")


class CookieBearer(OAuth2PasswordBearer):
    """A subclass with a ``__call__`` of its own (FastAPI's docs show one for a cookie)."""

    async def __call__(self, request: Request) -> str | None:
        return request.cookies.get("token") or await super().__call__(request)


@pytest.mark.parametrize(
    ("scheme", "cookies", "expected"),
    [
        (OAuth2PasswordBearer(tokenUrl="token"), {"token": "c"}, (200, "h")),
        (CookieBearer(tokenUrl="token"), {"token": "c"}, (200, "c")),
        (CookieBearer(tokenUrl="token"), {}, (200, "h")),
    ],
)
def test_a_bearer_token_is_read_by_the_scheme_s_own_call(
    serve: ClientFactory, scheme: OAuth2PasswordBearer, cookies: dict[str, str], expected: Any
) -> None:
    """The built-in scheme is read in place (``read_now``); a subclass's ``__call__`` runs."""
    app = App()

    @app.get("/token")
    async def token(value: Annotated[str, Depends(scheme)]) -> str:
        return value

    client = serve(app)
    client.cookies.update(cookies)
    response = client.get("/token", headers={"authorization": "Bearer h"})
    assert (response.status_code, response.json()) == expected
    missing = serve(app).get("/token")
    assert (missing.status_code, missing.json()) == (401, {"detail": "Not authenticated"})
