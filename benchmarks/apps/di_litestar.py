"""Litestar's side of the dependency and form scenarios (see ``di_hasten`` for the list),
written as Litestar's docs show them: ``Provide`` dependencies, a msgspec Struct for the
form, ``UploadFile`` for the upload."""

from collections.abc import AsyncIterator
from typing import Annotated

import msgspec
from litestar import Litestar, get, post
from litestar.datastructures import UploadFile
from litestar.di import NamedDependency, Provide
from litestar.enums import RequestEncodingType
from litestar.params import Body, HeaderParameter


async def token(x_token: Annotated[str, HeaderParameter(name="x-token")]) -> str:
    return x_token


async def session(token: NamedDependency[str]) -> AsyncIterator[dict[str, str]]:
    yield {"user": token, "session": "open"}


async def current_user(session: NamedDependency[dict[str, str]]) -> dict[str, str]:
    return session


@get(
    "/deps",
    dependencies={
        "token": Provide(token),
        "session": Provide(session),
        "user": Provide(current_user),
    },
)
async def deps(user: NamedDependency[dict[str, str]]) -> dict[str, str]:
    return user


@get("/inline")
async def inline(x_token: Annotated[str, HeaderParameter(name="x-token")]) -> dict[str, str]:
    return {"user": x_token, "session": "open"}


class Fields(msgspec.Struct):
    a: str
    b: int
    c: float
    d: bool
    e: str


@post("/form", status_code=200)
async def form(
    data: Annotated[Fields, Body(media_type=RequestEncodingType.URL_ENCODED)],
) -> Fields:
    return data


@post("/upload", status_code=200)
async def upload(
    data: Annotated[dict[str, UploadFile], Body(media_type=RequestEncodingType.MULTI_PART)],
) -> dict[str, int]:
    size = len(await data["file"].read())
    return {"size": size}


app = Litestar(route_handlers=[deps, inline, form, upload], request_max_body_size=4 * 1024 * 1024)
