"""Mistakes made registering a route: each message says what to do, and where the handler is."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from hasten import App, Query, Router, WebSocket

HERE = Path(__file__).resolve()


def test_a_mistyped_route_keyword_names_the_closest_one() -> None:
    app = App()

    def fibo(n: int) -> int:
        return n

    with pytest.raises(TypeError) as raised:
        app.get("/fibo/{n}", offlaod="process")(fibo)  # type: ignore[call-arg]  # the typo

    assert str(raised.value) == (
        "unexpected route keyword argument 'offlaod': did you mean 'offload'?"
    )


def test_a_route_keyword_like_no_other_lists_them() -> None:
    router = Router()

    async def handler() -> None: ...

    with pytest.raises(TypeError) as raised:
        router.add_api_route("/x", handler, colour="red")  # type: ignore[call-arg]  # not one

    message = str(raised.value)
    assert message.startswith("unexpected route keyword argument 'colour': it takes ")
    assert "max_concurrency, name, offload, " in message


def test_a_mistyped_app_keyword_names_the_closest_setting() -> None:
    with pytest.raises(TypeError) as raised:
        App(max_bodysize=10)  # type: ignore[call-arg]  # the typo

    assert str(raised.value) == (
        "unexpected App() keyword argument 'max_bodysize': did you mean 'max_body_size'?"
    )


def test_a_session_without_depends_suggests_depends() -> None:
    app = App()

    async def notes(db: AsyncSession) -> None: ...

    with pytest.raises(TypeError) as raised:
        app.add_api_route("/notes", notes)

    assert (
        "parameter 'db' of type AsyncSession cannot be read from the query. If it is a "
        "dependency (a session, a client...), declare it with Depends(): "
        "`db: Annotated[AsyncSession, Depends(get_db)]`, where get_db() returns or yields the "
        "AsyncSession."
    ) in str(raised.value)


@pytest.mark.parametrize(
    "annotation", [Annotated[dict[str, int], Query()], Annotated[list[dict[str, int]], Query()]]
)
def test_a_value_type_gets_no_depends_hint(annotation: object) -> None:
    app = App()

    async def handler(ids: int) -> None: ...

    handler.__annotations__["ids"] = annotation
    with pytest.raises(TypeError) as raised:
        app.add_api_route("/x", handler)

    assert "cannot be read from the " in str(raised.value)
    assert "Depends" not in str(raised.value)


def test_a_registration_error_names_the_handlers_file_and_line() -> None:
    app = App()

    async def first(db: AsyncSession) -> None: ...

    line = first.__code__.co_firstlineno
    with pytest.raises(TypeError) as raised:
        app.post("/notes")(first)

    assert raised.value.__notes__ == [
        f"registering POST /notes: {__name__}.{first.__qualname__} is defined at "
        f"{HERE.relative_to(Path.cwd()) if HERE.is_relative_to(Path.cwd()) else HERE}, "
        f"line {line}"
    ]


def test_a_websocket_registration_error_names_the_file_and_line_too() -> None:
    app = App()

    def blocking(websocket: WebSocket) -> None: ...

    with pytest.raises(TypeError, match="must be an async def") as raised:
        app.websocket("/ws")(blocking)

    (note,) = raised.value.__notes__
    assert note.startswith("registering WEBSOCKET /ws: ")
    assert note.endswith(f", line {blocking.__code__.co_firstlineno}")
