"""What belongs to a request's life beyond its handler: work on the thread pool, and what is
left for after its response (``yield`` dependencies' exits, background tasks, uploaded files).

``submit`` is the one way hasten hands a call to a thread: the caller's contextvars go with it.
A ``Cleanup`` hangs on a connection that leaves something behind; the serve step runs it once
the response is sent, with the request still counted in flight, so shutdown drains it too.
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import logging
import math
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from contextlib import AbstractContextManager
from inspect import CO_COROUTINE
from types import FunctionType
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

import anyio
import anyio.to_thread

from hasten.background import BackgroundTask, BackgroundTasks, task_name
from hasten.errors import SWALLOWED, FastAPIError, report_unhandled

if TYPE_CHECKING:
    from hasten.connection import Connection
    from hasten.forms import FormData

__all__ = [
    "Cleanup",
    "Exit",
    "advance",
    "being_cancelled",
    "call_task",
    "cleanup_of",
    "close_exit",
    "finish",
    "resume",
    "run_task",
    "run_tasks",
    "shielded",
    "submit",
    "task_operation",
    "unwound",
]

logger = logging.getLogger("hasten.error")
T = TypeVar("T")
_new = object.__new__


def submit(threads: Executor | None, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
    """``func(*args, **kwargs)`` on ``threads`` (None: the loop's default threads), with the
    caller's contextvars: an awaitable of its result."""
    call = functools.partial(contextvars.copy_context().run, func, *args, **kwargs)
    if threads is None:
        return _default_threads(call)
    # Off asyncio the app's threads are PortableThreads, whose ThreadCall wrap_future returns
    # as it is: one path, with no step added to asyncio's.
    return asyncio.wrap_future(threads.submit(call))


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


class Cleanup:
    """What a request leaves for after its response: the exits of its ``yield``
    dependencies, its background tasks, and its uploaded files. A request without any never
    has one. ``cleanup_of`` makes it."""

    __slots__ = ("exits", "form", "tasks", "threads")
    threads: Executor | None
    exits: list[Exit]
    tasks: BackgroundTasks | None
    form: FormData | None  # its uploaded files are closed last

    async def after_response(self) -> None:
        """Background tasks, then each generator's code after ``yield`` (last first), then
        the uploaded files are closed; every failure is logged, none raised. Each runs once:
        what is left after it is nothing to do."""
        # perf: one coroutine for all three, as a request with a yield dependency runs it.
        try:
            if self.tasks is not None:
                tasks, self.tasks = self.tasks, None
                await run_tasks(tasks, self.threads)
            while self.exits:
                done = self.exits.pop()
                generator, is_async, name = done
                try:
                    # perf: ``advance(done, self.threads)`` written out, a frame less for
                    # every request with a yield dependency; tests/test_perf_copies.py holds
                    # them equal.
                    await (generator.__anext__() if is_async else finish(self.threads, generator))
                except StopAsyncIteration:
                    continue
                except Exception as exc:
                    logger.error("The cleanup of dependency %s failed", name, exc_info=exc)
                    report_unhandled(exc)  # a TestClient raises it, as Starlette's does
                    continue
                logger.error("Dependency %s yielded more than once", name)
                await close_exit(done, self.threads)
        finally:
            if self.form is not None:
                form, self.form = self.form, None
                await form.close()

    async def unwind(self, exc: BaseException) -> BaseException:
        """The request failed with ``exc``: throw it into each generator (last first). A
        generator may replace it by raising another; the one left is what the client sees.
        One that swallows it leaves the request without a response: FastAPIError, as
        FastAPI's (the generators before it end as after a response)."""
        self.tasks = None  # a failed request runs no background task
        while self.exits:
            done = self.exits.pop()
            try:
                await advance(done, self.threads, exc)
            except StopAsyncIteration:
                if not isinstance(exc, Exception):  # cancelled: the request is gone anyway
                    continue
                # The generators before it end now; the files stay open for the error
                # response (a handler of it may read them), and close after it is sent.
                form, self.form = self.form, None
                try:
                    await self.after_response()
                finally:  # cancelled or not, the files are still closed after the response
                    self.form = form
                return FastAPIError(SWALLOWED)
            except BaseException as raised:
                exc = raised
                continue
            _, _, name = done
            logger.error("Dependency %s yielded again after an exception", name)
            await close_exit(done, self.threads)
        return exc


async def unwound(connection: Connection, exc: BaseException) -> BaseException:
    """What a request that failed with ``exc`` raises: ``exc``, or what its yield
    dependencies made of it (no task nor generator is left after it). The generators run
    to their end even when the request is cancelled."""
    cleanup = connection._cleanup
    if cleanup is None:
        return exc
    unwinding = cleanup.unwind(exc)
    return await (shielded(unwinding) if being_cancelled() else unwinding)


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


def cleanup_of(connection: Connection) -> Cleanup:
    """The connection's Cleanup, made on first use."""
    cleanup = connection._cleanup
    if cleanup is None:
        # perf: made here only, without an __init__: its frame would cost more than the
        # rest of the making (a request with a yield dependency makes one).
        cleanup = connection._cleanup = _new(Cleanup)
        cleanup.threads = connection.context.threads
        cleanup.exits = []
        cleanup.tasks = None
        cleanup.form = None
    return cleanup


# What each background task of a traced request runs within: its span, current where the
# task runs (hasten.tracing sets it for the request); None for every other request.
task_operation: contextvars.ContextVar[Callable[[Any], AbstractContextManager[Any]] | None] = (
    contextvars.ContextVar("hasten_task_operation", default=None)
)


async def run_tasks(tasks: BackgroundTask, threads: Executor | None) -> None:
    """Run every background task in order (``tasks``: a BackgroundTasks, or one
    BackgroundTask): an ``async def`` on the loop, any other on ``threads``; a failure is
    logged, never raised."""
    operation = task_operation.get()
    for task in tasks.tasks:
        try:
            func = task.func
            if (
                operation is None
                and type(task) is BackgroundTask
                and type(func) is FunctionType
                and func.__code__.co_flags & CO_COROUTINE
            ):
                # perf: ``run_task`` written out for the usual task, an ``async def`` added
                # with ``add_task``: two coroutines and inspect's unwrapping less
                # (tests/test_perf_copies.py holds the two equal).
                await func(*task.args, **task.kwargs)
            elif operation is None:
                await run_task(task, threads)
            else:
                with operation(task.func):
                    await run_task(task, threads)
        except Exception as exc:
            logger.error("Background task %s failed", task_name(task.func), exc_info=exc)
            report_unhandled(exc)  # a TestClient raises it, as Starlette's does


async def run_task(task: BackgroundTask, threads: Executor | None) -> None:
    """Run one background task: an ``async def`` on the loop, any other on ``threads``; a
    subclass with a ``__call__`` of its own is awaited as it is (Starlette's BackgroundTasks
    await each ``task()``)."""
    if type(task).__call__ is not BackgroundTask.__call__ and not isinstance(task, BackgroundTasks):
        await task()
        return
    await call_task(task, threads)


async def call_task(task: BackgroundTask, threads: Executor | None) -> None:
    """Call one background task's function: an ``async def`` on the loop, any other on
    ``threads`` (what ``BackgroundTask.__call__`` does)."""
    func, args, kwargs = task.func, task.args, task.kwargs
    if inspect.iscoroutinefunction(func):
        await func(*args, **kwargs)
        return
    result = await submit(threads, func, *args, **kwargs)
    if inspect.isawaitable(result):
        await result
