"""FastAPI's side of the dependency and form scenarios (see ``di_hasten`` for the list),
written as FastAPI's tutorial shows them."""

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, FastAPI, Form, Header, UploadFile

app = FastAPI()


async def token(x_token: Annotated[str, Header()]) -> str:
    return x_token


async def session(token: Annotated[str, Depends(token)]) -> AsyncIterator[dict[str, str]]:
    yield {"user": token, "session": "open"}


async def current_user(
    session: Annotated[dict[str, str], Depends(session)],
) -> dict[str, str]:
    return session


@app.get("/deps")
async def deps(user: Annotated[dict[str, str], Depends(current_user)]) -> dict[str, str]:
    return user


@app.get("/inline")
async def inline(x_token: Annotated[str, Header()]) -> dict[str, str]:
    return {"user": x_token, "session": "open"}


@app.post("/form")
async def form(
    a: Annotated[str, Form()],
    b: Annotated[int, Form()],
    c: Annotated[float, Form()],
    d: Annotated[bool, Form()],
    e: Annotated[str, Form()],
) -> dict[str, str | int | float | bool]:
    return {"a": a, "b": b, "c": c, "d": d, "e": e}


@app.post("/upload")
async def upload(file: UploadFile) -> dict[str, int]:
    size = len(await file.read())
    return {"size": size}
