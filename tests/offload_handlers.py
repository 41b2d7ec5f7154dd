"""Handlers that run in other processes: module level, so that they pickle by name."""

from __future__ import annotations

import os
import time


def fibo(n: int) -> int:
    return n if n < 2 else fibo(n - 1) + fibo(n - 2)


def compute(n: int) -> dict[str, int]:
    return {"n": n, "fibo": fibo(n), "pid": os.getpid()}


async def compute_async(n: int) -> dict[str, int]:
    return {"n": n, "fibo": fibo(n), "pid": os.getpid()}


def crash(code: int) -> None:
    raise ValueError(f"child failed with {code}")


def die() -> None:
    os._exit(3)


def pid() -> int:
    return os.getpid()


def slow(seconds: float) -> float:
    time.sleep(seconds)
    return seconds
