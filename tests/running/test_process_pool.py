"""ProcessPool on its own: a dead worker is reaped and replaced, its task is not run again."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures.process import BrokenProcessPool

import psutil
import pytest

from hasten._running.process_pool import ProcessPool
from tests import offload_handlers as handlers


@pytest.fixture
def pool() -> Iterator[ProcessPool]:
    pool = ProcessPool(2, threads=2)
    yield pool
    pool.shutdown()


def workers(pool: ProcessPool) -> set[int]:
    return {worker.process.pid for worker in pool._workers if worker.process.pid is not None}


def zombies() -> list[int]:
    children = psutil.Process().children()
    return [child.pid for child in children if child.status() == psutil.STATUS_ZOMBIE]


def wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_killed_worker_is_reaped_and_replaced(pool: ProcessPool) -> None:
    running = pool.submit(handlers.slow, 5.0)
    wait_for(lambda: any(worker.in_flight for worker in pool._workers))
    held = next(w.process.pid for w in pool._workers if w.in_flight)
    assert held is not None

    os.kill(held, signal.SIGKILL)

    with pytest.raises(BrokenProcessPool, match="A worker process died running this task"):
        running.result(timeout=5)
    wait_for(lambda: held not in workers(pool) and len(workers(pool)) == 2)
    assert zombies() == []
    assert not psutil.pid_exists(held)
    # The replacement serves, and so does the worker that was not killed.
    assert {pool.submit(handlers.pid).result(timeout=10) for _ in range(8)} <= workers(pool)


def test_the_task_of_a_dead_worker_is_not_run_again(pool: ProcessPool) -> None:
    doomed = pool.submit(handlers.die)  # the task itself kills its worker

    with pytest.raises(BrokenProcessPool):
        doomed.result(timeout=10)
    wait_for(lambda: len(workers(pool)) == 2)
    assert zombies() == []
    # Run again, it would have taken a second worker down: both still serve.
    assert pool.submit(handlers.compute, 10).result(timeout=10)["fibo"] == 55


def test_an_outcome_that_cannot_be_unpickled_fails_its_task_only(pool: ProcessPool) -> None:
    before = workers(pool)
    with pytest.raises(RuntimeError) as raised:
        pool.submit(handlers.refuse).result(timeout=10)
    assert str(raised.value) == (
        "The exception a worker process sent back for this task cannot be unpickled: "
        "TypeError(\"Refusal.__init__() missing 1 required positional argument: 'reason'\")"
    )
    assert isinstance(raised.value.__cause__, TypeError)
    # Its worker was not harmed: the same two serve on.
    assert {pool.submit(handlers.pid).result(timeout=10) for _ in range(8)} <= before
    assert workers(pool) == before


def test_a_reader_that_fails_has_its_worker_replaced(
    pool: ProcessPool, caplog: pytest.LogCaptureFixture
) -> None:
    before = workers(pool)
    with pytest.raises(BrokenProcessPool, match="A worker process died running this task"):
        pool.submit(handlers.stops_the_reader).result(timeout=10)
    (record,) = caplog.records
    assert record.getMessage().startswith("Reading from process-pool worker ")
    assert record.exc_info is not None
    assert record.exc_info[0] is SystemExit
    wait_for(lambda: len(workers(pool)) == 2 and workers(pool) != before)
    assert len(workers(pool) & before) == 1
    assert zombies() == []
    assert {pool.submit(handlers.pid).result(timeout=10) for _ in range(8)} <= workers(pool)


def test_workers_started_for_a_short_lived_thread_outlive_it() -> None:
    # The kernel's parent-death signal follows the thread that started a process: the pool's
    # keeper starts every worker, so that the thread that made the pool may end.
    made: list[tuple[ProcessPool, int]] = []

    def make() -> None:
        pool = ProcessPool(1, threads=1)
        # Answered: the worker has asked for its parent-death signal before this thread ends.
        made.append((pool, pool.submit(handlers.pid).result(timeout=10)))

    maker = threading.Thread(target=make)
    maker.start()
    maker.join()
    ((pool, first),) = made
    try:
        time.sleep(0.5)  # time for the worker to get a parent-death signal, were it due
        assert pool.submit(handlers.pid).result(timeout=10) == first
    finally:
        pool.shutdown()


def test_shutdown_stops_every_worker_and_the_keeper(pool: ProcessPool) -> None:
    pids = workers(pool)
    pool.shutdown()
    assert not pool._keeper.is_alive()
    assert not any(psutil.pid_exists(pid) for pid in pids)
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(handlers.pid)
