"""hasten's side of the benchmark scenarios: ``benchmarks.apps.hasten_app:app`` and ``:app_mw``.

Every app in ``benchmarks/apps`` serves the same paths with the same responses:

- ``GET /hello``: ``{"message": "hello"}``
- ``GET /items/{id}``: ``{"id": id}``, ``id`` an int
- ``GET /r0/{id}`` ... ``GET /r999/{id}``: ``{"route": N, "id": id}``, 1,000 routes in order
- ``GET /query?page=&size=&ratio=&active=&q=``: the typed query parameters, echoed
- ``POST /orders``: a JSON order validated into a six-field model, echoed with 201
- ``GET /sync``: ``{"message": "hello"}`` from a plain ``def`` handler
- ``GET /blocking``: a ``def`` handler that sleeps 50 ms, ``{"slept": 0.05}``

Both apps include one ``Router`` of the routes; ``app_mw`` adds three middlewares, each
adding a response header (``x-mw-1``, ``x-mw-2``, ``x-mw-3``). Every module registers the
routes in this order, the 1,000 numbered ones last (so that the router of a framework that
tries routes in order scans them only in the 1,000-routes scenario).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

import msgspec

from hasten import App, Request, Response, Router
from hasten.types import CallNext

ROUTE_COUNT = 1000
SLEEP_SECONDS = 0.05


class Order(msgspec.Struct):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


api = Router()


@api.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@api.get("/items/{id}")
async def item(id: int) -> dict[str, int]:
    return {"id": id}


def numbered(n: int) -> Callable[[int], Awaitable[dict[str, int]]]:
    """The handler of ``/r{n}/{id}``."""

    async def route(id: int) -> dict[str, int]:
        return {"route": n, "id": id}

    return route


@api.get("/query")
async def query(
    page: int = 1, size: int = 10, ratio: float = 1.0, active: bool = False, q: str = ""
) -> dict[str, int | float | bool | str]:
    return {"page": page, "size": size, "ratio": ratio, "active": active, "q": q}


@api.post("/orders", status=201)
async def create_order(order: Order) -> Order:
    return order


@api.get("/sync")
def sync() -> dict[str, str]:
    return {"message": "hello"}


@api.get("/blocking")
def blocking() -> dict[str, float]:
    time.sleep(SLEEP_SECONDS)
    return {"slept": SLEEP_SECONDS}


# The 1,000 numbered routes come last: the other scenarios' routes are not behind them.
for _n in range(ROUTE_COUNT):
    api.add_api_route(f"/r{_n}/{{id}}", numbered(_n))


app = App()
app.include(api)

app_mw = App()
app_mw.include(api)


@app_mw.middleware
async def add_header_1(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    response.headers["x-mw-1"] = "1"
    return response


@app_mw.middleware
async def add_header_2(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    response.headers["x-mw-2"] = "2"
    return response


@app_mw.middleware
async def add_header_3(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    response.headers["x-mw-3"] = "3"
    return response
