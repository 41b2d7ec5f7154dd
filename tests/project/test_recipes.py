"""The recipes in examples/recipes/, in-process through both adapters
(tests/servers/e2e/test_recipes.py
serves those whose module-level objects matter under ``hasten run``)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import jwt
import pydantic
import pytest

from examples.recipes import auth, ratelimit, settings
from hasten.testing import TestClient
from tests.conftest import ClientFactory

SECRET = "0123456789abcdef" * 4


# pydantic-settings
@pytest.fixture
def environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """The environment, with the recipes' cached settings read again from it."""
    settings.get_settings.cache_clear()
    auth.get_settings.cache_clear()
    monkeypatch.setenv("AUTH_SECRET_KEY", SECRET)
    yield monkeypatch
    settings.get_settings.cache_clear()
    auth.get_settings.cache_clear()


def test_settings_come_from_the_environment(
    serve: ClientFactory, environment: pytest.MonkeyPatch
) -> None:
    environment.setenv("SHOP_NAME", "Corner shop")
    environment.setenv("shop_items_per_user", "7")

    assert serve(settings.app).get("/info").json() == {
        "name": "Corner shop",
        "admin_email": "admin@example.com",
        "items_per_user": 7,
    }


def test_a_bad_setting_stops_the_start(environment: pytest.MonkeyPatch) -> None:
    environment.setenv("SHOP_ITEMS_PER_USER", "0")

    with pytest.raises(pydantic.ValidationError, match="items_per_user"), TestClient(settings.app):
        pass


def test_a_test_overrides_the_settings(
    serve: ClientFactory, environment: pytest.MonkeyPatch
) -> None:
    settings.app.dependency_overrides[settings.get_settings] = lambda: settings.Settings(
        name="Test"
    )
    try:
        assert serve(settings.app).get("/info").json()["name"] == "Test"
    finally:
        settings.app.dependency_overrides.clear()


# JWT auth
def test_a_password_gets_a_token_that_the_bearer_route_takes(
    serve: ClientFactory, environment: pytest.MonkeyPatch
) -> None:
    client = serve(auth.app)
    signed_in = client.post("/token", data={"username": "alice", "password": "wonderland"})

    assert signed_in.status_code == 200
    token = signed_in.json()["access_token"]
    assert signed_in.json()["token_type"] == "bearer"
    assert jwt.decode(token, SECRET, ["HS256"])["sub"] == "alice"
    me = client.get("/users/me", headers={"Authorization": f"Bearer {token}"})
    assert (me.status_code, me.json()) == (
        200,
        {"username": "alice", "full_name": "Alice Liddell", "disabled": False},
    )


@pytest.mark.parametrize(
    ("username", "password"), [("alice", "looking-glass"), ("mallory", "wonderland")]
)
def test_a_wrong_name_or_password_is_401(
    serve: ClientFactory, environment: pytest.MonkeyPatch, username: str, password: str
) -> None:
    refused = serve(auth.app).post("/token", data={"username": username, "password": password})

    assert (refused.status_code, refused.json()) == (
        401,
        {"detail": "Incorrect username or password"},
    )
    assert refused.headers["www-authenticate"] == "Bearer"


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "Bearer not-a-jwt",
        "Bearer " + jwt.encode({"sub": "alice"}, "another key" * 4, "HS256"),
        "Bearer " + jwt.encode({"sub": "alice", "exp": 1}, SECRET, "HS256"),  # expired
        "Bearer " + jwt.encode({"sub": "mallory"}, SECRET, "HS256"),
    ],
)
def test_a_missing_or_bad_token_is_401(
    serve: ClientFactory, environment: pytest.MonkeyPatch, authorization: str | None
) -> None:
    headers = {"Authorization": authorization} if authorization else {}
    refused = serve(auth.app).get("/users/me", headers=headers)

    assert refused.status_code == 401
    assert refused.headers["www-authenticate"] == "Bearer"
    expected = "Not authenticated" if authorization is None else "Could not validate credentials"
    assert refused.json() == {"detail": expected}


def test_the_token_route_is_an_oauth2_password_flow_in_openapi(
    environment: pytest.MonkeyPatch,
) -> None:
    schemes = auth.app.openapi()["components"]["securitySchemes"]
    assert schemes == {
        "OAuth2PasswordBearer": {
            "type": "oauth2",
            "flows": {"password": {"scopes": {}, "tokenUrl": "token"}},
        }
    }


# Rate limiting
def test_past_the_limit_a_client_gets_429_with_retry_after(serve: ClientFactory) -> None:
    asyncio.run(ratelimit.storage.reset())
    client = serve(ratelimit.app)

    allowed = [client.get("/search", params={"q": "tea"}).status_code for _ in range(5)]
    refused = client.get("/search")

    assert allowed == [200] * 5
    assert (refused.status_code, refused.json()) == (
        429,
        {"detail": "Rate limit exceeded: 5/minute"},
    )
    assert 1 <= int(refused.headers["retry-after"]) <= 60
    assert client.get("/health").status_code == 200  # a route without the limit
