"""Handlers that run in the app's process pool, in a module that makes nothing at import but
notes when it was imported (CLOCK_MONOTONIC: one clock for every process of the machine)."""

from __future__ import annotations

import os
import time

IMPORTED_AT = time.monotonic()


def imported_at(seconds: float) -> dict[str, float]:
    """After ``seconds`` (so that calls at once take different workers): when this worker
    imported the module."""
    time.sleep(seconds)
    return {"pid": os.getpid(), "imported_at": IMPORTED_AT}
