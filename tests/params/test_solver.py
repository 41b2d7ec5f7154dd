"""The solver written for a tree of dependencies (hasten._params.solver): what it writes, and that a
failure in a dependency points at the written line."""

# No `from __future__ import annotations`: the dependencies here are local functions.
import asyncio
import inspect
import traceback
from collections.abc import AsyncIterator, Iterator
from typing import Annotated

import pytest

import hasten._params.solver
from hasten import App, Depends, Header, Query
from hasten.testing import TestClient
from tests.conftest import ClientFactory


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

    doc = hasten._params.solver.__doc__
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
        "    except Replanned:\n"
        "        return await replan(request, locals())\n"
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


# An override installed by an earlier dependency applies to the later ones of the same
# request, as FastAPI looks each override up as it reaches it. Before: from the next
# request on (the first one got "original").
def test_an_override_installed_by_an_earlier_dependency_applies_at_once(
    serve: ClientFactory,
) -> None:
    app = App(block_threshold=None)
    events: list[str] = []

    def original() -> str:  # on a thread, where the retired solver's call raises
        return "original"

    def replacement(tag: Annotated[str, Query()] = "none") -> str:  # other parameters
        events.append(f"replacement {tag}")
        return f"replacement {tag}"

    def configure() -> Iterator[str]:  # on a thread; its code after yield runs once
        events.append("configure")
        app.dependency_overrides[original] = replacement
        yield "configured"
        events.append("configure closed")

    async def function_scoped() -> AsyncIterator[str]:
        yield "function"
        events.append("function scoped closed")

    async def later(value: Annotated[str, Depends(original)]) -> str:
        return f"later {value}"

    @app.get("/")
    async def endpoint(
        scoped: Annotated[str, Depends(function_scoped, scope="function")],
        configured: Annotated[str, Depends(configure)],
        value: Annotated[str, Depends(original)],
        again: Annotated[str, Depends(later)],
    ) -> list[str]:
        return [scoped, configured, value, again]

    client = serve(app)
    assert client.get("/?tag=a").json() == [
        "function",
        "configured",
        "replacement a",
        "later replacement a",  # the cached value
    ]
    assert events == ["configure", "replacement a", "function scoped closed", "configure closed"]


NOT_AN_INTEGER = {
    "type": "int_parsing",
    "loc": ["query", "count"],
    "msg": "Input should be a valid integer, unable to parse string as an integer",
    "input": "x",
}


def test_a_request_taken_over_keeps_its_errors(serve: ClientFactory) -> None:
    app = App(block_threshold=None)
    called: list[str] = []

    async def counted(count: int) -> int:
        return count

    async def original() -> str:
        return "original"

    async def replacement() -> str:
        called.append("replacement")
        return "replacement"

    async def configure() -> None:
        app.dependency_overrides[original] = replacement

    @app.get("/")
    async def endpoint(
        count: Annotated[int, Depends(counted)],
        _: Annotated[None, Depends(configure)],
        value: Annotated[str, Depends(original)],
    ) -> list[object]:
        return [count, value]  # pragma: no cover - the count always fails here

    # The count fails before the override changes: the request is still a 422 after it.
    response = serve(app).get("/?count=x")
    assert (response.status_code, response.json()) == (422, {"detail": [NOT_AN_INTEGER]})
    assert called == ["replacement"]
