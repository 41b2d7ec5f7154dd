"""Starlette's and FastAPI's thread helpers: on the app's threads inside a running app, on
AnyIO's worker threads anywhere else (trio included)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from types import TracebackType

import anyio
import pytest

from hasten import App
from hasten.concurrency import (
    contextmanager_in_threadpool,
    iterate_in_threadpool,
    run_in_threadpool,
)
from tests.conftest import ClientFactory


def _thread() -> str:
    return threading.current_thread().name.split("_")[0]


def test_iterate_in_threadpool_steps_a_sync_iterable_on_the_apps_threads(
    serve: ClientFactory,
) -> None:
    app = App()

    def numbers() -> Iterator[str]:
        for number in range(3):
            yield f"{number} {_thread()}"

    @app.get("/numbers")
    async def listed() -> list[str]:
        return [item async for item in iterate_in_threadpool(numbers())]

    assert serve(app).get("/numbers").json() == [f"{n} hasten-thread" for n in range(3)]


class Recording(AbstractContextManager[str]):
    def __init__(self, suppress: bool = False) -> None:
        self.suppress = suppress
        self.threads: list[str] = []
        self.exited: list[type[BaseException] | None] = []

    def __enter__(self) -> str:
        self.threads.append(threading.current_thread().name)
        return "value"

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        self.threads.append(threading.current_thread().name)
        self.exited.append(kind)
        return self.suppress


@pytest.mark.parametrize("backend", ["asyncio", "trio"])
def test_contextmanager_in_threadpool_enters_and_exits_on_threads(backend: str) -> None:
    async def use(manager: Recording, error: BaseException | None) -> str:
        async with contextmanager_in_threadpool(manager) as value:
            if error is not None:
                raise error
            return value

    plain = Recording()
    assert anyio.run(use, plain, None, backend=backend) == "value"
    assert plain.exited == [None]
    assert threading.current_thread().name not in plain.threads
    failing = Recording()
    with pytest.raises(ValueError, match="body"):
        anyio.run(use, failing, ValueError("body"), backend=backend)
    assert failing.exited == [ValueError]
    swallowing = Recording(suppress=True)
    assert anyio.run(use, swallowing, ValueError("body"), backend=backend) is None
    assert anyio.run(run_in_threadpool, _thread, backend=backend) != _thread()


def test_contextmanager_in_threadpool_exits_when_cancelled() -> None:
    manager = Recording()
    entered = asyncio.Event()

    async def use() -> None:
        async with contextmanager_in_threadpool(manager):
            entered.set()
            await asyncio.sleep(10)

    async def cancel() -> None:
        task = asyncio.create_task(use())
        await entered.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(cancel())
    assert manager.exited == [asyncio.CancelledError]


def test_a_generator_context_manager_is_entered_once() -> None:
    events: list[str] = []

    @contextmanager
    def managed() -> Iterator[int]:
        events.append("enter")
        yield 1
        events.append("exit")

    async def use() -> int:
        async with contextmanager_in_threadpool(managed()) as value:
            return value

    assert asyncio.run(use()) == 1
    assert events == ["enter", "exit"]
