"""Requests waiting for their body: out of the in-flight count, and held to ``body_timeout``.

A client that sends its headers, then its body slowly or never, must not hold a slot of
``max_in_flight``. A sweeper on the loop, a few times a second, moves each read of body bytes
that has waited since its last look out of the in-flight count (to ``waiting``), and cancels
each read that has waited past ``body_timeout``; the read turns that cancellation into a 408,
and a read that ends counts in flight again. No timer is made per read, and a read that
does not wait costs one dict entry.

What is cancelled is what the read waits on: Granian's future for a whole body (the usual
JSON body), else the task reading chunks.
"""

from __future__ import annotations

import asyncio
from time import monotonic
from typing import TYPE_CHECKING, Any, Protocol

from hasten._http.errors import HTTPError

if TYPE_CHECKING:
    from hasten._flow.in_flight import InFlight

__all__ = ["BodyWait", "Cancellable", "Unswept"]


class Cancellable(Protocol):
    """A future, or the task, that a read of body bytes waits on."""

    def cancel(self, msg: Any = None) -> bool: ...


class Unswept:
    """What stands for a read of body bytes on another event loop than asyncio's (trio),
    where no sweeper runs: nothing cancels it."""

    __slots__ = ()

    def cancel(self, msg: Any = None) -> bool:
        return False


SWEEPS_PER_TIMEOUT = 4
LONGEST_SWEEP_INTERVAL = 0.25  # how long a waiting read may hold its in-flight slot


class BodyWait:
    """The body reads of one app under way; ``timeout`` is ``body_timeout``."""

    __slots__ = ("_expired", "_gate", "_handle", "out", "reads", "timeout")

    def __init__(self, gate: InFlight, timeout: float | None) -> None:
        self._gate = gate
        self.timeout = timeout
        self.reads: dict[Cancellable, float] = {}  # each read, and when its body was first read
        self.out: set[Cancellable] = set()  # the reads moved out of the in-flight count
        self._expired: set[Cancellable] = set()
        self._handle: asyncio.TimerHandle | None = None

    def start(self) -> None:
        """Start the sweeper on the running loop (call from the loop's thread)."""
        self._schedule(asyncio.get_running_loop())

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def enter(self, read: Cancellable, since: float) -> None:
        """A read of body bytes begins, for a body first read at ``since`` (monotonic)."""
        self.reads[read] = since

    def leave(self, read: Cancellable) -> None:
        """The read is over."""
        del self.reads[read]
        if self.out:
            self.back(read)

    def back(self, read: Cancellable) -> None:
        """A read that has ended counts in flight again, if the sweeper moved it out."""
        if read in self.out:
            self.out.discard(read)
            gate = self._gate
            gate.waiting -= 1
            gate.count += 1

    def timed_out(self, read: Cancellable) -> HTTPError | None:
        """The 408 if the cancellation the read got was the sweeper's (a task's is then
        taken back); None if it came from elsewhere and must go on."""
        if read not in self._expired:
            return None
        self._expired.discard(read)
        if isinstance(read, asyncio.Task):
            read.uncancel()
        return HTTPError(
            408, f"The request body did not arrive within {self.timeout} s", {"connection": "close"}
        )

    def _schedule(self, loop: asyncio.AbstractEventLoop) -> None:
        interval = LONGEST_SWEEP_INTERVAL
        if self.timeout is not None:
            interval = min(self.timeout / SWEEPS_PER_TIMEOUT, interval)
        self._handle = loop.call_later(interval, self._sweep, loop)

    def _sweep(self, loop: asyncio.AbstractEventLoop) -> None:
        gate, out = self._gate, self.out
        expired = monotonic() - self.timeout if self.timeout is not None else None
        for read, since in self.reads.items():
            if read not in out:  # it has waited since the last sweep at least
                out.add(read)
                gate.count -= 1
                gate.waiting += 1
            if expired is not None and since <= expired and read not in self._expired:
                self._expired.add(read)
                read.cancel()
        self._schedule(loop)
