"""``starlette.concurrency``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.concurrency import iterate_in_threadpool, run_in_threadpool
from hasten.errors import StarletteDeprecationWarning

__all__ = ["StarletteDeprecationWarning", "iterate_in_threadpool", "run_in_threadpool"]
