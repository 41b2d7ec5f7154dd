"""A server's resource usage: CPU time and RSS of its whole process tree (parent + children)."""

from __future__ import annotations

import threading
from types import TracebackType

import psutil

__all__ = ["PeakRss", "ProcessTree"]

_GONE = (psutil.NoSuchProcess, psutil.AccessDenied)


class ProcessTree:
    """A process and all its descendants, as they are at each call."""

    def __init__(self, pid: int) -> None:
        self.root = psutil.Process(pid)

    def processes(self) -> list[psutil.Process]:
        """The root and its descendants that are alive now (none when the root is gone)."""
        try:
            return [self.root, *self.root.children(recursive=True)]
        except _GONE:
            return []

    def cpu_seconds(self) -> float:
        """User + system CPU time of the tree, counting children already reaped by a parent."""
        total = 0.0
        for process in self.processes():
            try:
                times = process.cpu_times()
            except _GONE:
                continue
            total += times.user + times.system + times.children_user + times.children_system
        return total

    def rss_bytes(self) -> int:
        """The sum of the resident set sizes of the tree."""
        total = 0
        for process in self.processes():
            try:
                total += process.memory_info().rss
            except _GONE:
                continue
        return total


class PeakRss:
    """``with PeakRss(tree) as rss:`` samples the tree's RSS in a thread; ``rss.peak`` is the
    highest sum seen (None without a tree)."""

    def __init__(self, tree: ProcessTree | None, interval: float = 0.1) -> None:
        self._tree = tree
        self._interval = interval
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample_until_stopped, daemon=True)
        self.peak: int | None = None

    def __enter__(self) -> PeakRss:
        if self._tree is not None:
            self._sample()
            self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._tree is not None:
            self._stop.set()
            self._thread.join()
            self._sample()

    def _sample_until_stopped(self) -> None:
        while not self._stop.wait(self._interval):
            self._sample()

    def _sample(self) -> None:
        assert self._tree is not None
        self.peak = max(self.peak or 0, self._tree.rss_bytes())
