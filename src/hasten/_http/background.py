"""BackgroundTasks: work a request leaves to run after its response is sent; BackgroundTask:
one such call, as ``Response(background=BackgroundTask(func, ...))`` takes it (Starlette's)."""

from __future__ import annotations

import contextvars
import functools
import inspect
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from contextlib import AbstractContextManager
from inspect import CO_COROUTINE
from types import FunctionType
from typing import Any, ParamSpec

from hasten._http.errors import report_unhandled
from hasten._running.concurrency import current_threads
from hasten._running.threads import submit

__all__ = [
    "BackgroundTask",
    "BackgroundTasks",
    "call_task",
    "run_task",
    "run_tasks",
    "task_name",
    "task_operation",
]

logger = logging.getLogger("hasten.error")

P = ParamSpec("P")
_new = object.__new__


class BackgroundTask:
    """``func(*args, **kwargs)``, to run after the response is sent: an ``async def`` on the
    event loop, a plain ``def`` on the app's thread pool. ``await task()`` runs it now."""

    __slots__ = ("args", "func", "kwargs")

    def __init__(self, func: Callable[P, Any], *args: P.args, **kwargs: P.kwargs) -> None:
        self.func = func
        self.args = args
        self.kwargs = kwargs

    @property
    def tasks(self) -> list[BackgroundTask]:
        """The calls to make, in order: this one."""
        return [self]

    async def __call__(self) -> None:
        await call_task(self, current_threads())

    def __repr__(self) -> str:
        return f"<BackgroundTask {task_name(self.func)}>"


class BackgroundTasks(BackgroundTask):
    """Take it as a parameter and ``add_task(func, *args, **kwargs)``: each task runs after the
    response is sent, in the order added; an ``async def`` on the event loop, a plain ``def``
    on the app's thread pool. A task that fails is logged (``hasten.error``, with its name) and
    the next one still runs. Shutdown waits for them, as for requests in flight.
    """

    # perf: the list in a slot of its public name (Starlette's attribute), which the serve
    # step reads without a property's frame.
    __slots__ = ("tasks",)
    tasks: list[BackgroundTask]

    def __init__(self, tasks: Sequence[BackgroundTask] | None = None) -> None:
        self.tasks = list(tasks) if tasks else []

    def add_task(self, func: Callable[P, Any], *args: P.args, **kwargs: P.kwargs) -> None:
        # perf: ``BackgroundTask(func, *args, **kwargs)`` without its __init__'s frame and
        # the arguments packed again; tests/project/test_perf_copies.py holds the two equal.
        task: Any = _new(BackgroundTask)  # its attributes, of this call's types
        task.func, task.args, task.kwargs = func, args, kwargs
        self.tasks.append(task)

    async def __call__(self) -> None:
        for task in self.tasks:
            await run_task(task, current_threads())

    def __len__(self) -> int:
        return len(self.tasks)

    def __repr__(self) -> str:
        return f"<BackgroundTasks {[task_name(task.func) for task in self.tasks]}>"


def task_name(func: Callable[..., Any]) -> str:
    """``module.qualname`` of a task, for the log."""
    target = func.func if isinstance(func, functools.partial) else func
    name = getattr(target, "__qualname__", None) or repr(target)
    return f"{getattr(target, '__module__', '?')}.{name}"


# What each background task of a traced request runs within: its span, current where the
# task runs (hasten._observing.tracing sets it for the request); None for every other request.
task_operation: contextvars.ContextVar[Callable[[Any], AbstractContextManager[Any]] | None] = (
    contextvars.ContextVar("hasten_task_operation", default=None)
)


async def run_tasks(tasks: BackgroundTask, threads: Executor | None) -> Exception | None:
    """Run every background task in order (``tasks``: a BackgroundTasks, or one
    BackgroundTask): an ``async def`` on the loop, any other on ``threads``; a failure is
    logged, never raised: the first is returned."""
    operation = task_operation.get()
    first: Exception | None = None
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
                # (tests/project/test_perf_copies.py holds the two equal).
                await func(*task.args, **task.kwargs)
            elif operation is None:
                await run_task(task, threads)
            else:
                with operation(task.func):
                    await run_task(task, threads)
        except Exception as exc:
            logger.error("Background task %s failed", task_name(task.func), exc_info=exc)
            report_unhandled(exc)  # a TestClient raises it, as Starlette's does
            first = first or exc
    return first


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
