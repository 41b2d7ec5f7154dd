"""Starlette's ``run_in_threadpool``: blocking work off the event loop, on the app's threads."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import weakref
from collections.abc import Callable
from concurrent.futures import Executor
from typing import ParamSpec, TypeVar

__all__ = ["forget_threads", "run_in_threadpool", "use_threads"]

P = ParamSpec("P")
T = TypeVar("T")

# The thread pool of the app started last on each event loop, set at startup and shutdown.
_threads: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Executor] = (
    weakref.WeakKeyDictionary()
)


def use_threads(pool: Executor) -> None:
    """Make ``pool`` the one ``run_in_threadpool`` uses on the running loop."""
    _threads[asyncio.get_running_loop()] = pool


def forget_threads(pool: Executor) -> None:
    """Stop using ``pool`` (its app is stopping): the loop's default executor takes over."""
    for loop, used in list(_threads.items()):
        if used is pool:
            del _threads[loop]


async def run_in_threadpool(func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``func(*args, **kwargs)`` on the thread pool of the app running on this event loop (its
    ``max_threads``), else on the loop's default executor; context variables go along."""
    loop = asyncio.get_running_loop()
    call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
    return await loop.run_in_executor(_threads.get(loop), call)
