"""The seed's CPU-then-block workload as FastAPI runs it: a plain ``def`` on its thread pool.

    hasten bench --path /fibo_sleep/20 --connections 100 --compare \\
        hasten=examples.seeds:app fastapi=benchmarks.apps.fastapi_seeds:app@uvicorn
"""

from __future__ import annotations

import time

from fastapi import FastAPI

app = FastAPI()


def fibo(n: int) -> int:
    return n if n < 2 else fibo(n - 1) + fibo(n - 2)


@app.get("/fibo_sleep/{n}")
def fibo_sleep(n: int) -> dict[str, float]:
    result = fibo(n)
    time.sleep(result / 1e6)
    return {"n": n, "fibo": result, "slept": result / 1e6}
