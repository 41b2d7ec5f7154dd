"""The seed experiments, each handler run the right way (or, for /asyncfib, the wrong one).

    hasten run examples.seeds:app
    hasten bench examples.seeds:app --path /fibo_sleep/20 --connections 100

/asyncfib/{n} computes in an ``async def``: it blocks the event loop, and the blocking monitor
names it in the log ("GET /asyncfib/{n} blocked the event loop for ... ms").
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from hasten import App, Request, Response

app = App()


def fibo(n: int) -> int:
    return n if n < 2 else fibo(n - 1) + fibo(n - 2)


@app.get("/wait")
def wait() -> dict[str, float]:
    """Blocking I/O in a plain def: it runs on the thread pool, the loop stays free."""
    time.sleep(0.05)
    return {"duration": 0.05}


@app.get("/asyncwait")
async def asyncwait() -> dict[str, float]:
    """Waiting the async way: thousands can wait at once on one thread."""
    await asyncio.sleep(0.05)
    return {"duration": 0.05}


@app.get("/fib/{n}")
def fib(n: int) -> dict[str, int]:
    """CPU in a plain def: off the loop, but it holds the GIL while it computes."""
    return {"n": n, "fibo": fibo(n)}


@app.get("/asyncfib/{n}")
async def asyncfib(n: int) -> dict[str, int]:
    """CPU in an async def: the wrong place. Every other request waits while it computes."""
    return {"n": n, "fibo": fibo(n)}


@app.get("/fibo_sleep/{n}", offload="process")
def fibo_sleep(n: int) -> dict[str, float]:
    """The seed's workload: compute, then block for as many microseconds as the result.

    In the app's process pool it neither blocks the loop nor competes for this process's GIL.
    """
    result = fibo(n)
    time.sleep(result / 1e6)
    return {"n": n, "fibo": result, "slept": result / 1e6}


@app.middleware
async def process_time(
    request: Request, call_next: Callable[[Request], Awaitable[Response]]
) -> Response:
    start = time.perf_counter()
    response = await call_next(request)
    response.headers["x-process-time"] = f"{time.perf_counter() - start:.6f}"
    return response
