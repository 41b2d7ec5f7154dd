"""Starlette's and FastAPI's thread helpers: blocking work off the event loop.

Inside a running hasten app they use the app's thread pool (its ``max_threads``); anywhere
else (a script, a test, a trio event loop) AnyIO's worker threads, as Starlette's do.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import weakref
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from concurrent.futures import Executor
from contextlib import AbstractContextManager
from typing import ParamSpec, TypeVar

import anyio.to_thread
from anyio.lowlevel import RunVar

from hasten._running.threads import submit

__all__ = [
    "DependencyConcurrency",
    "contextmanager_in_threadpool",
    "current_threads",
    "forget_threads",
    "iterate_in_threadpool",
    "run_in_threadpool",
    "use_threads",
]

P = ParamSpec("P")
T = TypeVar("T")

# The thread pool of the app started last on each event loop, set at startup and shutdown.
_threads: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Executor] = (
    weakref.WeakKeyDictionary()
)


def use_threads(pool: Executor) -> None:
    """Make ``pool`` the one ``run_in_threadpool`` uses on the running loop (asyncio's: on
    another, AnyIO's worker threads serve)."""
    with contextlib.suppress(RuntimeError):  # another event loop than asyncio's (trio)
        _threads[asyncio.get_running_loop()] = pool


def forget_threads(pool: Executor) -> None:
    """Stop using ``pool`` (its app is stopping): AnyIO's worker threads take over."""
    for loop, used in list(_threads.items()):
        if used is pool:
            del _threads[loop]


def current_threads() -> Executor | None:
    """The thread pool of the hasten app running on this event loop, if one is."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # another event loop than asyncio's (trio)
        return None
    return _threads.get(loop)


async def run_in_threadpool(func: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``func(*args, **kwargs)`` on the thread pool of the app running on this event loop (its
    ``max_threads``), else on AnyIO's worker threads; context variables go along."""
    call = functools.partial(func, *args, **kwargs)
    pool = current_threads()
    if pool is None:
        return await anyio.to_thread.run_sync(call)
    # The contextvars go along, as AnyIO's own worker threads take them.
    result: T = await submit(pool, call)
    return result


class _Exhausted(Exception):
    """An iterator's end, raised by ``_next``: StopIteration cannot cross into a Future."""


def _next(iterator: Iterator[T]) -> T:
    try:
        return next(iterator)
    except StopIteration:
        raise _Exhausted from None


async def iterate_in_threadpool(iterator: Iterable[T]) -> AsyncIterator[T]:
    """A sync iterable as an async one, each ``next()`` run by ``run_in_threadpool``."""
    items = iter(iterator)
    while True:
        try:
            yield await run_in_threadpool(_next, items)
        except _Exhausted:
            break


@contextlib.asynccontextmanager
async def contextmanager_in_threadpool(cm: AbstractContextManager[T]) -> AsyncIterator[T]:
    """A sync context manager used from async code: ``__enter__`` and ``__exit__`` each run on
    a worker thread. ``__exit__`` runs only after ``__enter__`` succeeded, needs no free
    thread of the pool (a context manager with a pool of its own could otherwise deadlock
    waiting for one), and is never cut short by a cancellation, as FastAPI's."""
    value = await run_in_threadpool(cm.__enter__)
    # A thread of its own for __exit__: a limiter of one that nothing else waits on.
    exit_limiter = anyio.CapacityLimiter(1)
    try:
        yield value
    except BaseException as exc:
        with anyio.CancelScope(shield=True):
            suppressed = await anyio.to_thread.run_sync(
                cm.__exit__, type(exc), exc, exc.__traceback__, limiter=exit_limiter
            )
        if not suppressed:
            raise
    else:
        with anyio.CancelScope(shield=True):
            await anyio.to_thread.run_sync(cm.__exit__, None, None, None, limiter=exit_limiter)


class DependencyConcurrency:
    """The limit of one ``Depends(..., max_concurrency=n)`` declaration: at most ``n`` calls of
    its dependency run at once (a ``yield`` dependency's until its code after ``yield`` is
    done), the others wait, without a thread. Every route, router and app that uses the same
    declaration shares it; each event loop has its own semaphore, as FastAPI's."""

    __slots__ = ("__weakref__", "max_concurrency")

    def __init__(self, max_concurrency: int) -> None:
        self.max_concurrency = max_concurrency

    def get_semaphore(self) -> anyio.Semaphore:
        """This declaration's semaphore on the running event loop (FastAPI's name)."""
        semaphores = _semaphores.get(None)
        if semaphores is None:
            semaphores = weakref.WeakKeyDictionary()
            _semaphores.set(semaphores)
        semaphore = semaphores.get(self)
        if semaphore is None:
            semaphore = semaphores[self] = anyio.Semaphore(self.max_concurrency)
        return semaphore


# Each event loop's semaphores, by declaration: one dropped by the app is forgotten here too.
_semaphores: RunVar[weakref.WeakKeyDictionary[DependencyConcurrency, anyio.Semaphore]] = RunVar(
    "hasten_dependency_semaphores"
)
