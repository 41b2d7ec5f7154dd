"""The seed experiments as FastAPI runs them, the counterpart of ``examples/seeds.py``.

FastAPI has no process offload: ``/fibo_sleep/{n}`` is the plain ``def`` its docs suggest.

    hasten bench --path /fibo_sleep/20 --connections 100 --compare \\
        hasten=examples.seeds:app fastapi=benchmarks.apps.fastapi_seeds:app@uvicorn
"""

from __future__ import annotations

import asyncio
import time

from fastapi import FastAPI

app = FastAPI()


def fibo(n: int) -> int:
    return n if n < 2 else fibo(n - 1) + fibo(n - 2)


@app.get("/wait")
def wait() -> dict[str, float]:
    time.sleep(0.05)
    return {"duration": 0.05}


@app.get("/asyncwait")
async def asyncwait() -> dict[str, float]:
    await asyncio.sleep(0.05)
    return {"duration": 0.05}


@app.get("/fib/{n}")
def fib(n: int) -> dict[str, int]:
    return {"n": n, "fibo": fibo(n)}


@app.get("/asyncfib/{n}")
async def asyncfib(n: int) -> dict[str, int]:
    return {"n": n, "fibo": fibo(n)}


@app.get("/fibo_sleep/{n}")
def fibo_sleep(n: int) -> dict[str, float]:
    result = fibo(n)
    time.sleep(result / 1e6)
    return {"n": n, "fibo": result, "slept": result / 1e6}
