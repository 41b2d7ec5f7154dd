"""hasten's side of the FastAPI-shaped app (``benchmarks/fastapi_shaped.py``, issue 27).

Every ``shaped_*`` app serves the same paths with the same responses, behind two middlewares
that each add a response header (``x-mw-1``, ``x-mw-2``):

- ``POST /items``: a JSON item validated into a six-field pydantic model, sent back through
  ``response_model`` with 201
- ``GET /me`` with ``authorization: Bearer abc``: the user the bearer token names (an OAuth2
  bearer dependency and a user lookup), ``{"username":"ada","email":"ada@example.com"}``;
  401 for another token
- ``GET /sync``: ``{"message": "hello"}`` from a plain ``def`` handler

It is the app of FastAPI's tutorial, with hasten's imports: FastAPI's code, otherwise as is.
"""

from __future__ import annotations

from typing import Annotated, Any

import pydantic

from hasten import App, Depends, HTTPException, Request, Response
from hasten.security import OAuth2PasswordBearer
from hasten.types import CallNext


class Item(pydantic.BaseModel):
    id: int
    name: str
    price: float
    quantity: int
    tags: list[str]
    active: bool


USERS = {"abc": {"username": "ada", "email": "ada@example.com"}}
oauth2_scheme = OAuth2PasswordBearer(tokenUrl="token")


async def current_user(token: Annotated[str, Depends(oauth2_scheme)]) -> dict[str, str]:
    user = USERS.get(token)
    if user is None:
        raise HTTPException(401, "Invalid token", headers={"WWW-Authenticate": "Bearer"})
    return user


app = App()


@app.post("/items", response_model=Item, status_code=201)
async def create_item(item: Item) -> Any:
    return item


@app.get("/me")
async def me(user: Annotated[dict[str, str], Depends(current_user)]) -> Any:
    return user


@app.get("/sync")
def sync_hello() -> dict[str, str]:
    return {"message": "hello"}


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
