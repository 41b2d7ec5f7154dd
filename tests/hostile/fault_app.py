"""The app the load and fault tests drive: a blocking route with a small capacity, and a
route that runs in the process pool."""

from __future__ import annotations

import os
import time

from hasten import App

CAPACITY = 20  # requests in flight, and threads for the blocking route
SLOW_SECONDS = 0.05
WORK_SECONDS = 0.1

app = App(max_in_flight=CAPACITY, max_threads=CAPACITY, max_processes=2, process_threads=4)


@app.get("/hello")
async def hello() -> dict[str, str]:
    return {"message": "hello"}


@app.get("/slow")
def slow() -> dict[str, float]:
    time.sleep(SLOW_SECONDS)
    return {"slept": SLOW_SECONDS}


def work() -> int:
    """Runs in the process pool: says which worker process served it."""
    time.sleep(WORK_SECONDS)
    return os.getpid()


app.add_route("/work", work, offload="process")
