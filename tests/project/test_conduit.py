"""examples/conduit.py behaves as a RealWorld API should, through both adapters: exact statuses
and bodies, errors in RealWorld's shape, the store opened at startup and closed at shutdown."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass

import pytest
from openapi_spec_validator import validate

from examples import conduit
from hasten._cli.servers import Interface
from hasten.openapi import openapi_30
from hasten.testing import TestClient, WebSocketDenialResponse

ANN = {"username": "ann", "email": "ann@example.com", "password": "correct horse"}
BOB = {"username": "bob", "email": "bob@example.com", "password": "battery staple"}
NO_TOKEN = {"errors": {"body": ["Not authenticated"]}}


@dataclass
class Conduit:
    client: TestClient
    store: conduit.Store

    def sign_up(self, user: dict[str, str]) -> dict[str, str]:
        """Sign ``user`` up and in: the Authorization header of its token."""
        assert self.client.post("/users", json={"user": user}).status_code == 201
        login = self.client.post("/users/login", data=user)
        assert login.status_code == 200
        return {"authorization": f"Bearer {login.json()['access_token']}"}

    def publish(self, headers: dict[str, str], title: str = "Hello, World!") -> str:
        article = {"title": title, "body": "First post.", "tags": ["intro"]}
        response = self.client.post("/articles", json={"article": article}, headers=headers)
        assert response.status_code == 201
        slug: str = response.json()["article"]["slug"]
        return slug


@pytest.fixture
def app(interface: Interface) -> Iterator[Conduit]:
    """The example app on ``interface``, with a store the test can look into."""
    store = conduit.Store()

    async def known_store() -> AsyncIterator[conduit.Store]:
        yield store
        store.close()

    conduit.app.dependency_overrides[conduit.open_store] = known_store
    client = TestClient(conduit.app, interface=interface)
    try:
        yield Conduit(client, store)
    finally:
        client.close()
        conduit.app.dependency_overrides = {}


def test_sign_up_keeps_the_password_hash_in_and_mails_after(app: Conduit) -> None:
    response = app.client.post("/users", json={"user": ANN})
    assert response.status_code == 201
    assert response.json() == {
        "user": {"username": "ann", "email": "ann@example.com", "bio": "", "image": None}
    }
    assert app.store.outbox == ["Welcome to Conduit, ann@example.com"]
    again = app.client.post("/users", json={"user": ANN})
    assert again.status_code == 409
    assert again.json() == {"errors": {"body": ["Username ann is taken"]}}


def test_invalid_bodies_get_422_in_realworld_shape(app: Conduit) -> None:
    bad = {"username": "Ann!", "email": "ann", "password": "short"}
    response = app.client.post("/users", json={"user": bad})
    assert response.status_code == 422
    assert response.json() == {
        "errors": {"body": ["body.user.username: String should match pattern '^[a-z0-9_]+$'"]}
    }
    # As in FastAPI, the security dependency runs before the handler's own body is read:
    # without a token, the 401 comes first.
    unsigned = app.client.post("/articles", json={"article": {"title": 1}})
    assert unsigned.status_code == 401
    strict = app.client.post("/articles", json={"article": {"title": 1}}, headers=app.sign_up(ANN))
    assert strict.status_code == 422
    assert strict.json() == {
        "errors": {"body": ["body.article.title: Input should be a valid string"]}
    }
    assert app.store.outbox == ["Welcome to Conduit, ann@example.com"]  # the sign-up's only


def test_login_and_the_current_user(app: Conduit) -> None:
    headers = app.sign_up(ANN)
    me = app.client.get("/user", headers=headers)
    assert me.status_code == 200
    assert me.json() == {
        "user": {"username": "ann", "email": "ann@example.com", "bio": "", "image": None}
    }
    wrong = app.client.post("/users/login", data={**ANN, "password": "wrong"})
    assert wrong.status_code == 400
    assert wrong.json() == {"errors": {"body": ["Incorrect username or password"]}}
    anonymous = app.client.get("/user")
    assert anonymous.status_code == 401
    assert anonymous.headers["www-authenticate"] == "Bearer"
    assert anonymous.json() == NO_TOKEN
    forged = app.client.get("/user", headers={"authorization": "Bearer forged"})
    assert forged.status_code == 401
    assert forged.json() == {"errors": {"body": ["Invalid token"]}}


def test_the_image_upload(app: Conduit) -> None:
    headers = app.sign_up(ANN)
    image = {"image": ("me.png", b"\x89PNG...", "image/png")}
    response = app.client.put("/user/image", files=image, headers=headers)
    assert response.status_code == 200
    digest = hashlib.sha256(b"\x89PNG...").hexdigest()[:16]
    assert response.json()["user"]["image"] == f"/images/{digest}"
    # The /user router's dependency refuses before the form is read.
    assert app.client.put("/user/image", files=image).json() == NO_TOKEN


def test_articles_query_path_and_cookie_parameters(app: Conduit) -> None:
    ann = app.sign_up(ANN)
    slug = app.publish(ann)
    assert slug == "hello-world"
    assert app.publish(ann) == "hello-world-2"
    app.client.cookies.set("lang", "fr")
    article = app.client.get("/articles/hello-world").json()["article"]
    assert isinstance(article.pop("created"), float)
    assert article == {
        "slug": "hello-world",
        "title": "Hello, World!",
        "body": "First post.",
        "tags": ["intro"],
        "author": "ann",
    }
    listed = app.client.get("/articles", params={"author": "ann", "limit": 1}).json()
    assert [a["slug"] for a in listed["articles"]] == ["hello-world-2"]
    assert listed["count"] == 2
    assert app.client.get("/articles", params={"tag": "other"}).json() == {
        "articles": [],
        "count": 0,
    }
    cases = [
        ("/articles?limit=0", {}, "query.limit: Input should be greater than or equal to 1"),
        ("/articles/Hello", {}, "path.slug: String should match pattern '^[a-z0-9-]+$'"),
        ("/articles/hello-world", {"lang": "xx"}, "cookie.lang: Input should be 'en' or 'fr'"),
    ]
    for path, cookies, message in cases:
        app.client.cookies.clear()
        app.client.cookies.update(cookies)
        response = app.client.get(path)
        assert (response.status_code, response.json()) == (422, {"errors": {"body": [message]}})
    app.client.cookies.clear()
    missing = app.client.get("/articles/nope")
    assert (missing.status_code, missing.json()) == (
        404,
        {"errors": {"body": ["Article nope not found"]}},
    )


def test_only_the_author_deletes(app: Conduit) -> None:
    ann, bob = app.sign_up(ANN), app.sign_up(BOB)
    slug = app.publish(ann)
    refused = app.client.delete(f"/articles/{slug}", headers=bob)
    assert refused.status_code == 403
    assert refused.json() == {"errors": {"body": ["Only its author may delete an article"]}}
    deleted = app.client.delete(f"/articles/{slug}", headers=ann)
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert app.client.get(f"/articles/{slug}").status_code == 404


def test_the_feed_is_server_sent_events_after_last_event_id(app: Conduit) -> None:
    ann = app.sign_up(ANN)
    app.publish(ann, "One")
    app.publish(ann, "Two")
    feed = app.client.get("/feed", headers={"last-event-id": "1"})
    assert feed.status_code == 200
    assert feed.headers["content-type"] == "text/event-stream; charset=utf-8"
    created = app.store.articles["two"].created
    assert feed.text == (
        "event: article\ndata: "
        '{"slug": "two", "title": "Two", "body": "First post.", "tags": ["intro"], '
        f'"author": "ann", "created": {created!r}}}\nid: 2\n\n'
    )


def test_live_comments_over_a_websocket(app: Conduit) -> None:
    ann = app.sign_up(ANN)
    token = ann["authorization"].removeprefix("Bearer ")
    slug = app.publish(ann)
    with app.client.websocket_connect(f"/articles/{slug}/live?token={token}") as ws:
        ws.send_text("Nice post")
        assert ws.receive_json() == {"id": 1, "body": "Nice post", "author": "ann"}
    comments = app.client.get(f"/articles/{slug}/comments")
    assert comments.json() == [{"id": 1, "body": "Nice post", "author": "ann"}]
    for path, status in [(f"/articles/{slug}/live?token=forged", 403), ("/articles/no/live", 422)]:
        with pytest.raises(WebSocketDenialResponse) as denied:
            app.client.websocket_connect(path)
        assert denied.value.status_code == status


def test_cors_and_the_request_id_middleware(app: Conduit) -> None:
    preflight = app.client.options(
        "/articles",
        headers={
            "origin": "https://conduit.example.com",
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization",
        },
    )
    assert preflight.status_code == 200
    assert preflight.headers["access-control-allow-origin"] == "https://conduit.example.com"
    response = app.client.get(
        "/articles", headers={"origin": "https://evil.example", "x-request-id": "abc"}
    )
    assert "access-control-allow-origin" not in response.headers
    assert response.headers["x-request-id"] == "abc"


def test_the_store_is_closed_when_the_app_stops(app: Conduit) -> None:
    app.client.get("/articles")
    assert not app.store.closed
    app.client.close()
    assert app.store.closed


@pytest.mark.parametrize("version", ["3.1.0", "3.0.3"])
def test_the_document_passes_the_validator(version: str) -> None:
    document = conduit.app.openapi()
    validate(document if version == "3.1.0" else openapi_30(document))
    login = document["paths"]["/users/login"]["post"]
    assert list(login["requestBody"]["content"]) == ["application/x-www-form-urlencoded"]
    assert document["components"]["securitySchemes"] == {
        "OAuth2PasswordBearer": {
            "type": "oauth2",
            "flows": {"password": {"tokenUrl": "/users/login", "scopes": {}}},
        }
    }
    assert "password_hash" not in str(document["paths"]["/user"])
