"""A handler's module that fails to import in the app's process workers (a setting they lack,
say): the app must not start."""

from __future__ import annotations

import multiprocessing

if multiprocessing.current_process().name == "hasten-process":
    raise RuntimeError("DATABASE_URL is not set")


def work() -> int:
    return 1
