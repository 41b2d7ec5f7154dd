"""BackgroundTasks: work a request leaves to run after its response is sent."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ParamSpec

__all__ = ["BackgroundTasks", "task_name"]

P = ParamSpec("P")


class BackgroundTasks:
    """Take it as a parameter and ``add_task(func, *args, **kwargs)``: each task runs after the
    response is sent, in the order added; an ``async def`` on the event loop, a plain ``def``
    on the app's thread pool. A task that fails is logged (``hasten.error``, with its name) and
    the next one still runs. Shutdown waits for them, as for requests in flight.
    """

    __slots__ = ("tasks",)

    def __init__(self) -> None:
        self.tasks: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []

    def add_task(self, func: Callable[P, Any], *args: P.args, **kwargs: P.kwargs) -> None:
        self.tasks.append((func, args, kwargs))

    def __len__(self) -> int:
        return len(self.tasks)

    def __repr__(self) -> str:
        return f"<BackgroundTasks {[task_name(task[0]) for task in self.tasks]}>"


def task_name(func: Callable[..., Any]) -> str:
    """``module.qualname`` of a task, for the log."""
    target = func.func if isinstance(func, functools.partial) else func
    name = getattr(target, "__qualname__", None) or repr(target)
    return f"{getattr(target, '__module__', '?')}.{name}"
