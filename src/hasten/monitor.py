"""The blocking monitor: notices when the event loop stalls, and names the route to blame.

A heartbeat on the loop records when it last ran; a watchdog thread wakes a few times per
threshold, and while the heartbeat is late it looks at the loop thread's stack for a handler's
code. No work is added to requests: the cost is the heartbeat, a few dozen callbacks a second.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType, FrameType

__all__ = ["BlockStats", "LoopMonitor"]

logger = logging.getLogger("hasten.monitor")
UNKNOWN = "code outside any handler"


@dataclass(slots=True)
class BlockStats:
    """How often, and how long, one route blocked the event loop."""

    count: int = 0
    total_ms: float = 0.0
    max_ms: float = 0.0

    def add(self, stall_ms: float) -> None:
        self.count += 1
        self.total_ms += stall_ms
        self.max_ms = max(self.max_ms, stall_ms)


class LoopMonitor:
    """Watches one event loop; ``codes`` maps a handler's code object to its route label."""

    def __init__(self, threshold: float, codes: dict[CodeType, str]) -> None:
        self.threshold = threshold
        # Half the threshold: a stall of 1.5x the threshold is always caught, and the watchdog
        # wakes (and takes the GIL) only 20 times a second at the default 100 ms.
        self.interval = threshold / 2
        self.codes = codes
        self.stats: dict[str, BlockStats] = {}
        # Told of each stall as it is reported (hasten.metrics counts them).
        self.listener: Callable[[str, float], None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread = 0
        self._due = 0.0  # when the next heartbeat should run
        self._culprit: str | None = None  # what the watchdog saw running during this stall
        self._timer: asyncio.TimerHandle | None = None
        self._stop = threading.Event()
        self._watchdog: threading.Thread | None = None

    def start(self) -> None:
        """Start watching the running loop (call from the loop's thread)."""
        self._loop = asyncio.get_running_loop()
        self._loop_thread = threading.get_ident()
        self._stop.clear()
        self._schedule()
        self._watchdog = threading.Thread(target=self._watch, name="hasten-monitor", daemon=True)
        self._watchdog.start()

    def stop(self) -> None:
        self._stop.set()
        if self._timer is not None:
            self._timer.cancel()
        if self._watchdog is not None:
            self._watchdog.join()

    def _schedule(self) -> None:
        assert self._loop is not None
        self._due = time.monotonic() + self.interval
        self._timer = self._loop.call_later(self.interval, self._beat)

    def _beat(self) -> None:
        late = time.monotonic() - self._due
        if late >= self.threshold:
            self._report(late * 1000)
        self._schedule()

    def _report(self, stall_ms: float) -> None:
        culprit, self._culprit = self._culprit or UNKNOWN, None
        self.stats.setdefault(culprit, BlockStats()).add(stall_ms)
        if self.listener is not None:
            self.listener(culprit, stall_ms)
        if culprit == UNKNOWN:
            logger.warning("The event loop was blocked for %.0f ms by %s", stall_ms, culprit)
        else:
            logger.warning(
                "%s blocked the event loop for %.0f ms: make it a plain def, or offload='process'",
                culprit,
                stall_ms,
            )

    def _watch(self) -> None:
        while not self._stop.wait(self.interval):
            if self._culprit is None and time.monotonic() - self._due >= self.threshold:
                self._culprit = self._find_culprit()

    def _find_culprit(self) -> str | None:
        frame: FrameType | None = sys._current_frames().get(self._loop_thread)
        while frame is not None:
            label = self.codes.get(frame.f_code)
            if label is not None:
                return label
            frame = frame.f_back
        return None
