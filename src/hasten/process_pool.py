"""ProcessPool: the app's worker processes for ``offload="process"`` handlers.

Each worker is a fresh interpreter (spawned, never a fork of a threaded server) that runs its
tasks on a few threads of its own: a handler's CPU-bound part gets a core per process, and its
blocking part (a sleep, a query) overlaps with others instead of idling the process. The
parent sends each task to the worker with the fewest in flight, over that worker's pipe.

Workers are tied to the server: shut down with the app, ended by the kernel if the server is
killed (``PR_SET_PDEATHSIG``), and replaced if one dies (its tasks fail with
``BrokenProcessPool``).
"""

from __future__ import annotations

import ctypes
import itertools
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from typing import Any

__all__ = ["ProcessPool"]

STOP_TIMEOUT = 10.0
_Task = tuple[int, Callable[..., Any], tuple[Any, ...], dict[str, Any]]


def _die_with_parent() -> None:
    """In each worker: if the server is killed outright, the worker goes too."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    if sys.platform == "linux":
        pr_set_pdeathsig = 1
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(pr_set_pdeathsig, signal.SIGTERM)
        if os.getppid() == 1:  # the parent died before prctl took effect
            os._exit(1)


def _worker_main(connection: Connection, threads: int) -> None:
    """A worker process: run each task received on a thread, send back its outcome."""
    _die_with_parent()
    sending = threading.Lock()

    def run(task_id: int, func: Callable[..., Any], args: tuple[Any, ...], kwargs: Any) -> None:
        try:
            outcome: tuple[int, bool, Any] = (task_id, True, func(*args, **kwargs))
        except BaseException as exc:
            outcome = (task_id, False, exc)
        with sending:
            try:
                connection.send(outcome)
            except Exception as exc:  # the result or exception does not pickle
                connection.send((task_id, False, RuntimeError(f"cannot send the result: {exc}")))

    with ThreadPoolExecutor(threads, thread_name_prefix="hasten-process-thread") as pool:
        while True:
            try:
                task: _Task | None = connection.recv()
            except EOFError:
                break
            if task is None:
                break
            pool.submit(run, *task)
    connection.close()


class _Worker:
    """The parent's side of one worker process: its pipe and the tasks it has in flight."""

    def __init__(self, pool: ProcessPool) -> None:
        ours, theirs = pool.context.Pipe()
        self.process = pool.context.Process(
            target=_worker_main, args=(theirs, pool.threads), name="hasten-process", daemon=True
        )
        self.process.start()
        theirs.close()
        self.connection = ours
        self.in_flight: dict[int, Future[Any]] = {}
        self.sending = threading.Lock()
        self.reader = threading.Thread(
            target=pool.read_results, args=(self,), name="hasten-process-reader", daemon=True
        )
        self.reader.start()


class ProcessPool(Executor):
    """``size`` worker processes, each running up to ``threads`` tasks at once."""

    def __init__(self, size: int, threads: int = 4) -> None:
        self.size = size
        self.threads = threads
        self.context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._closed = False
        self._workers = [_Worker(self) for _ in range(size)]

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_running_or_notify_cancel()  # it cannot be taken back from another process
        with self._lock:
            if self._closed:
                raise RuntimeError("cannot submit to a process pool that has shut down")
            worker = min(self._workers, key=lambda candidate: len(candidate.in_flight))
            task_id = next(self._ids)
            worker.in_flight[task_id] = future
        try:
            with worker.sending:
                worker.connection.send((task_id, fn, args, kwargs))
        except Exception as exc:  # the handler or its arguments do not pickle, or it died
            with self._lock:
                worker.in_flight.pop(task_id, None)
            future.set_exception(exc)
        return future

    @property
    def queued(self) -> int:
        """Tasks sent to a worker that has no free thread for them yet."""
        with self._lock:
            return sum(max(0, len(worker.in_flight) - self.threads) for worker in self._workers)

    def read_results(self, worker: _Worker) -> None:
        """The reader thread of one worker: resolve its futures; if it dies, replace it."""
        while True:
            try:
                task_id, ok, payload = worker.connection.recv()
            except (EOFError, OSError):
                break
            with self._lock:
                future = worker.in_flight.pop(task_id)
            if ok:
                future.set_result(payload)
            else:
                future.set_exception(payload)
        self._lost(worker)

    def _lost(self, worker: _Worker) -> None:
        with self._lock:
            orphans = list(worker.in_flight.values())
            worker.in_flight.clear()
            if not self._closed:
                self._workers[self._workers.index(worker)] = _Worker(self)
        for future in orphans:
            future.set_exception(BrokenProcessPool("A worker process died running this task"))
        worker.connection.close()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Let the workers finish what they were sent, then stop them."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            workers = list(self._workers)
        for worker in workers:
            try:
                with worker.sending:
                    worker.connection.send(None)
            except OSError:
                pass  # already gone
        if not wait:
            return
        for worker in workers:
            worker.process.join(STOP_TIMEOUT)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join()
            worker.reader.join()
