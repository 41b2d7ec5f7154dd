"""Load shedding: past a limit a request gets 503 at once instead of waiting in a queue; past
a deadline, 504."""

from __future__ import annotations

import asyncio

from .errors import HTTPError
from .requests import Request
from .responses import JSONResponse, Response
from .types import Handler

__all__ = ["ConcurrencyLimit", "Deadline", "InFlight", "overloaded"]

RETRY_AFTER_SECONDS = "1"


def overloaded(detail: str) -> HTTPError:
    """The 503 for a request refused under load: it tells the client when to come back."""
    return HTTPError(503, detail, {"retry-after": RETRY_AFTER_SECONDS})


class InFlight:
    """Counts the app's requests in flight, refuses past ``limit``, and lets shutdown wait
    until the count drains to zero."""

    __slots__ = ("_idle", "closed", "count", "limit", "refused")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self.refused = 0
        self.closed = False
        self._idle: asyncio.Event | None = None

    def close(self) -> None:
        """Refuse every new request from now on (shutdown has begun)."""
        self.closed = True
        self.limit = 0

    def try_enter(self) -> bool:
        if self.count >= self.limit:
            return False
        self.count += 1
        return True

    def leave(self) -> None:
        self.count -= 1
        if self.count == 0 and self._idle is not None:
            self._idle.set()

    def refuse(self) -> Response:
        """Count a refused request; the 503 it gets."""
        self.refused += 1
        if self.closed:
            error = overloaded("The server is shutting down")
        else:
            error = overloaded(f"The server is at its limit of {self.limit} requests in flight")
        return JSONResponse({"detail": error.detail}, 503, error.headers)

    async def drained(self, timeout: float) -> bool:
        """Wait until no request is in flight, at most ``timeout`` seconds; True if drained."""
        if self.count == 0:
            return True
        self._idle = asyncio.Event()
        try:
            async with asyncio.timeout(timeout):
                await self._idle.wait()
        except TimeoutError:
            return False
        finally:
            self._idle = None
        return True


class ConcurrencyLimit:
    """A route's ``max_concurrency``: at most ``limit`` of its requests run at once."""

    __slots__ = ("active", "handler", "label", "limit")

    def __init__(self, handler: Handler, limit: int, label: str) -> None:
        self.handler = handler
        self.limit = limit
        self.label = label
        self.active = 0

    async def __call__(self, request: Request) -> Response:
        if self.active >= self.limit:
            raise overloaded(f"{self.label} is at its limit of {self.limit} concurrent requests")
        self.active += 1
        try:
            return await self.handler(request)
        finally:
            self.active -= 1


class Deadline:
    """A route's ``timeout``: a handler still running after ``seconds`` gets a 504.

    A thread or process handler keeps running to its end; only its response is abandoned.
    """

    __slots__ = ("handler", "seconds")

    def __init__(self, handler: Handler, seconds: float) -> None:
        self.handler = handler
        self.seconds = seconds

    async def __call__(self, request: Request) -> Response:
        deadline = asyncio.timeout(self.seconds)
        try:
            async with deadline:
                return await self.handler(request)
        except TimeoutError:
            if not deadline.expired():
                raise  # the handler's own TimeoutError: a 500 like any other exception
            raise HTTPError(504, f"The handler did not finish within {self.seconds} s") from None
