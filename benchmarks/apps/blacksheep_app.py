"""BlackSheep's side of the benchmark scenarios (see ``hasten_app`` for the list).

Written as BlackSheep's docs show: an ``Application`` whose router maps paths to handlers,
route and query parameters bound by name and converted by annotation, ``FromJSON[...]`` with
a pydantic model for the body (the binder's docs recommend pydantic for real validation; a
dataclass is converted field by field without it), ``json``/``created`` responses.

BlackSheep does not offload sync handlers: a ``def`` handler runs on the event loop. ``/sync``
is such a handler, as a BlackSheep user would write it. ``/blocking`` sleeps, which would stall
the loop there, so it is written the way BlackSheep needs blocking work written: an
``async def`` that awaits ``asyncio.to_thread``.

``app_mw`` appends three middleware functions, ``async (request, handler) -> Response``, to
``app.middlewares``, each adding one response header.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from blacksheep import Application, FromJSON, Request, Response, created, json
from blacksheep.server.routing import Router
from pydantic import BaseModel

ROUTE_COUNT = 1000
SLEEP_SECONDS = 0.05

Handler = Callable[[Request], Awaitable[Response]]


class Order(BaseModel):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


async def hello() -> Response:
    return json({"message": "hello"})


async def read_item(id: int) -> Response:
    return json({"id": id})


def numbered(n: int) -> Callable[[int], Awaitable[Response]]:
    async def read_numbered(id: int) -> Response:
        return json({"route": n, "id": id})

    return read_numbered


async def read_query(
    page: int = 1, size: int = 10, ratio: float = 1.0, active: bool = False, q: str = ""
) -> Response:
    return json({"page": page, "size": size, "ratio": ratio, "active": active, "q": q})


async def create_order(order: FromJSON[Order]) -> Response:
    return created(order.value)


def read_sync() -> Response:
    return json({"message": "hello"})


async def read_blocking() -> Response:
    await asyncio.to_thread(time.sleep, SLEEP_SECONDS)
    return json({"slept": SLEEP_SECONDS})


def create_app() -> Application:
    # Each app gets its own Router: by default they would all share BlackSheep's global one.
    app = Application(router=Router())
    app.router.add_get("/hello", hello)
    app.router.add_get("/items/{id}", read_item)
    app.router.add_get("/query", read_query)
    app.router.add_post("/orders", create_order)
    app.router.add_get("/sync", read_sync)
    app.router.add_get("/blocking", read_blocking)
    for n in range(ROUTE_COUNT):  # last, as in every app
        app.router.add_get(f"/r{n}/{{id}}", numbered(n))
    return app


async def add_header_1(request: Request, handler: Handler) -> Response:
    response = await handler(request)
    response.add_header(b"x-mw-1", b"1")
    return response


async def add_header_2(request: Request, handler: Handler) -> Response:
    response = await handler(request)
    response.add_header(b"x-mw-2", b"2")
    return response


async def add_header_3(request: Request, handler: Handler) -> Response:
    response = await handler(request)
    response.add_header(b"x-mw-3", b"3")
    return response


app = create_app()
app_mw = create_app()
app_mw.middlewares.append(add_header_1)
app_mw.middlewares.append(add_header_2)
app_mw.middlewares.append(add_header_3)
