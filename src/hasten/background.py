"""BackgroundTasks: work a request leaves to run after its response is sent; BackgroundTask:
one such call, as ``Response(background=BackgroundTask(func, ...))`` takes it (Starlette's).

The public names; the code is in ``hasten._http.background``."""

from hasten._http.background import (
    BackgroundTask,
    BackgroundTasks,
    task_name,
)

__all__ = [
    "BackgroundTask",
    "BackgroundTasks",
    "task_name",
]
