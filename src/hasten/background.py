"""BackgroundTasks: work a request leaves to run after its response is sent; BackgroundTask:
one such call, as ``Response(background=BackgroundTask(func, ...))`` takes it (Starlette's)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec

__all__ = ["BackgroundTask", "BackgroundTasks", "task_name"]

P = ParamSpec("P")


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
        from hasten.concurrency import current_threads
        from hasten.lifecycle import call_task

        await call_task(self, current_threads())

    def __repr__(self) -> str:
        return f"<BackgroundTask {task_name(self.func)}>"


class BackgroundTasks(BackgroundTask):
    """Take it as a parameter and ``add_task(func, *args, **kwargs)``: each task runs after the
    response is sent, in the order added; an ``async def`` on the event loop, a plain ``def``
    on the app's thread pool. A task that fails is logged (``hasten.error``, with its name) and
    the next one still runs. Shutdown waits for them, as for requests in flight.
    """

    __slots__ = ("_tasks",)

    def __init__(self, tasks: Sequence[BackgroundTask] | None = None) -> None:
        self._tasks: list[BackgroundTask] = list(tasks) if tasks else []

    @property
    def tasks(self) -> list[BackgroundTask]:
        return self._tasks

    def add_task(self, func: Callable[P, Any], *args: P.args, **kwargs: P.kwargs) -> None:
        self._tasks.append(BackgroundTask(func, *args, **kwargs))

    async def __call__(self) -> None:
        from hasten.concurrency import current_threads
        from hasten.lifecycle import run_task

        for task in self._tasks:
            await run_task(task, current_threads())

    def __len__(self) -> int:
        return len(self._tasks)

    def __repr__(self) -> str:
        return f"<BackgroundTasks {[task_name(task.func) for task in self._tasks]}>"


def task_name(func: Callable[..., Any]) -> str:
    """``module.qualname`` of a task, for the log."""
    target = func.func if isinstance(func, functools.partial) else func
    name = getattr(target, "__qualname__", None) or repr(target)
    return f"{getattr(target, '__module__', '?')}.{name}"
