"""Which event loop runs the app, decided once when it starts: asyncio's (uvloop's too), where
hasten uses the loop itself, or another that AnyIO runs (trio), where hasten uses AnyIO's
portable equivalents and turns off what needs asyncio's loop (see docs/from-fastapi.md).

sniffio says which library runs (trio needs it: without it, asyncio runs).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypeAlias, TypeVar

import anyio

__all__ = ["Sleep", "clock", "loop_clock", "on_asyncio", "report_off", "until"]

T = TypeVar("T")
# The running loop's sleep: ``asyncio.sleep``, or ``anyio.sleep`` on another loop (trio).
Sleep: TypeAlias = Callable[[float], Awaitable[Any]]

logger = logging.getLogger("hasten")


def on_asyncio() -> bool:
    """Whether asyncio's event loop runs the calling code."""
    try:
        import sniffio
    except ImportError:  # pragma: no cover  # trio installs sniffio: without it, asyncio runs
        return True
    try:
        return sniffio.current_async_library() == "asyncio"
    except sniffio.AsyncLibraryNotFoundError:  # called off any loop: asyncio's, if any
        return True


def clock() -> float:
    """The running loop's clock (monotonic seconds)."""
    return loop_clock()()


def loop_clock() -> Callable[[], float]:
    """What reads the running loop's clock: asyncio's loop's ``time``, or on another loop
    (trio) ``time.monotonic``."""
    try:
        return asyncio.get_running_loop().time
    except RuntimeError:  # another event loop than asyncio's (trio)
        return time.monotonic


async def until(work: Awaitable[T], stop: Callable[[], Awaitable[Any]]) -> tuple[bool, T | None]:
    """``work`` run in this task until it ends or ``stop()`` returns (awaited in another task
    of an AnyIO task group), which cancels it: whether it ended, and its result. Its own
    exceptions are raised as they are, not in an ExceptionGroup."""
    failure: Exception | None = None
    result: T | None = None
    ended = False
    async with anyio.create_task_group() as group:
        group.start_soon(_cancel_after, stop, group.cancel_scope)
        try:
            result = await work
            ended = True
        except Exception as exc:
            failure = exc
        group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    return ended, result


async def _cancel_after(stop: Callable[[], Awaitable[Any]], scope: anyio.CancelScope) -> None:
    await stop()
    scope.cancel()


def report_off(features: Sequence[str]) -> None:
    """Say, once at startup, what an app on another event loop than asyncio's goes without
    (called where ``on_asyncio()`` said so: sniffio names that loop)."""
    if features:
        import sniffio

        logger.warning(
            "Running on %s, not asyncio: %s off (they need asyncio's event loop)",
            sniffio.current_async_library(),
            ", ".join(features),
        )
