"""Starlette's and FastAPI's thread helpers: blocking work off the event loop.

The public names; the code is in ``hasten._running.concurrency``."""

from hasten._running.concurrency import (
    DependencyConcurrency,
    contextmanager_in_threadpool,
    current_threads,
    forget_threads,
    iterate_in_threadpool,
    run_in_threadpool,
    use_threads,
)

__all__ = [
    "DependencyConcurrency",
    "contextmanager_in_threadpool",
    "current_threads",
    "forget_threads",
    "iterate_in_threadpool",
    "run_in_threadpool",
    "use_threads",
]
