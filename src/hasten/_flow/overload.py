"""A route's own limits: past ``max_concurrency`` a request gets 503 at once instead of waiting
in a queue; past its ``timeout``, 504. (The app's limit of requests in flight: in_flight.py.)"""

from __future__ import annotations

import asyncio
from asyncio import FIRST_COMPLETED
from typing import TYPE_CHECKING, Any

import anyio

from hasten._flow.contracts import Invoke
from hasten._flow.in_flight import overloaded
from hasten._http.errors import HTTPError
from hasten._running.event_loop import until

if TYPE_CHECKING:
    from hasten._http.requests import Request

__all__ = ["ConcurrencyLimit", "Deadline"]


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
