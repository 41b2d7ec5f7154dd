"""The executors an app owns: a bounded thread pool for plain ``def`` handlers."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

__all__ = ["ThreadPool"]


class ThreadPool(ThreadPoolExecutor):
    """At most ``size`` threads, started on demand, named after hasten for stack dumps."""

    def __init__(self, size: int) -> None:
        super().__init__(max_workers=size, thread_name_prefix="hasten-thread")
        self.size = size
