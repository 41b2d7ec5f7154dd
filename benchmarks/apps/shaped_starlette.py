"""Starlette's side of the FastAPI-shaped app (see ``shaped_hasten`` for the paths), written
as Starlette's docs show: endpoints that read the request and return a ``JSONResponse``, the
pydantic model validated and dumped by hand, the bearer token read from the header, a plain
``def`` endpoint (Starlette runs it on anyio's thread pool), and two ``BaseHTTPMiddleware``
that each add a header (what FastAPI's ``@app.middleware("http")`` makes)."""

from __future__ import annotations

import pydantic
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.base import BaseHTTPMiddleware, RequestResponseEndpoint
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


class Item(pydantic.BaseModel):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


USERS = {"abc": {"username": "ada", "email": "ada@example.com"}}
UNAUTHORIZED = {"WWW-Authenticate": "Bearer"}


async def create_item(request: Request) -> Response:
    try:
        item = Item.model_validate_json(await request.body())
    except pydantic.ValidationError as exc:
        return JSONResponse({"detail": exc.errors(include_url=False)}, status_code=422)
    return JSONResponse(item.model_dump(mode="json"), status_code=201)


async def me(request: Request) -> Response:
    scheme, _, token = (request.headers.get("authorization") or "").partition(" ")
    user = USERS.get(token.strip()) if scheme.lower() == "bearer" else None
    if user is None:
        return JSONResponse({"detail": "Invalid token"}, 401, headers=UNAUTHORIZED)
    return JSONResponse(user)


def sync_hello(request: Request) -> Response:
    return JSONResponse({"message": "hello"})


class AddHeaderMiddleware(BaseHTTPMiddleware):
    """Adds one header to every response."""

    def __init__(self, app: object, name: str, value: str) -> None:
        super().__init__(app)  # type: ignore[arg-type]
        self.name = name
        self.value = value

    async def dispatch(self, request: Request, call_next: RequestResponseEndpoint) -> Response:
        response = await call_next(request)
        response.headers[self.name] = self.value
        return response


app = Starlette(
    routes=[
        Route("/items", create_item, methods=["POST"]),
        Route("/me", me),
        Route("/sync", sync_hello),
    ],
    middleware=[
        Middleware(AddHeaderMiddleware, name="x-mw-2", value="2"),
        Middleware(AddHeaderMiddleware, name="x-mw-1", value="1"),
    ],
)
