"""ThreadPool: the app's threads for ``def`` handlers and dependencies, on asyncio's loop.

At most ``size`` threads, started on demand and reused, as ``ThreadPoolExecutor``'s, with two
differences. Made on a running event loop, its threads are AnyIO worker threads of that loop,
as Starlette's threads are: code on them may call back into the loop with
``anyio.from_thread.run(...)`` and ``run_sync(...)``. And they are daemon threads, which the
interpreter's exit does not wait for: a thread that called into its loop after the loop had
stopped (a test's loop, run until its test ended) waits for an answer that never comes, and
``concurrent.futures`` joins its pools' threads at exit, for ever. The app's shutdown still
waits for the calls it started (``shutdown``).
"""

from __future__ import annotations

import queue
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import Any

import anyio.lowlevel

__all__ = ["ThreadPool"]

_Call = tuple[Future[Any], Callable[..., Any], tuple[Any, ...], dict[str, Any]]
_Calls = queue.SimpleQueue[_Call | None]


class ThreadPool(Executor):
    """At most ``size`` threads, started on demand, named after hasten for stack dumps."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._calls: _Calls = queue.SimpleQueue()
        self._claim = _loop_worker()
        self._threads: list[threading.Thread] = []
        # A thread between two calls: a new call takes it rather than start another.
        self._idle = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._closed = False

    @property
    def queued(self) -> int:
        """Calls waiting for a free thread."""
        return self._calls.qsize()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot submit to a thread pool that has shut down")
            self._calls.put((future, fn, args, kwargs))
            if not self._idle.acquire(blocking=False) and len(self._threads) < self._size:
                self._start_thread()
        return future

    def _start_thread(self) -> None:
        # The thread holds the pool weakly: a pool dropped without a shutdown ends its threads
        # (the callback wakes them with the end mark).
        calls = self._calls
        owner = weakref.ref(self, lambda _: calls.put(None))
        thread = threading.Thread(
            target=_serve,
            args=(owner, calls, self._claim),
            name=f"hasten-thread_{len(self._threads)}",
            daemon=True,
        )
        thread.start()
        self._threads.append(thread)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Run no new calls; with ``wait``, let the running and queued ones end first
        (``cancel_futures``: cancel the queued ones)."""
        with self._lock:
            self._closed = True
            if cancel_futures:
                while True:
                    try:
                        call = self._calls.get_nowait()
                    except queue.Empty:
                        break
                    if call is not None:
                        call[0].cancel()
            self._calls.put(None)  # the end mark, passed on from thread to thread
        if wait:
            for thread in self._threads:
                thread.join()


def _serve(owner: weakref.ref[ThreadPool], calls: _Calls, claim: Callable[[], None] | None) -> None:
    """One thread of a pool: run its calls until the end mark."""
    if claim is not None:
        claim()
    while (call := calls.get()) is not None:
        future, fn, args, kwargs = call
        del call
        if future.set_running_or_notify_cancel():
            try:
                result = fn(*args, **kwargs)
            except BaseException as exc:
                future.set_exception(exc)
            else:
                future.set_result(result)
                del result  # not kept alive until the next call
        del future, fn, args, kwargs
        pool = owner()
        if pool is None:
            return
        pool._idle.release()
        del pool
    calls.put(None)  # for the next thread


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
