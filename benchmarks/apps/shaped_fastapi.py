"""FastAPI's side of the FastAPI-shaped app (see ``shaped_hasten`` for the paths): the same
code with FastAPI's imports; its ``@app.middleware("http")`` functions are Starlette's
``BaseHTTPMiddleware`` underneath."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import pydantic
from fastapi import Depends, FastAPI, HTTPException, Request, Response
from fastapi.security import OAuth2PasswordBearer


class Item(pydantic.BaseModel):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


USERS = {"abc": {"username": "ada", "email": "ada@example.com"}}
oauth2_scheme = OAuth2PasswordBearer(tokenUrl="token")
CallNext = Callable[[Request], Awaitable[Response]]


async def current_user(token: Annotated[str, Depends(oauth2_scheme)]) -> dict[str, str]:
    user = USERS.get(token)
    if user is None:
        raise HTTPException(401, "Invalid token", headers={"WWW-Authenticate": "Bearer"})
    return user


app = FastAPI()


@app.post("/items", response_model=Item, status_code=201)
async def create_item(item: Item) -> Any:
    return item


@app.get("/me")
async def me(user: Annotated[dict[str, str], Depends(current_user)]) -> Any:
    return user


@app.get("/sync")
def sync_hello() -> dict[str, str]:
    return {"message": "hello"}


# FastAPI runs the last one added first (hasten the first): the headers are the same.
@app.middleware("http")
async def add_header_1(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    response.headers["x-mw-1"] = "1"
    return response


@app.middleware("http")
async def add_header_2(request: Request, call_next: CallNext) -> Response:
    response = await call_next(request)
    response.headers["x-mw-2"] = "2"
    return response
