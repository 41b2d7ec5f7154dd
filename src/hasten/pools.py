"""The executors an app owns: a bounded thread pool for ``def`` handlers, and a process pool
for ``offload="process"`` handlers. Both start with the app and stop with it."""

from __future__ import annotations

import asyncio
import ctypes
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from typing import Any

__all__ = ["Pools", "ProcessPool", "ThreadPool", "call_in_child"]


class ThreadPool(ThreadPoolExecutor):
    """At most ``size`` threads, started on demand, named after hasten for stack dumps."""

    def __init__(self, size: int) -> None:
        super().__init__(max_workers=size, thread_name_prefix="hasten-thread")
        self.size = size


def _die_with_parent() -> None:
    """Runs in each worker process: if the server is killed outright, the worker goes too."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    if sys.platform == "linux":
        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)


class ProcessPool(ProcessPoolExecutor):
    """``size`` worker processes, spawned fresh (no fork of a threaded server) and tied to the
    server's life: shut down with the app, and ended by the kernel if the server is killed."""

    def __init__(self, size: int) -> None:
        super().__init__(
            max_workers=size,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=_die_with_parent,
        )
        self.size = size

    def pids(self) -> list[int]:
        """The worker processes' ids (for tests and diagnostics)."""
        return [process.pid for process in (self._processes or {}).values() if process.pid]


class Pools:
    """The app's executors: threads always, processes when a route asks for them."""

    def __init__(self, threads: int, processes: int, need_processes: bool) -> None:
        self.threads = ThreadPool(threads)
        self._process_count = processes
        self._processes = ProcessPool(processes) if need_processes else None

    @property
    def processes(self) -> ProcessPool:
        if self._processes is None:
            raise RuntimeError("This app has no offload='process' route, so no process pool")
        return self._processes

    def replace_broken(self, pool: ProcessPool) -> None:
        """A worker process died (killed, out of memory): start a fresh pool for what follows."""
        if pool is self._processes:
            pool.shutdown(wait=False, cancel_futures=True)
            self._processes = ProcessPool(self._process_count)

    def shutdown(self) -> None:
        """Wait for running work, then stop every thread and worker process."""
        self.threads.shutdown(wait=True)
        if self._processes is not None:
            self._processes.shutdown(wait=True, cancel_futures=True)


def call_in_child(func: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
    """Run a handler in a worker process; an ``async def`` gets an event loop of its own."""
    result = func(**kwargs)
    if asyncio.iscoroutine(result):
        return asyncio.run(result)
    return result
