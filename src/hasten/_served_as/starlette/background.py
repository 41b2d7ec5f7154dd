"""``starlette.background``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.background import BackgroundTask, BackgroundTasks
from hasten.concurrency import run_in_threadpool

__all__ = ["BackgroundTask", "BackgroundTasks", "run_in_threadpool"]
