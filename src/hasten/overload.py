"""Load shedding: past a limit a request gets 503 at once instead of waiting in a queue; past
a deadline, 504."""

from __future__ import annotations

import asyncio
from asyncio import FIRST_COMPLETED
from typing import TYPE_CHECKING, Any

import anyio

from hasten.errors import HTTPError, error_response
from hasten.event_loop import clock, until
from hasten.responses import Response
from hasten.types import Invoke

if TYPE_CHECKING:
    from hasten.requests import Request

__all__ = ["ConcurrencyLimit", "Deadline", "InFlight", "overloaded"]

RETRY_AFTER_SECONDS = "1"
DRAIN_POLL_SECONDS = 0.01


def overloaded(detail: str) -> HTTPError:
    """The 503 for a request refused under load: it tells the client when to come back."""
    return HTTPError(503, detail, {"retry-after": RETRY_AFTER_SECONDS})


class InFlight:
    """The app's requests in flight: past ``limit`` the serve step refuses, and shutdown waits
    until none is left. The serve step counts itself in and out (``count``); a request
    waiting for its body counts as ``waiting`` instead (see body_wait.py)."""

    __slots__ = ("closed", "count", "limit", "refused", "waiting")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0
        self.waiting = 0
        self.refused = 0
        self.closed = False

    def close(self) -> None:
        """Refuse every new request from now on (shutdown has begun)."""
        self.closed = True
        self.limit = 0

    def refuse(self) -> Response:
        """Count a refused request; the 503 it gets."""
        self.refused += 1
        if self.closed:
            return error_response(overloaded("The server is shutting down"))
        return error_response(
            overloaded(f"The server is at its limit of {self.limit} requests in flight")
        )

    async def drained(self, timeout: float) -> bool:
        """Wait until no request is in flight, at most ``timeout`` seconds; True if drained."""
        # perf: polled, so that leaving costs a request one decrement and nothing else.
        deadline = clock() + timeout
        while self.count > 0 or self.waiting > 0:
            if clock() >= deadline:
                return False
            await anyio.sleep(DRAIN_POLL_SECONDS)
        return True


class ConcurrencyLimit:
    """A route's ``max_concurrency``: at most ``limit`` of its requests run at once."""

    __slots__ = ("active", "invoke", "label", "limit")

    def __init__(self, invoke: Invoke, limit: int, label: str) -> None:
        self.invoke = invoke
        self.limit = limit
        self.label = label
        self.active = 0

    async def __call__(self, request: Request) -> Any:
        if self.active >= self.limit:
            raise overloaded(f"{self.label} is at its limit of {self.limit} concurrent requests")
        self.active += 1
        try:
            return await self.invoke(request)
        finally:
            self.active -= 1


class Deadline:
    """A route's ``timeout``: a handler still running after ``seconds`` gets a 504, and one
    whose client has gone away is stopped at once (there is no one left to answer).

    An ``async def`` handler is cancelled; a thread or process handler keeps running to its
    end, only its result is abandoned.
    """

    __slots__ = ("invoke", "seconds")

    def __init__(self, invoke: Invoke, seconds: float) -> None:
        self.invoke = invoke
        self.seconds = seconds

    async def __call__(self, request: Request) -> Any:
        if not request.context.on_asyncio:
            return await self._anyio(request)
        work = asyncio.ensure_future(self.invoke(request))
        gone = request.disconnected()
        try:
            done, _ = await asyncio.wait(
                (work, gone), timeout=self.seconds, return_when=FIRST_COMPLETED
            )
        finally:
            gone.cancel()
            if not work.done():
                work.cancel()
        if work in done:
            return work.result()  # its own exceptions too: a TimeoutError of its own is a 500
        if gone in done:
            raise HTTPError(499, "The client closed the request")  # nobody reads it
        raise HTTPError(504, f"The handler did not finish within {self.seconds} s")

    async def _anyio(self, request: Request) -> Any:
        """The same on another event loop than asyncio's (trio), with AnyIO's scopes."""
        with anyio.move_on_after(self.seconds):
            ended, result = await until(self.invoke(request), request._channel.client_disconnect)
            if ended:
                return result
            raise HTTPError(499, "The client closed the request")
        raise HTTPError(504, f"The handler did not finish within {self.seconds} s")
