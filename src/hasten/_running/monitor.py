"""The blocking monitor: notices when the event loop stalls, and names the route to blame.

A heartbeat on the loop records when it last ran; a watchdog thread wakes a few times per
threshold, and while the heartbeat is late it looks at the loop thread's stack for a handler's
code. No work is added to requests: the cost is the heartbeat, a few dozen callbacks a second,
and a call at each start and end of a garbage collection (a stall the collector made on the
loop's thread is the collector's, not the route's whose code it interrupted). Every app on one
loop (an app mounted in another) shares that loop's heartbeat and watchdog.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
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
COLLECTOR = "the garbage collector"


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
    """Watches one event loop for one app; ``codes`` maps a handler's code object to its route
    label. Apps on the same loop (one mounted in another) share one watch, so that each stall
    is reported once, by the app whose code was running."""

    def __init__(self, threshold: float, codes: dict[CodeType, str]) -> None:
        self.threshold = threshold
        self.codes = codes
        self.stats: dict[str, BlockStats] = {}
        # Told of each stall as it is reported (hasten._observing.metrics counts them).
        self.listener: Callable[[str, float], None] | None = None
        self._watch: _LoopWatch | None = None

    def start(self) -> None:
        """Start watching the running loop (call from the loop's thread)."""
        loop = asyncio.get_running_loop()
        with _watches_lock:
            watch = _watches.get(loop)
            if watch is None:
                watch = _watches[loop] = _LoopWatch(loop)
            watch.add(self)
        self._watch = watch

    def stop(self) -> None:
        """Stop watching (from any thread); the loop's watch stops with its last app."""
        watch, self._watch = self._watch, None
        if watch is None:
            return
        with _watches_lock:
            last = watch.remove(self)
            if last and _watches.get(watch.loop) is watch:
                del _watches[watch.loop]
        if last:
            watch.stop()

    def blame(self, label: str, stall_ms: float) -> None:
        """Count and log a stall of ``stall_ms`` caused by ``label``."""
        self.stats.setdefault(label, BlockStats()).add(stall_ms)
        if self.listener is not None:
            self.listener(label, stall_ms)
        if label == UNKNOWN:
            logger.warning("The event loop was blocked for %.0f ms by %s", stall_ms, label)
        elif label == COLLECTOR:
            logger.warning(
                "The event loop was blocked for %.0f ms by %s (a collection, with the finalizers"
                " it ran): gc.freeze() after startup keeps long-lived objects out of it",
                stall_ms,
                label,
            )
        else:
            logger.warning(
                "%s blocked the event loop for %.0f ms: make it a plain def, or offload='process'",
                label,
                stall_ms,
            )


_watches: dict[asyncio.AbstractEventLoop, _LoopWatch] = {}
_watches_lock = threading.Lock()
_IDLE = 0.1  # the watchdog's threshold in the moments it has no app to watch for


class _LoopWatch:
    """One loop's heartbeat and watchdog, for every app's monitor on that loop.

    The heartbeat records when it last ran; the watchdog thread wakes a few times per threshold,
    and while the heartbeat is late it looks at the loop thread's stack for a handler's code,
    innermost first: the app that owns it is told of the stall, and no other.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self._loop_thread = threading.get_ident()
        # The first app to start (the outermost) is told of stalls in code no app owns.
        self._monitors: tuple[LoopMonitor, ...] = ()
        self._threshold = _IDLE  # the smallest of the monitors' thresholds
        self._due = 0.0  # when the next heartbeat should run
        self._culprit: tuple[LoopMonitor, str] | None = None  # what ran during this stall
        # The garbage collector on the loop's thread: when its running collection started
        # (0.0: none runs), and the seconds its collections took since the last heartbeat.
        self._collecting_since = 0.0
        self._collected = 0.0
        self._timer: asyncio.TimerHandle | None = None
        # Held until ``stop``: the watchdog sleeps by waiting for it, one C call a wake (an
        # Event's wait is a dozen Python steps and a new lock each time).
        self._running = threading.Lock()
        self._running.acquire()
        self._watchdog: threading.Thread | None = None

    def _use(self, monitors: tuple[LoopMonitor, ...]) -> None:
        self._monitors = monitors
        self._threshold = min((monitor.threshold for monitor in monitors), default=_IDLE)

    def add(self, monitor: LoopMonitor) -> None:
        self._use((*self._monitors, monitor))
        if self._watchdog is None:
            gc.callbacks.append(self._collecting)
            self._schedule()
            self._watchdog = threading.Thread(
                target=self._watch, name="hasten-monitor", daemon=True
            )
            self._watchdog.start()

    def remove(self, monitor: LoopMonitor) -> bool:
        """Forget ``monitor``; whether it was the last one."""
        self._use(tuple(item for item in self._monitors if item is not monitor))
        return not self._monitors

    def stop(self) -> None:
        self._stop_timing_collections()
        self._running.release()
        if self._timer is not None:
            self._timer.cancel()
        if self._watchdog is not None:
            self._watchdog.join()

    def _schedule(self) -> None:
        interval = _interval(self._threshold)
        self._due = time.monotonic() + interval
        self._timer = self.loop.call_later(interval, self._beat)

    def _beat(self) -> None:
        monitors = self._monitors
        if not monitors:
            return
        late = time.monotonic() - self._due
        collected, self._collected = self._collected, 0.0
        if late >= self._threshold:
            self._report(monitors, late, collected)
        self._schedule()

    def _report(self, monitors: tuple[LoopMonitor, ...], late: float, collected: float) -> None:
        culprit, self._culprit = self._culprit, None
        if collected >= late / 2:  # most of the stall was the collector's
            monitor, label = monitors[0], COLLECTOR
        elif culprit is not None:
            monitor, label = culprit
        else:
            monitor, label = monitors[0], UNKNOWN
        if late >= monitor.threshold:
            monitor.blame(label, late * 1000)

    def _collecting(self, phase: str, info: dict[str, int]) -> None:
        """gc's callback, at each start and end of a collection in any thread: the loop
        thread's are timed."""
        if threading.get_ident() != self._loop_thread:
            return
        if phase == "start":
            self._collecting_since = time.monotonic()
        elif self._collecting_since:
            self._collected += time.monotonic() - self._collecting_since
            self._collecting_since = 0.0

    def _stop_timing_collections(self) -> None:
        with contextlib.suppress(ValueError):  # removed already (by the watchdog, or stop)
            gc.callbacks.remove(self._collecting)

    def _watch(self) -> None:
        # Each wake reads the threshold afresh (an app may have come or gone).
        while not self._running.acquire(True, _interval(self._threshold)):
            if self._culprit is None and time.monotonic() - self._due >= self._threshold:
                frame = sys._current_frames().get(self._loop_thread)
                if frame is None or self.loop.is_closed():
                    # The loop's thread ended, or its loop closed, with an app on it never
                    # stopped (a TestClient left open): nothing is left to watch, and a
                    # watchdog that went on waking would look for a culprit 20 times a second
                    # among every thread of the process, hundreds in a long test run.
                    self._forget()
                    return
                self._culprit = self._find_culprit(frame)

    def _forget(self) -> None:
        self._stop_timing_collections()
        with _watches_lock:
            if _watches.get(self.loop) is self:
                del _watches[self.loop]

    def _find_culprit(self, frame: FrameType | None) -> tuple[LoopMonitor, str] | None:
        """The innermost app's handler running in ``frame`` (the loop thread's) or under it."""
        monitors = self._monitors
        while frame is not None:
            # Newest first: where two apps on the loop own the same code (a test serving one
            # handler again while an app mounted earlier was never stopped), the app started
            # last is the one serving it.
            for monitor in reversed(monitors):
                label = monitor.codes.get(frame.f_code)
                if label is not None:
                    return monitor, label
            frame = frame.f_back
        return None


def _interval(threshold: float) -> float:
    # Half the threshold: a stall of 1.5x the threshold is always caught, and the watchdog
    # wakes (and takes the GIL) only 20 times a second at the default 100 ms.
    return threshold / 2
