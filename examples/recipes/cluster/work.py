"""What the cluster's workers run. They import this module to unpickle the handler, so it holds
the handler and what it needs, and nothing of the app's (no client, no engine, no settings)."""

from __future__ import annotations

import os
from typing import Annotated

from hasten import Path


def count_primes(below: int) -> int:
    """Pure CPU: a sieve of Eratosthenes."""
    sieve = bytearray([1]) * below
    sieve[:2] = bytes(min(below, 2))
    for number in range(2, int(below**0.5) + 1):
        if sieve[number]:
            sieve[number * number :: number] = bytes(len(range(number * number, below, number)))
    return sum(sieve)


def primes(below: Annotated[int, Path(ge=2, le=10_000_000)]) -> dict[str, int]:
    return {"below": below, "primes": count_primes(below), "pid": os.getpid()}
