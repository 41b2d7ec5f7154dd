"""The executors an app owns: a bounded thread pool for ``def`` handlers (thread_pool.py), and
a process pool (process_pool.py) for ``offload="process"`` handlers. Both start and stop with
the app.

Under an event loop other than asyncio's (trio, through AnyIO) the threads are AnyIO's worker
threads, as many at once as the pool would have (``PortableThreads``), and there is no process
pool."""

from __future__ import annotations

import asyncio
import copy
import functools
from collections.abc import Awaitable, Callable, Generator
from concurrent.futures import Executor, Future
from typing import Any

import anyio
import anyio.to_thread

from hasten._running.process_pool import ProcessPool
from hasten._running.thread_pool import ThreadPool

__all__ = [
    "Pools",
    "PortableThreads",
    "ThreadCall",
    "WorkerThreads",
    "call_in_child",
    "waited",
]


class ThreadCall(Future[Any]):
    """A call that runs on one of AnyIO's worker threads when awaited, under ``limiter``
    (None: AnyIO's default one): what ``WorkerThreads.submit`` hands back.
    ``asyncio.wrap_future`` returns it as it is (it is future-like, see ``asyncio.isfuture``),
    so that ``lifecycle.submit`` awaits it with no step of its own: asyncio's path is left
    as it is."""

    _asyncio_future_blocking = False

    def __init__(
        self, limiter: anyio.CapacityLimiter | None, call: Callable[[], Any], abandon: bool
    ) -> None:
        super().__init__()
        self._limiter = limiter
        self._call = call
        self._abandon = abandon

    def __await__(self) -> Generator[Any, None, Any]:
        return self._run().__await__()

    async def _run(self) -> Any:
        if not self.set_running_or_notify_cancel():
            raise RuntimeError("A thread call is awaited once")
        try:
            result = await anyio.to_thread.run_sync(
                self._call, abandon_on_cancel=self._abandon, limiter=self._limiter
            )
        except BaseException as exc:
            self.set_exception(exc)
            raise
        self.set_result(result)
        return result


class WorkerThreads(Executor):
    """AnyIO's worker threads, at most as many at once as ``limiter`` lets (None: AnyIO's
    default limiter). What ``submit`` returns runs when awaited, on the loop that awaits it
    (AnyIO's threads belong to a loop); code on them may call back into the loop with
    ``anyio.from_thread``. Cancelled, the await ends at once and the thread runs on to its
    end (``abandon_on_cancel``, as asyncio's awaits of a pool's futures do), or the await
    waits for the thread's call to end."""

    def __init__(
        self, limiter: anyio.CapacityLimiter | None = None, *, abandon_on_cancel: bool = True
    ) -> None:
        self.limiter = limiter
        self.abandon_on_cancel = abandon_on_cancel

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        call = functools.partial(fn, *args, **kwargs)
        return ThreadCall(self.limiter, call, self.abandon_on_cancel)


class PortableThreads(WorkerThreads):
    """The app's thread pool under an event loop other than asyncio's (trio): AnyIO's worker
    threads, at most ``size`` at once."""

    def __init__(self, size: int) -> None:
        super().__init__(anyio.CapacityLimiter(size))

    @property
    def queued(self) -> int:
        """Calls waiting for a free thread."""
        assert self.limiter is not None
        return self.limiter.statistics().tasks_waiting


class Pools:
    """The app's executors: threads always, processes when a route asks for them (on
    asyncio's loop only: ``on_asyncio`` False gives ``PortableThreads`` and no processes)."""

    def __init__(
        self,
        threads: int,
        processes: int,
        process_threads: int,
        need_processes: bool,
        on_asyncio: bool = True,
    ) -> None:
        self._thread_pool: ThreadPool | PortableThreads = (
            ThreadPool(threads) if on_asyncio else PortableThreads(threads)
        )
        self._process_pool = (
            ProcessPool(processes, process_threads) if need_processes and on_asyncio else None
        )
        self.on_asyncio = on_asyncio
        # What work is submitted to: the pools themselves, or a wrapper (see ``timed``).
        # Off asyncio, offload="process" handlers run on the threads (see docs/deploy.md).
        self.threads: Executor = self._thread_pool
        self._processes: Executor | None = (
            self._process_pool if on_asyncio or not need_processes else self._thread_pool
        )

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
        """The same pools, with work submitted through ``timer(pool)`` (hasten._observing.observe
        times how long each call waits); shutting either down shuts down both."""
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


def waited(future: Future[Any]) -> Awaitable[Any]:
    """An executor's ``future`` awaited on another event loop than asyncio's (trio): the
    app's own ThreadCall as it is, any other's waited for on one of AnyIO's worker threads."""
    if isinstance(future, ThreadCall):
        return future
    return anyio.to_thread.run_sync(future.result, abandon_on_cancel=True)


def call_in_child(func: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Run a handler in a worker process; an ``async def`` gets an event loop of its own."""
    result = func(**kwargs)
    if asyncio.iscoroutine(result):
        return asyncio.run(result)
    return result
