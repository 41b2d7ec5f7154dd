"""``starlette.concurrency``, served by hasten: its public names, as hasten's objects, and
``run_until_first_complete``, which Starlette keeps deprecated."""

from __future__ import annotations

import warnings
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from hasten.concurrency import iterate_in_threadpool, run_in_threadpool
from hasten.errors import StarletteDeprecationWarning

__all__ = [
    "StarletteDeprecationWarning",
    "iterate_in_threadpool",
    "run_in_threadpool",
    "run_until_first_complete",
]


async def run_until_first_complete(
    *calls: tuple[Callable[..., Awaitable[Any]], dict[str, Any]],
) -> None:
    """Run each ``(function, keywords)`` at once; when one returns, cancel the others."""
    warnings.warn(
        "run_until_first_complete is deprecated and will be removed in a future version.",
        StarletteDeprecationWarning,
        stacklevel=2,
    )
    async with anyio.create_task_group() as group:

        async def until_done(function: Callable[..., Awaitable[Any]], keywords: Any) -> None:
            await function(**keywords)
            group.cancel_scope.cancel()

        for function, keywords in calls:
            group.start_soon(until_done, function, keywords)
