"""hasten's side of the dependency and form scenarios (``benchmarks/dependencies.py``).

Every ``di_*`` app serves the same paths with the same responses:

- ``GET /deps`` with ``x-token: T``: three nested dependencies (the token from the header, a
  ``yield`` session that takes it, the user that takes the session), ``{"user":T,"session":"open"}``
- ``GET /inline`` with ``x-token: T``: the same response, computed in the handler
- ``POST /form``: five urlencoded fields ``a``..``e`` (str, int, float, bool, str), echoed
- ``POST /upload``: a multipart file ``file``, ``{"size": N}``

``app_inline`` serves ``/deps`` with the values computed in the handler, for the cost of the
dependencies themselves; ``app_called`` serves it by calling the same three functions in the
handler (the session opened and closed around it), for the cost of hasten's solver alone;
``app_called_bare`` the same with ``try``/``except`` where ``app_called`` has
``contextlib.suppress`` (which ruff's SIM105 asks for, and which costs a context manager's
two calls).
"""

import contextlib
from collections.abc import AsyncIterator
from typing import Annotated

from hasten import App, Depends, Form, Header, UploadFile

app = App(max_body_size=4 * 1024 * 1024)


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


app_inline = App()


@app_inline.get("/deps")
async def deps_inline(x_token: Annotated[str, Header()]) -> dict[str, str]:
    return {"user": x_token, "session": "open"}


app_called = App()


@app_called.get("/deps")
async def deps_called(x_token: Annotated[str, Header()]) -> dict[str, str]:
    opened = session(await token(x_token))
    user = await current_user(await anext(opened))
    with contextlib.suppress(StopAsyncIteration):  # the session's code after its yield
        await anext(opened)
    return user


app_called_bare = App()


@app_called_bare.get("/deps")
async def deps_called_bare(x_token: Annotated[str, Header()]) -> dict[str, str]:
    opened = session(await token(x_token))
    user = await current_user(await anext(opened))
    try:  # noqa: SIM105 - the cheapest way to write it
        await anext(opened)
    except StopAsyncIteration:
        pass
    return user
