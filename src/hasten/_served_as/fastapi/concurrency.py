"""``fastapi.concurrency``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.concurrency import (
    contextmanager_in_threadpool,
    iterate_in_threadpool,
    run_in_threadpool,
)

__all__ = ["contextmanager_in_threadpool", "iterate_in_threadpool", "run_in_threadpool"]
