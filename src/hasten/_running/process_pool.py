"""ProcessPool: the app's worker processes for ``offload="process"`` handlers.

Each worker is a fresh interpreter (spawned, never a fork of a threaded server) that runs its
tasks on a few threads of its own: a handler's CPU-bound part gets a core per process, and its
blocking part (a sleep, a query) overlaps with others instead of idling the process. The
parent sends each task to the worker with the fewest in flight, over that worker's pipe.

Workers are tied to the server: shut down with the app, ended by the kernel if the server is
killed (``_lifeline.die_with_parent``), and replaced if one dies. One thread starts them all,
the pool's keeper, which lives as long as the pool: the kernel's parent-death signal follows
the *thread* that started a process, so a worker started by a short-lived thread would die
with it. The keeper also reaps each dead worker (no zombie) before it starts the next.

A task whose worker died is not run again: its future fails with ``BrokenProcessPool`` (the
request gets a 500). The pool cannot tell a worker killed from outside from one the task
brought down itself (a crash, or a memory blowup that the OOM killer ended): run again, such
a task would take a second worker, and that worker's other requests, down with it. Nor can it
tell how much of its work the task had done. The client, or the proxy in front of the server,
knows whether the request is safe to send again.
"""

from __future__ import annotations

import itertools
import logging
import multiprocessing
import os
import pickle
import queue
import signal
import struct
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from typing import Any

from hasten._running.lifeline import die_with_parent

__all__ = ["ProcessPool"]

logger = logging.getLogger("hasten.error")
STOP_TIMEOUT = 10.0
WORKER_NAME = "hasten-process"
_Task = tuple[int, Callable[..., Any], tuple[Any, ...], dict[str, Any]]
# What a worker sends back for a task: its id and whether it returned (else it raised), then
# the pickled result or exception.
_HEADER = struct.Struct("<Q?")
_WHAT = {True: "result", False: "exception"}
# In a worker process: whether it runs tasks yet. Before, it is still importing the script that
# started the server (multiprocessing's spawn does, as __mp_main__).
_running = False


