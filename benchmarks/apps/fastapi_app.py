"""FastAPI's side of the benchmark scenarios (see ``hasten_app`` for the list).

Written as FastAPI's tutorial shows: an ``APIRouter`` of decorated path operations with typed
path and query parameters, return type annotations, a pydantic ``BaseModel`` for the body,
``async def`` where nothing blocks and plain ``def`` (run in FastAPI's thread pool) otherwise.

``app_mw`` adds three ``@app.middleware("http")`` functions, the way FastAPI's middleware docs
add a response header (each is a Starlette ``BaseHTTPMiddleware`` underneath).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, FastAPI, Request, Response
from pydantic import BaseModel

ROUTE_COUNT = 1000
SLEEP_SECONDS = 0.05

router = APIRouter()


class Order(BaseModel):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


class QueryEcho(BaseModel):
    page: int
    size: int
    ratio: float
    active: bool
    q: str


@router.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@router.get("/items/{id}")
async def read_item(id: int) -> dict[str, int]:
    return {"id": id}


def numbered(n: int) -> Callable[[int], Awaitable[dict[str, int]]]:
    async def read_numbered(id: int) -> dict[str, int]:
        return {"route": n, "id": id}

    return read_numbered


@router.get("/query")
async def read_query(
    page: int = 1, size: int = 10, ratio: float = 1.0, active: bool = False, q: str = ""
) -> QueryEcho:
    return QueryEcho(page=page, size=size, ratio=ratio, active=active, q=q)


@router.post("/orders", status_code=201)
async def create_order(order: Order) -> Order:
    return order


@router.get("/sync")
def read_sync() -> dict[str, str]:
    return {"message": "hello"}


@router.get("/blocking")
def read_blocking() -> dict[str, float]:
    time.sleep(SLEEP_SECONDS)
    return {"slept": SLEEP_SECONDS}


# The 1,000 numbered routes come last: the other scenarios' routes are not behind them.
for _n in range(ROUTE_COUNT):
    router.add_api_route(f"/r{_n}/{{id}}", numbered(_n), methods=["GET"], name=f"route_{_n}")


app = FastAPI()
app.include_router(router)

app_mw = FastAPI()
app_mw.include_router(router)

CallNext = Callable[[Request], Awaitable[Response]]


# FastAPI runs the last one added first; the order does not matter here.
@app_mw.middleware("http")
async def add_header_1(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    response.headers["x-mw-1"] = "1"
    return response


@app_mw.middleware("http")
async def add_header_2(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    response.headers["x-mw-2"] = "2"
    return response


@app_mw.middleware("http")
async def add_header_3(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    response.headers["x-mw-3"] = "3"
    return response
