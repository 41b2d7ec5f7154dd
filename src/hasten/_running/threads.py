"""Work handed to a thread: ``submit``, the one way hasten does it (the caller's contextvars go
with the call; ``handoff``, the same decided once for a handler), and a sync generator
stepped on a thread (a ``yield`` dependency's code before and after its ``yield``), shielded
where its task is being cancelled."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import logging
import math
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from typing import Any, TypeAlias, TypeVar

import anyio
import anyio.to_thread

__all__ = [
    "Exit",
    "ThreadHandoff",
    "advance",
    "being_cancelled",
    "close_exit",
    "finish",
    "handoff",
    "resume",
    "sheltered",
    "shielded",
    "submit",
]

logger = logging.getLogger("hasten.error")
T = TypeVar("T")


class ThreadHandoff(Executor):
    """An executor that hands a call from the event loop to a thread and its result back by
    itself (hasten._running.thread_pool), without a concurrent.futures Future between."""

    def call(self, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        """``func(*args, **kwargs)`` on a thread, with the caller's contextvars: an
        awaitable of its result."""
        raise NotImplementedError


def submit(threads: Executor | None, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` on ``threads`` (None: the loop's default threads), with the
    caller's contextvars: an awaitable of its result."""
    if isinstance(threads, ThreadHandoff):
        return threads.call(func, *args, **kwargs)
    call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
    if threads is None:
        return _default_threads(call)
    # Off asyncio the app's threads are PortableThreads, whose ThreadCall wrap_future returns
    # as it is: one path, with no step added to asyncio's.
    return asyncio.wrap_future(threads.submit(call))


def handoff(threads: Executor | None, func: Callable[..., Any]) -> Callable[..., Any]:
    """``submit(threads, func, ...)`` decided once: where ``threads`` hand work over by
    themselves, their own ``call`` bound to ``func``, with no frame of ``submit``'s."""
    if isinstance(threads, ThreadHandoff):
        return functools.partial(threads.call, func)
    return functools.partial(submit, threads, func)


def _default_threads(call: Callable[[], Any]) -> Awaitable[Any]:
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # another event loop than asyncio's (trio): AnyIO's threads
        return anyio.to_thread.run_sync(call)
    return loop.run_in_executor(None, call)


_DONE = object()


def _step(generator: Any, exc: BaseException | None) -> Any:
    # StopIteration cannot cross into a Future: it comes back as _DONE, and is raised later.
    try:
        return generator.throw(exc) if exc is not None else next(generator)
    except StopIteration:
        return _DONE


async def resume(threads: Executor | None, generator: Any, exc: BaseException | None = None) -> Any:
    """Run a sync generator to its next ``yield`` on a thread, throwing ``exc`` in if given.
    Its end raises StopAsyncIteration, which, unlike StopIteration, may leave a coroutine."""
    value = await submit(threads, _step, generator, exc)
    if value is _DONE:
        raise StopAsyncIteration
    return value


# A started generator dependency whose code after ``yield`` is still to run: the generator,
# whether it is async, and its name for the log. perf: a tuple, as one is made per ``yield``
# dependency per request, and making an object of a class of ours costs about six times as
# many instructions (its __init__ runs in an interpreter frame of its own).
Exit: TypeAlias = tuple[Any, bool, str]


def advance(
    started: Exit, threads: Executor | None, exc: BaseException | None = None
) -> Awaitable[Any]:
    """Run a started generator to its next ``yield`` (throwing ``exc`` in): an awaitable,
    which raises StopAsyncIteration at the generator's end. perf: an async generator's own
    awaitable, without a coroutine of ours around it."""
    generator, is_async, _ = started
    if is_async:
        step: Awaitable[Any] = generator.athrow(exc) if exc else generator.__anext__()
        return step
    return finish(threads, generator, exc)


async def finish(threads: Executor | None, generator: Any, exc: BaseException | None = None) -> Any:
    """``resume`` for a sync generator's code after ``yield``. In a cancelled scope it runs
    shielded, as FastAPI's exit on a thread: the thread cannot be stopped, and the
    cancellation comes at the next await after it (a pending one would take the response
    of a handler that returned; a thread's cleanup would go on behind the request)."""
    step = resume(threads, generator, exc)
    if being_cancelled() or anyio.current_effective_deadline() == -math.inf:
        return await shielded(step)
    return await step


async def close_exit(started: Exit, threads: Executor | None) -> None:
    """Close a generator that yielded once too often; a failure is logged."""
    generator, is_async, name = started
    try:
        if is_async:
            await generator.aclose()
        else:
            await submit(threads, generator.close)
    except Exception as exc:
        logger.error("Closing dependency %s failed", name, exc_info=exc)


def being_cancelled() -> bool:
    """Whether the running task is being cancelled: what is left to do after a request (its
    cleanup) then runs shielded (``shielded``)."""
    try:
        task = asyncio.current_task()
    except RuntimeError:  # another event loop than asyncio's (trio): a cancelled scope's
        return anyio.current_effective_deadline() == -math.inf
    return task is not None and task.cancelling() > 0


async def shielded(step: Awaitable[T]) -> T:
    """``step`` run to its end in a task being cancelled, as FastAPI ends its dependencies:
    an AnyIO cancel scope would cancel each of its awaits again (asyncio's own
    cancellation is delivered once, and is not held off)."""
    with anyio.CancelScope(shield=True):
        result = await step
    # Returned after the scope, which mypy sees may swallow what is raised in it.
    return result  # noqa: RET504


async def sheltered(step: Awaitable[T], guard: anyio.CancelScope | None) -> T:
    """``step`` (generators' code after ``yield``) run to its end whatever cancellation
    comes: under the request's ``guard`` (hasten._params.cleanup_guard), shielded while it
    runs; without one, in a shielded scope of its own where the task is being cancelled
    already (the generators then hold no scope a scope of ours would nest wrongly with)."""
    if guard is None:
        return await (shielded(step) if being_cancelled() else step)
    shielding = guard.shield
    guard.shield = True
    try:
        return await step
    finally:
        guard.shield = shielding
