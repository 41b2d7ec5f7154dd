"""Starlette's authentication and sessions on hasten, through both adapters: a backend's user
and scopes in ``request.user``/``request.auth``, ``@requires`` (403, or a redirect), a bad
credential's 400; a signed session cookie, changed only when the session is, expired when it
is emptied, not taken when tampered with."""

from __future__ import annotations

from typing import Any

import pytest

from hasten import App, Request, WebSocket
from hasten.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    BaseUser,
    SimpleUser,
    UnauthenticatedUser,
    requires,
)
from hasten.middleware import Middleware
from hasten.middleware.authentication import AuthenticationMiddleware
from hasten.middleware.sessions import SessionMiddleware
from hasten.requests import HTTPConnection
from hasten.responses import JSONResponse, Response
from tests.conftest import ClientFactory


class HeaderBackend(AuthenticationBackend):
    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        name = conn.headers.get("x-user")
        if name is None:
            return None
        if name == "":
            raise AuthenticationError("Empty user name")
        return AuthCredentials(["authenticated"]), SimpleUser(name)


def app() -> App:
    made = App(
        middleware=[
            Middleware(SessionMiddleware, secret_key="s3cret"),
            Middleware(AuthenticationMiddleware, backend=HeaderBackend()),
        ]
    )

    @requires("authenticated")
    async def me(request: Request) -> Response:
        return JSONResponse({"user": request.user.display_name, "scopes": request.auth.scopes})

    @requires("authenticated", redirect="login")
    def page(request: Request) -> Response:
        return JSONResponse({"page": request.user.display_name})

    async def login(request: Request) -> Response:
        return JSONResponse({"anonymous": not request.user.is_authenticated})

    async def count(request: Request) -> Response:
        request.session["count"] = request.session.get("count", 0) + 1
        return JSONResponse(request.session)

    async def peek(request: Request) -> Response:
        return JSONResponse(dict(request.session))

    async def forget(request: Request) -> Response:
        request.session.clear()
        return JSONResponse({})

    for path, endpoint in [("/me", me), ("/page", page), ("/login", login), ("/count", count)]:
        made.add_route(path, endpoint)
    made.add_route("/peek", peek)
    made.add_route("/forget", forget)
    return made


def test_the_backends_user_reaches_the_endpoint(serve: ClientFactory) -> None:
    client = serve(app(), follow_redirects=False)
    answers: list[Any] = [
        client.get("/me", headers={"x-user": "ada"}),
        client.get("/me"),
        client.get("/me", headers={"x-user": ""}),
        client.get("/page"),
        client.get("/login"),
    ]
    assert [(r.status_code, r.content) for r in answers] == [
        (200, b'{"user":"ada","scopes":["authenticated"]}'),
        (403, b'{"detail":"Forbidden"}'),
        (400, b"Empty user name"),
        (303, b""),
        (200, b'{"anonymous":true}'),
    ]
    assert (
        answers[3].headers["location"]
        == "http://testserver/login?next=http%3A%2F%2Ftestserver%2Fpage"
    )


def test_users_name_their_identity_as_starlettes() -> None:
    assert (SimpleUser("ada").identity, UnauthenticatedUser().identity) == ("ada", "")


def test_a_websocket_is_opened_with_httpx_auth(serve: ClientFactory) -> None:
    made = App()

    @made.websocket("/ws")
    async def ws(websocket: WebSocket) -> None:
        await websocket.accept()
        await websocket.send_text(websocket.headers.get("authorization", "none"))
        await websocket.close()

    client = serve(made)
    with client.websocket_connect("/ws", auth=("ada", "pw")) as session:
        assert session.receive_text() == "Basic YWRhOnB3"


def test_the_session_lives_in_a_signed_cookie(serve: ClientFactory) -> None:
    client = serve(app())
    assert client.get("/count").json() == {"count": 1}
    first = client.cookies["session"]
    response = client.get("/count")
    assert (response.json(), response.headers["vary"]) == ({"count": 2}, "Cookie")
    cookie = response.headers["set-cookie"]
    assert cookie.startswith("session=")
    assert cookie.endswith("; path=/; Max-Age=1209600; httponly; samesite=lax")
    unchanged = client.get("/peek")
    assert (unchanged.json(), "set-cookie" in unchanged.headers) == ({"count": 2}, False)
    cleared = client.get("/forget")
    assert cleared.headers["set-cookie"] == (
        "session=null; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT; httponly; samesite=lax"
    )
    client.cookies.set("session", first[:-2] + "xx")  # a signature that does not hold
    assert client.get("/peek").json() == {}


def test_reading_a_session_no_middleware_keeps_says_so(serve: ClientFactory) -> None:
    bare = App()

    @bare.get("/")
    async def read(request: Request) -> Any:
        return request.session

    with pytest.raises(AssertionError, match="SessionMiddleware must be installed"):
        serve(bare).get("/")
