"""The solver written for a tree of dependencies (hasten._values.solver): what it writes, and that a
failure in a dependency points at the written line."""

# No `from __future__ import annotations`: the dependencies here are local functions.
import asyncio
import inspect
import traceback
from typing import Annotated

import pytest

import hasten._values.solver
from hasten import App, Depends, Header
from hasten.testing import TestClient


def _source(app: App, path: str) -> str:
    asyncio.run(app.startup())
    try:
        assert app.runtime is not None
        target = app.runtime.match("GET", path)[0]
        code = target.invoke.__code__
        return inspect.getsource(code)
    finally:
        asyncio.run(app.shutdown())


def test_the_modules_example_is_what_is_written() -> None:
    app = App(block_threshold=None)

    async def get_token(x_token: Annotated[str, Header()]) -> str:
        return x_token

    async def get_user(token: str = Depends(get_token)) -> str:
        return token

    @app.get("/me")
    async def me(user: str = Depends(get_user)) -> dict[str, str]:
        return {"user": user}

    doc = hasten._values.solver.__doc__
    assert doc is not None
    example = doc.split("::\n\n", 1)[1]
    expected = "\n".join(line.removeprefix("    ") for line in example.splitlines()) + "\n"
    assert _source(app, "/me") == expected.lstrip("\n")


def test_what_cannot_fail_is_not_checked_and_a_value_asked_again_is_cached() -> None:
    app = App(block_threshold=None)

    async def session() -> str:
        return "s"

    def settings(session: str = Depends(session)) -> str:
        return session

    @app.get("/twice")
    async def twice(a: str = Depends(session), b: str = Depends(settings)) -> list[str]:
        return [a, b]

    assert _source(app, "/twice") == (
        "async def solve_and_call(request):\n"
        "    cache = {}\n"
        "    try:\n"
        "        v1 = await call1()\n"
        "        cache[key1] = v1\n"
        "        if key3 in cache:\n"
        "            v3 = cache[key3]\n"
        "        else:\n"
        "            v3 = await call3()\n"
        "            cache[key3_1] = v3\n"
        "        v2 = await submit(threads, call2, session=v3)\n"
        "        result = await run(a=v1, b=v2)\n"
        "    except BaseException as exc:\n"
        "        final = await unwound(request, exc)\n"
        "        if final is exc:\n"
        "            raise\n"
        "        raise final from exc\n"
        "    return result\n"
    )
    assert TestClient(app).get("/twice").json() == ["s", "s"]


def test_a_dependency_that_fails_shows_the_solvers_line_in_its_traceback() -> None:
    app = App(block_threshold=None)

    async def broken() -> str:
        raise ValueError("broken")

    @app.get("/broken")
    async def handler(value: str = Depends(broken)) -> str:
        return value

    with pytest.raises(ValueError, match="broken") as raised:
        TestClient(app).get("/broken")
    lines = traceback.format_exception(raised.value)
    assert any("solver of GET /broken" in line and "v1 = await call1()" in line for line in lines)