def _worker_main(connection: Connection, threads: int, parent_pid: int) -> None:
    """A worker process: run each task received on a thread, send back its outcome."""
    global _running  # noqa: PLW0603 - set once, in the worker process only
    _running = True
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's to handle
    die_with_parent(parent_pid)  # if the server is killed outright, the worker goes too
    sending = threading.Lock()

    def run(task_id: int, func: Callable[..., Any], args: tuple[Any, ...], kwargs: Any) -> None:
        try:
            ok, outcome = True, func(*args, **kwargs)
        except BaseException as exc:
            ok, outcome = False, exc
        try:
            payload = ForkingPickler.dumps(outcome)
        except Exception as exc:  # the result or exception does not pickle
            error = RuntimeError(f"The {_WHAT[ok]} of this task cannot be pickled: {exc!r}")
            ok, payload = False, ForkingPickler.dumps(error)
        with sending:
            connection.send_bytes(_HEADER.pack(task_id, ok) + payload)

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
            target=_worker_main,
            args=(theirs, pool.threads, os.getpid()),
            name=WORKER_NAME,
            daemon=True,
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
        _check_not_importing_main()
        self.size = size
        self.threads = threads
        self.context = multiprocessing.get_context("spawn")
        self._lock = threading.Lock()
        self._ids = itertools.count()
        self._closed = False
        self._workers: list[_Worker] = []
        self._dead: queue.SimpleQueue[_Worker | None] = queue.SimpleQueue()
        started: Future[None] = Future()
        self._keeper = threading.Thread(
            target=self._keep, args=(started,), name="hasten-process-keeper", daemon=True
        )
        self._keeper.start()
        started.result()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        with self._lock:
            worker = min(self._open_workers(), key=lambda candidate: len(candidate.in_flight))
        return self._send(worker, fn, args, kwargs)

    def submit_to_each(self, fn: Callable[..., Any], /, *args: Any) -> list[Future[Any]]:
        """``fn(*args)`` once in every worker process (to prepare them: _serve.warmup)."""
        with self._lock:
            workers = list(self._open_workers())
        return [self._send(worker, fn, args, {}) for worker in workers]

    def _open_workers(self) -> list[_Worker]:
        if self._closed:
            raise RuntimeError("cannot submit to a process pool that has shut down")
        return self._workers

    def _send(
        self, worker: _Worker, fn: Callable[..., Any], args: tuple[Any, ...], kwargs: Any
    ) -> Future[Any]:
        future: Future[Any] = Future()
        future.set_running_or_notify_cancel()  # it cannot be taken back from another process
        with self._lock:
            task_id = next(self._ids)
            worker.in_flight[task_id] = future
        try:
            with worker.sending:
                worker.connection.send((task_id, fn, args, kwargs))
        except Exception as exc:  # the handler or its arguments do not pickle, or it died
            with self._lock:
                ours = worker.in_flight.pop(task_id, None) is not None
            if ours:  # else the keeper has failed it already: the worker died
                future.set_exception(exc)
        return future

    @property
    def queued(self) -> int:
        """Tasks sent to a worker that has no free thread for them yet."""
        with self._lock:
            return sum(max(0, len(worker.in_flight) - self.threads) for worker in self._workers)

    def read_results(self, worker: _Worker) -> None:
        """The reader thread of one worker: resolve its futures until its pipe closes, then
        tell the keeper, which replaces it. Should reading itself fail, the worker is killed
        (what it sends could no longer be told apart) and replaced all the same: a reader
        that died quietly left its worker's tasks waiting for ever."""
        try:
            self._read(worker)
        except BaseException:
            logger.exception("Reading from process-pool worker %s failed", worker.process.pid)
            worker.process.kill()
        finally:
            self._dead.put(worker)

    def _read(self, worker: _Worker) -> None:
        while True:
            try:
                message = worker.connection.recv_bytes()
            except (EOFError, OSError):
                return
            task_id, ok = _HEADER.unpack_from(message)
            # Unpickled apart from its header, so that a result or exception that cannot be
            # unpickled here (an exception whose __init__ takes other arguments than its
            # args) fails its own task only; the worker, whose message was read whole, goes on.
            try:
                payload = pickle.loads(memoryview(message)[_HEADER.size :])
            except Exception as exc:
                payload = RuntimeError(
                    f"The {_WHAT[ok]} a worker process sent back for this task cannot be "
                    f"unpickled: {exc!r}"
                )
                payload.__cause__ = exc
                ok = False
            with self._lock:
                future = worker.in_flight.pop(task_id)
            if ok:
                future.set_result(payload)
            else:
                future.set_exception(payload)

    def _keep(self, started: Future[None]) -> None:
        """The keeper thread: start the workers, then reap and replace each one that dies."""
        try:
            workers = [_Worker(self) for _ in range(self.size)]
        except BaseException as exc:
            started.set_exception(exc)
            return
        with self._lock:
            self._workers = workers
        started.set_result(None)
        while (dead := self._dead.get()) is not None:
            self._replace(dead)

    def _replace(self, worker: _Worker) -> None:
        # Reaped, not left a zombie. Its pipe is closed: it has exited, or is about to; one
        # that lingers is killed (a no-op on a process that has exited).
        worker.process.join(STOP_TIMEOUT)
        worker.process.kill()
        worker.process.join()
        with self._lock:
            orphans = list(worker.in_flight.values())
            worker.in_flight.clear()
            if not self._closed:
                self._workers[self._workers.index(worker)] = _Worker(self)
        code = worker.process.exitcode
        for future in orphans:
            future.set_exception(
                BrokenProcessPool(f"A worker process died running this task (exit code {code})")
            )
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
            self._dead.put(None)
            return
        for worker in workers:
            worker.process.join(STOP_TIMEOUT)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join()
            worker.reader.join()
        self._dead.put(None)
        self._keeper.join()


def _check_not_importing_main() -> None:
    """Refuse, saying why, to start a pool in a worker process that is still importing the
    script that started the server: that script serves the app when imported, so each worker
    would serve it again (and multiprocessing would refuse with its bootstrapping text)."""
    if multiprocessing.current_process().name != WORKER_NAME or _running:
        return
    # Imported by runpy as __mp_main__ (__main__ is an empty module until it is done).
    main = getattr(sys.modules.get("__mp_main__"), "__file__", None) or "the main script"
    raise RuntimeError(
        f"{main} starts the server when it is imported, and each offload='process' worker "
        "process imports it (Python's spawn does, to find what the script defines): put what "
        'starts the server under `if __name__ == "__main__":`, at the end of the script.'
    )
