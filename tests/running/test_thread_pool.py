"""The app's thread pool (hasten._running.thread_pool): calls handed to threads from the loop and
their results handed back, with what a thread pool promises kept: at most ``size`` threads,
the caller's contextvars, a call that blocks blocks no other, shutdown ends every thread."""

from __future__ import annotations

import asyncio
import contextvars
import gc
import threading
import time
from collections.abc import Callable
from typing import Annotated, Any

import pytest

from hasten import App, Depends, Request, Response
from hasten._running.thread_pool import Returns, ThreadPool
from hasten.types import CallNext
from tests.conftest import ClientFactory

WAIT = 5.0  # seconds: what no call here should come near
who: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")


def seen_by_dependency() -> str:
    return who.get()


def test_handlers_and_dependencies_on_threads_see_the_requests_contextvars(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.middleware
    async def name_the_caller(request: Request, call_next: CallNext) -> Response:
        token = who.set(request.headers.get("x-who", "anonymous"))
        try:
            return await call_next(request)
        finally:
            who.reset(token)

    @app.get("/who")
    def handler(seen: Annotated[str, Depends(seen_by_dependency)]) -> list[str]:
        return [seen, who.get(), threading.current_thread().name.split("_")[0]]

    client = serve(app)
    assert client.get("/who", headers={"x-who": "ada"}).json() == ["ada", "ada", "hasten-thread"]
    assert client.get("/who").json() == ["anonymous", "anonymous", "hasten-thread"]


def test_a_def_handler_that_raises_stopiteration_is_a_500_not_a_hang(
    serve: ClientFactory,
) -> None:
    app = App()

    @app.get("/stop")
    def stop() -> None:
        raise StopIteration

    response = serve(app, raise_server_exceptions=False).get("/stop")
    assert response.status_code == 500


def _run(pool: ThreadPool, test: Callable[[ThreadPool], Any]) -> Any:
    async def main() -> Any:
        return await asyncio.wait_for(test(pool), WAIT)

    try:
        return asyncio.run(main())
    finally:
        pool.shutdown()


def test_results_that_come_in_together_wake_the_loop_once(monkeypatch: pytest.MonkeyPatch) -> None:
    wakes: list[int] = []
    settle = Returns._settle

    def counted(self: Returns) -> None:
        wakes.append(1)
        settle(self)

    monkeypatch.setattr(Returns, "_settle", counted)
    done = threading.Barrier(5)

    def work(number: int) -> int:
        done.wait(WAIT)
        return number

    async def test(pool: ThreadPool) -> list[int]:
        futures = [pool.call(work, number) for number in range(4)]
        done.wait(WAIT)  # the loop held up while all four end
        time.sleep(0.05)  # and hand their results back
        return list(await asyncio.gather(*futures))

    assert _run(ThreadPool(4), test) == [0, 1, 2, 3]
    assert len(wakes) == 1


def test_at_most_size_threads_run_and_the_calls_beyond_wait_for_one() -> None:
    running: list[int] = []
    peak = [0]
    lock = threading.Lock()

    def work(number: int) -> int:
        with lock:
            running.append(number)
            peak[0] = max(peak[0], len(running))
        time.sleep(0.02)
        with lock:
            running.remove(number)
        return number

    async def test(pool: ThreadPool) -> list[int]:
        results = await asyncio.gather(*(pool.call(work, number) for number in range(12)))
        assert len(pool._threads) == 3
        return list(results)

    assert _run(ThreadPool(3), test) == list(range(12))
    assert peak[0] == 3


def test_a_call_that_blocks_blocks_no_other() -> None:
    release = threading.Event()

    async def test(pool: ThreadPool) -> str:
        assert await pool.call(str, "first") == "first"  # one thread, idle again
        blocked = pool.call(release.wait, WAIT)  # it takes this one
        assert await pool.call(str, "free") == "free"  # on a second thread
        assert not blocked.done()
        release.set()
        assert await blocked is True
        return "ok"

    assert _run(ThreadPool(2), test) == "ok"


def test_a_call_cancelled_before_a_thread_takes_it_is_not_run() -> None:
    release = threading.Event()
    ran: list[str] = []

    async def test(pool: ThreadPool) -> None:
        first = pool.call(release.wait, WAIT)
        second = pool.call(ran.append, "second")
        second.cancel()  # a route's deadline, before the only thread is free
        release.set()
        await first
        await pool.call(ran.append, "third")

    _run(ThreadPool(1), test)
    assert ran == ["third"]


def test_errors_reach_the_caller_as_they_were_raised() -> None:
    def fails() -> None:
        raise KeyError("missing")

    async def test(pool: ThreadPool) -> None:
        with pytest.raises(KeyError, match="missing"):
            await pool.call(fails)
        with pytest.raises(RuntimeError, match="StopIteration") as raised:
            await pool.call(next, iter(()))
        assert isinstance(raised.value.__cause__, StopIteration)

    _run(ThreadPool(1), test)


def test_calls_from_two_loops_each_return_to_their_own() -> None:
    pool = ThreadPool(2)

    async def ask(value: str) -> tuple[str, bool]:
        loop = asyncio.get_running_loop()
        result = await pool.call(str.upper, value)
        return result, asyncio.get_running_loop() is loop

    try:
        with_threads: list[Any] = [None, None]

        def on_a_thread(index: int, value: str) -> None:
            with_threads[index] = asyncio.run(ask(value))

        threads = [threading.Thread(target=on_a_thread, args=(i, v)) for i, v in enumerate("ab")]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(WAIT)
        assert with_threads == [("A", True), ("B", True)]
        assert asyncio.run(ask("c")) == ("C", True)
    finally:
        pool.shutdown()


def test_shutdown_runs_the_calls_waiting_then_ends_every_thread() -> None:
    release = threading.Event()
    ran: list[int] = []
    pool = ThreadPool(1)

    async def start() -> None:
        pool.call(release.wait, WAIT)
        pool.call(ran.append, 1)

    asyncio.run(start())
    (thread,) = pool._threads
    release.set()
    pool.shutdown()
    assert ran == [1]
    assert not thread.is_alive()
    with pytest.raises(RuntimeError, match="shut down"):
        pool.submit(print)


def test_submit_hands_back_a_concurrent_future_off_the_loop() -> None:
    pool = ThreadPool(1)
    try:
        token = who.set("submitter")
        future = pool.submit(who.get)
        who.reset(token)
        assert future.result(WAIT) == "submitter"
    finally:
        pool.shutdown()


def test_a_pool_dropped_without_shutdown_ends_its_threads() -> None:
    pool = ThreadPool(2)
    assert pool.submit(lambda: 1).result(WAIT) == 1
    (thread,) = pool._threads
    del pool
    gc.collect()
    thread.join(WAIT)
    assert not thread.is_alive()
