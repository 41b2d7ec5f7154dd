"""The app's requests in flight: the count the serve step keeps, the limit past which a request
is refused at once (503), and the wait for none to be left at shutdown."""

from __future__ import annotations

import anyio

from hasten._http.errors import HTTPError
from hasten._running.event_loop import clock

__all__ = ["InFlight", "overloaded"]


RETRY_AFTER_SECONDS = "1"


DRAIN_POLL_SECONDS = 0.01


def overloaded(detail: str) -> HTTPError:
    """The 503 for a request refused under load: it tells the client when to come back."""
    return HTTPError(503, detail, {"retry-after": RETRY_AFTER_SECONDS})


class InFlight:
    """The app's requests in flight: past ``limit`` the serve step refuses, and shutdown waits
    until none is left. The serve step counts itself in and out (``count``); a request
    waiting for its body counts as ``waiting`` instead (see body_wait.py)."""

    __slots__ = ("closed", "count", "cut", "deadline", "limit", "refused", "waiting")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self.waiting = 0
        self.refused = 0
        self.closed = False
        # When the stop under way must be over (the loop's clock): set by SIGTERM, which
        # begins it before the server asks the app to shut down; and whether what was in
        # flight then has been cut (see hasten._serve.stopping).
        self.deadline: float | None = None
        self.cut = False

    def close(self) -> None:
        """Refuse every new request from now on (shutdown has begun)."""
        self.closed = True
        self.limit = 0

    def refuse(self) -> HTTPError:
        """Count a refused request; the 503 it gets."""
        self.refused += 1
        if self.closed:
            return overloaded("The server is shutting down")
        return overloaded(f"The server is at its limit of {self.limit} requests in flight")

    async def drained(self, timeout: float) -> bool:
        """Wait until no request is in flight, at most ``timeout`` seconds; True if drained."""
        # perf: polled, so that leaving costs a request one decrement and nothing else.
        deadline = clock() + timeout
        while self.count > 0 or self.waiting > 0:
            if clock() >= deadline:
                return False
            await anyio.sleep(DRAIN_POLL_SECONDS)
        return True
