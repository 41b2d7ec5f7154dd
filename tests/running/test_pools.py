"""The app's executors: its thread pool's threads call back into the event loop as AnyIO's
worker threads do (``anyio.from_thread``), as Starlette's threads can."""

# No `from __future__ import annotations`: the dependency is a local function, which string
# annotations could not name.
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated

import anyio
import anyio.from_thread

from hasten import App, Depends
from hasten._running.thread_pool import ThreadPool
from tests.conftest import ClientFactory


def test_code_on_the_apps_threads_calls_back_into_the_loop(serve: ClientFactory) -> None:
    app = App()
    seen: list[str] = []

    async def on_the_loop(what: str) -> str:
        await anyio.sleep(0)
        return f"{what} on the loop"

    def from_a_thread() -> Iterator[str]:
        seen.append(threading.current_thread().name.split("_")[0])
        yield anyio.from_thread.run(on_the_loop, "dependency")
        anyio.from_thread.run_sync(seen.append, "cleanup on the loop")

    @app.get("/")
    def handler(value: Annotated[str, Depends(from_a_thread)]) -> list[str]:
        return [value, anyio.from_thread.run(on_the_loop, "handler")]

    response = serve(app).get("/")
    assert response.json() == ["dependency on the loop", "handler on the loop"]
    assert seen == ["hasten-thread", "cleanup on the loop"]


def test_a_pool_made_off_a_loop_has_plain_threads() -> None:
    pool = ThreadPool(1)
    try:
        result = pool.submit(anyio.from_thread.run_sync, lambda: "never").exception()
        assert isinstance(result, anyio.NoEventLoopError)
    finally:
        pool.shutdown()


ROOT = Path(__file__).resolve().parents[2]
# A thread of the pool calls into its loop after the loop has stopped (a test's loop, run
# until its test ended): the call is never served, and the thread never returns.
CALLS_INTO_A_STOPPED_LOOP = """
import asyncio
import threading

import anyio.from_thread

from hasten._running.thread_pool import ThreadPool

stopped = threading.Event()


def call_into_the_loop() -> None:
    stopped.wait()
    anyio.from_thread.run_sync(print, "never")


async def main() -> ThreadPool:
    pool = ThreadPool(1)
    pool.submit(call_into_the_loop)
    return pool


pool = asyncio.new_event_loop().run_until_complete(main())
stopped.set()
print("exiting", flush=True)
"""
EXITS_WITHIN = 10.0


def test_a_thread_calling_into_a_stopped_loop_does_not_hold_up_the_exit() -> None:
    # Before: the interpreter joined the thread at exit, for ever (concurrent.futures' pools
    # join their threads then); an app left running by a test hung the test run.
    ended = subprocess.run(
        [sys.executable, "-c", CALLS_INTO_A_STOPPED_LOOP],
        cwd=ROOT,
        capture_output=True,
        timeout=EXITS_WITHIN,
        check=False,
    )
    assert (ended.returncode, ended.stdout, ended.stderr) == (0, b"exiting\n", b"")
