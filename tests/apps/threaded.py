"""An app whose module starts a thread when imported, as a client library's IO loop does
(Dask's Client, a DB engine's pool, a metrics exporter): each request is answered by that
thread. In a process forked after the import the thread is gone and requests hang."""

from __future__ import annotations

import asyncio
import os
import queue
import threading
from concurrent.futures import Future

from hasten import App

IMPORTED_IN = os.getpid()
jobs: queue.SimpleQueue[Future[int]] = queue.SimpleQueue()


def _answer() -> None:
    while True:
        jobs.get().set_result(os.getpid())


answerer = threading.Thread(target=_answer, name="answerer", daemon=True)
answerer.start()

app = App()


@app.get("/answer")
async def answer() -> dict[str, int | bool]:
    future: Future[int] = Future()
    jobs.put(future)
    answered_in = await asyncio.wait_for(asyncio.wrap_future(future), 2.0)
    return {"pid": os.getpid(), "imported_in": IMPORTED_IN, "answered_in": answered_in}


def pid() -> int:
    """Run in a process worker: importing this module there starts the thread again."""
    return os.getpid()
