"""The one event loop every TestClient serves its apps on, on a daemon thread of its own.

One loop for all clients: a client costs no thread, an app used by several clients (a test
module's client and a test's own) always runs on the same loop, and the test's thread, where
no loop need run, drives it with blocking calls.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["LOOP_THREAD_NAME", "LoopThread", "shared_loop"]

T = TypeVar("T")
LOOP_THREAD_NAME = "hasten-testclient"

logger = logging.getLogger("hasten.testing")


class LoopThread:
    """An event loop running forever on a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._background: set[asyncio.Task[None]] = set()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name=LOOP_THREAD_NAME, daemon=True
        )
        self._thread.start()

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        """Run ``coro`` on the loop and wait for its result (cancelled after ``timeout``)."""
        if threading.current_thread() is self._thread:
            coro.close()
            raise RuntimeError(
                "A TestClient was called from the event loop that runs its app (an async "
                "handler?): call it from the test, a plain def handler or another thread"
            )
        future = asyncio.run_coroutine_threadsafe(coro, self.loop)
        try:
            return future.result(timeout)
        except TimeoutError:
            future.cancel()
            raise

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` on the loop without waiting for it; a failure is logged. Safe from
        any thread, the loop's own included, and from a garbage collector's callback."""
        self.loop.call_soon_threadsafe(self._start, coro)

    def _start(self, coro: Coroutine[Any, Any, None]) -> None:
        task = self.loop.create_task(coro)
        self._background.add(task)  # the loop keeps only weak references to its tasks
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            logger.error("A TestClient's app failed to stop", exc_info=task.exception())


_shared: list[LoopThread] = []  # one at most
_shared_lock = threading.Lock()


def shared_loop() -> LoopThread:
    """The loop of every TestClient in this process, started with the first one."""
    with _shared_lock:
        if not _shared:
            _shared.append(LoopThread())
        return _shared[0]
