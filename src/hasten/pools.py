"""The executors an app owns: a bounded thread pool for ``def`` handlers, and a process pool
(see process_pool.py) for ``offload="process"`` handlers. Both start and stop with the app."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import Any

import anyio
import anyio.lowlevel

from .process_pool import ProcessPool

__all__ = ["Pools", "ThreadPool", "call_in_child"]


class ThreadPool(ThreadPoolExecutor):
    """At most ``size`` threads, started on demand, named after hasten for stack dumps.

    Made on a running event loop, its threads are AnyIO worker threads of that loop, as
    Starlette's threads are: code on them may call back into the loop with
    ``anyio.from_thread.run(...)`` and ``run_sync(...)``.
    """

    def __init__(self, size: int) -> None:
        super().__init__(
            max_workers=size, thread_name_prefix="hasten-thread", initializer=_loop_worker()
        )

    @property
    def queued(self) -> int:
        """Calls waiting for a free thread."""
        return self._work_queue.qsize()


def _loop_worker() -> Callable[[], None] | None:
    """What makes a new thread an AnyIO worker thread of the running loop (None off a loop).

    AnyIO finds its loop from such a thread in a thread-local, which only its own worker
    threads set: set here the same way (``anyio._core``; tests/test_pools.py holds it)."""
    try:
        token = anyio.lowlevel.current_token()
    except RuntimeError:  # made off a running loop (NoEventLoopError): none to call back into
        return None
    from anyio._core._eventloop import threadlocals

    def claim() -> None:
        threadlocals.current_token = token

    return claim


class Pools:
    """The app's executors: threads always, processes when a route asks for them."""

    def __init__(
        self, threads: int, processes: int, process_threads: int, need_processes: bool
    ) -> None:
        self._thread_pool = ThreadPool(threads)
        self._process_pool = ProcessPool(processes, process_threads) if need_processes else None
        # What work is submitted to: the pools themselves, or a wrapper (see ``timed``).
        self.threads: Executor = self._thread_pool
        self._processes: Executor | None = self._process_pool

    @property
    def processes(self) -> Executor:
        if self._processes is None:
            raise RuntimeError("This app has no offload='process' route, so no process pool")
        return self._processes

    def submit_to_each_process(self, fn: Callable[..., Any], /, *args: Any) -> list[Future[Any]]:
        """``fn(*args)`` in each worker process of the pool (none without one)."""
        if self._process_pool is None:
            return []
        return self._process_pool.submit_to_each(fn, *args)

    def queued(self) -> dict[str, int]:
        """Calls waiting for a thread, and for a worker process, by pool."""
        queued = {"thread": self._thread_pool.queued}
        if self._process_pool is not None:
            queued["process"] = self._process_pool.queued
        return queued

    def timed(self, timer: Callable[[Executor], Executor]) -> Pools:
        """The same pools, with work submitted through ``timer(pool)`` (hasten.observe times
        how long each call waits); shutting either down shuts down both."""
        view = copy.copy(self)
        view.threads = timer(self._thread_pool)
        if self._process_pool is not None:
            view._processes = timer(self._process_pool)
        return view

    def shutdown(self) -> None:
        """Wait for running work, then stop every thread and worker process."""
        self._thread_pool.shutdown(wait=True)
        if self._process_pool is not None:
            self._process_pool.shutdown(wait=True)


def call_in_child(func: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Run a handler in a worker process; an ``async def`` gets an event loop of its own."""
    result = func(**kwargs)
    if asyncio.iscoroutine(result):
        return asyncio.run(result)
    return result
