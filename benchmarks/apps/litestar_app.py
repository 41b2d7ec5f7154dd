"""Litestar's side of the benchmark scenarios (see ``hasten_app`` for the list).

Written as Litestar's docs show: decorated route handlers with typed ``{id:int}`` path and
query parameters, a ``msgspec.Struct`` for the body (``data``, no DTO; POST answers 201 by
default), and ``sync_to_thread=True`` on the plain ``def`` handlers so Litestar runs them in
its thread pool (Litestar asks for an explicit choice; the scenario is about thread offload).
The handlers are grouped in a ``Router``, which Litestar copies into each app that registers it.

``app_mw`` adds three ``ASGIMiddleware`` subclasses (Litestar's recommended middleware base
since 2.15), each wrapping ``send`` to add one response header.
"""

from __future__ import annotations

import time
from typing import Any

import msgspec
from litestar import Litestar, Router, get, post
from litestar.datastructures import MutableScopeHeaders
from litestar.enums import ScopeType
from litestar.handlers import HTTPRouteHandler
from litestar.middleware import ASGIMiddleware
from litestar.types import ASGIApp, Message, Receive, Scope, Send

ROUTE_COUNT = 1000
SLEEP_SECONDS = 0.05


class Order(msgspec.Struct):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


@get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@get("/items/{id:int}")
async def read_item(id: int) -> dict[str, int]:
    return {"id": id}


def numbered(n: int) -> HTTPRouteHandler:
    @get(f"/r{n}/{{id:int}}")
    async def read_numbered(id: int) -> dict[str, int]:
        return {"route": n, "id": id}

    return read_numbered


@get("/query")
async def read_query(
    page: int = 1, size: int = 10, ratio: float = 1.0, active: bool = False, q: str = ""
) -> dict[str, Any]:
    return {"page": page, "size": size, "ratio": ratio, "active": active, "q": q}


@post("/orders")
async def create_order(data: Order) -> Order:
    return data


@get("/sync", sync_to_thread=True)
def read_sync() -> dict[str, str]:
    return {"message": "hello"}


@get("/blocking", sync_to_thread=True)
def read_blocking() -> dict[str, float]:
    time.sleep(SLEEP_SECONDS)
    return {"slept": SLEEP_SECONDS}


api = Router(
    path="/",
    route_handlers=[
        hello,
        read_item,
        read_query,
        create_order,
        read_sync,
        read_blocking,
        *(numbered(n) for n in range(ROUTE_COUNT)),  # last, as in every app
    ],
)


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


app = Litestar(route_handlers=[api])
app_mw = Litestar(
    route_handlers=[api],
    middleware=[
        AddHeaderMiddleware("x-mw-1", "1"),
        AddHeaderMiddleware("x-mw-2", "2"),
        AddHeaderMiddleware("x-mw-3", "3"),
    ],
)
