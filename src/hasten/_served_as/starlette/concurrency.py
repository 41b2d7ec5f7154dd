"""``starlette.concurrency``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.concurrency import iterate_in_threadpool, run_in_threadpool

__all__ = ["iterate_in_threadpool", "run_in_threadpool"]
