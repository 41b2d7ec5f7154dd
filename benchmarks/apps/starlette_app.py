"""Starlette's side of the benchmark scenarios (see ``hasten_app`` for the list).

Written as Starlette's docs show: a list of ``Route``s, endpoints taking a ``Request`` and
returning a ``JSONResponse``, ``{id:int}`` path convertors, sync endpoints (which Starlette runs
in its thread pool). Starlette has no typed query parameters or body models of its own; the
query and the order are validated with pydantic (the usual pairing, and what FastAPI builds
on), and a pydantic ``ValidationError`` becomes a 422 through an exception handler.

``app_mw`` adds three pure ASGI middleware classes, the approach Starlette's middleware docs
give for modifying response headers without ``BaseHTTPMiddleware``'s limitations.
"""

from __future__ import annotations

import time

from pydantic import BaseModel, ValidationError
from starlette.applications import Starlette
from starlette.datastructures import MutableHeaders
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

ROUTE_COUNT = 1000
SLEEP_SECONDS = 0.05


class QueryEcho(BaseModel):
    page: int = 1
    size: int = 10
    ratio: float = 1.0
    active: bool = False
    q: str = ""


class Order(BaseModel):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


async def hello(request: Request) -> JSONResponse:
    return JSONResponse({"message": "hello"})


async def item(request: Request) -> JSONResponse:
    return JSONResponse({"id": request.path_params["id"]})


def numbered(n: int) -> Route:
    async def endpoint(request: Request) -> JSONResponse:
        return JSONResponse({"route": n, "id": request.path_params["id"]})

    return Route(f"/r{n}/{{id:int}}", endpoint)


async def query(request: Request) -> JSONResponse:
    params = QueryEcho.model_validate(dict(request.query_params))
    return JSONResponse(params.model_dump())


async def create_order(request: Request) -> JSONResponse:
    order = Order.model_validate_json(await request.body())
    return JSONResponse(order.model_dump(), status_code=201)


def sync(request: Request) -> JSONResponse:
    return JSONResponse({"message": "hello"})


def blocking(request: Request) -> JSONResponse:
    time.sleep(SLEEP_SECONDS)
    return JSONResponse({"slept": SLEEP_SECONDS})


async def validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ValidationError)
    errors = exc.errors(include_url=False, include_context=False, include_input=False)
    return JSONResponse({"detail": errors}, status_code=422)


routes = [
    Route("/hello", hello),
    Route("/items/{id:int}", item),
    Route("/query", query),
    Route("/orders", create_order, methods=["POST"]),
    Route("/sync", sync),
    Route("/blocking", blocking),
    *(numbered(n) for n in range(ROUTE_COUNT)),  # last, as in every app
]
exception_handlers = {ValidationError: validation_error}


class AddHeaderMiddleware:
    """Pure ASGI middleware: adds one header to every HTTP response."""

    def __init__(self, app: ASGIApp, name: str, value: str) -> None:
        self.app = app
        self.name = name
        self.value = value

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_header(message: Message) -> None:
            if message["type"] == "http.response.start":
                MutableHeaders(scope=message).append(self.name, self.value)
            await send(message)

        await self.app(scope, receive, send_with_header)


app = Starlette(routes=routes, exception_handlers=exception_handlers)
app_mw = Starlette(
    routes=routes,
    exception_handlers=exception_handlers,
    middleware=[
        Middleware(AddHeaderMiddleware, name="x-mw-1", value="1"),
        Middleware(AddHeaderMiddleware, name="x-mw-2", value="2"),
        Middleware(AddHeaderMiddleware, name="x-mw-3", value="3"),
    ],
)
