"""The executors an app owns: a bounded thread pool for ``def`` handlers, and a process pool
(see process_pool.py) for ``offload="process"`` handlers. Both start and stop with the app."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .process_pool import ProcessPool

__all__ = ["Pools", "ThreadPool", "call_in_child"]


class ThreadPool(ThreadPoolExecutor):
    """At most ``size`` threads, started on demand, named after hasten for stack dumps."""

    def __init__(self, size: int) -> None:
        super().__init__(max_workers=size, thread_name_prefix="hasten-thread")


class Pools:
    """The app's executors: threads always, processes when a route asks for them."""

    def __init__(
        self, threads: int, processes: int, process_threads: int, need_processes: bool
    ) -> None:
        self.threads = ThreadPool(threads)
        self._processes = ProcessPool(processes, process_threads) if need_processes else None

    @property
    def processes(self) -> ProcessPool:
        if self._processes is None:
            raise RuntimeError("This app has no offload='process' route, so no process pool")
        return self._processes

    def shutdown(self) -> None:
        """Wait for running work, then stop every thread and worker process."""
        self.threads.shutdown(wait=True)
        if self._processes is not None:
            self._processes.shutdown(wait=True)


def call_in_child(func: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Run a handler in a worker process; an ``async def`` gets an event loop of its own."""
    result = func(**kwargs)
    if asyncio.iscoroutine(result):
        return asyncio.run(result)
    return result
