"""Litestar's side of the FastAPI-shaped app (see ``shaped_hasten`` for the paths), written
as Litestar's docs show: the pydantic model as ``data`` and as the return type (its pydantic
plugin validates and serializes), the user as a ``Provide`` dependency that reads the bearer
token, ``sync_to_thread=True`` for the ``def`` handler, and two ``ASGIMiddleware`` that each
add a header (Litestar's middleware base since 2.15)."""

from __future__ import annotations

import pydantic
from litestar import Litestar, Request, get, post
from litestar.datastructures import MutableScopeHeaders
from litestar.di import Provide
from litestar.enums import ScopeType
from litestar.exceptions import NotAuthorizedException
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send


class Item(pydantic.BaseModel):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


USERS = {"abc": {"username": "ada", "email": "ada@example.com"}}


async def current_user(request: Request) -> dict[str, str]:
    scheme, _, token = (request.headers.get("authorization") or "").partition(" ")
    user = USERS.get(token.strip()) if scheme.lower() == "bearer" else None
    if user is None:
        raise NotAuthorizedException("Invalid token", headers={"WWW-Authenticate": "Bearer"})
    return user


@post("/items", status_code=201)
async def create_item(data: Item) -> Item:
    return data


@get("/me", dependencies={"user": Provide(current_user)})
async def me(user: dict[str, str]) -> dict[str, str]:
    return user


@get("/sync", sync_to_thread=True)
def sync_hello() -> dict[str, str]:
    return {"message": "hello"}


class AddHeaderMiddleware(ASGIMiddleware):
    """Adds one header to every HTTP response."""

    scopes = (ScopeType.HTTP,)

    def __init__(self, name: str, value: str) -> None:
        self.name = name
        self.value = value

    async def handle(self, scope: Scope, receive: Receive, send: Send, next_app: ASGIApp) -> None:
        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableScopeHeaders.from_message(message).add(self.name, self.value)
            await send(message)

        await next_app(scope, receive, send_with_header)


app = Litestar(
    route_handlers=[create_item, me, sync_hello],
    middleware=[AddHeaderMiddleware("x-mw-1", "1"), AddHeaderMiddleware("x-mw-2", "2")],
)
