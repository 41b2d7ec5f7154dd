"""Handlers that run in other processes: module level, so that they pickle by name."""

from __future__ import annotations

import os
import threading
import time
from typing import Any


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


class Refusal(Exception):
    """Pickled as its one message, which its __init__ cannot take back: it pickles in the
    worker process and fails to unpickle in the parent."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(f"{code} {reason}")


def refuse() -> None:
    raise Refusal(418, "raised")


def refusal() -> Any:  # Any: no response model (a Refusal is not one)
    return Refusal(418, "returned")


def lock() -> Any:
    """What cannot be pickled to come back."""
    return threading.Lock()


class StopsTheReader:
    """Unpickled, it raises what no task outcome may (SystemExit): the reading itself fails."""

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return (exit_now, (3,))


def exit_now(code: int) -> None:
    raise SystemExit(code)


def stops_the_reader() -> StopsTheReader:
    return StopsTheReader()
