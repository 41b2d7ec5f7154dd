"""What a server is to an app, for one TestClient: it starts the app, serves its requests and
WebSockets on the shared loop, and stops the run of the app it started (or entered with
``with``) when it closes, or when it is garbage-collected unclosed.

Several clients may serve one app (a test module's client and a test's own): the app runs
once, whoever started it, and a stop in progress is waited for before the next start. Any
other ASGI callable is served as Starlette's TestClient serves it: its lifespan runs only
within ``with``.
"""

from __future__ import annotations

import asyncio
import weakref
from typing import TYPE_CHECKING, Protocol

from hasten._http.debug import rendered_templates
from hasten._http.errors import unhandled_exceptions
from hasten.testing.exchange import Pipe, Result, Wire
from hasten.testing.loop import LoopThread

if TYPE_CHECKING:
    from hasten._serve.runtime import Runtime
    from hasten.app import Starlette

__all__ = ["ASGIServer", "Exchange", "Server", "Serving"]


class Driver(Protocol):
    """How one protocol serves the app: RSGIDriver or ASGIDriver."""

    async def start(self) -> None: ...

    async def stop(self, current: bool) -> None:
        """Stop the app if ``current`` (its run is still the one this driver started), else
        only let go of what this driver holds of that run."""

    async def send(self, wire: Wire, result: Result) -> None: ...

    async def websocket(self, wire: Wire, pipe: Pipe) -> None: ...


# The stop in progress of each app, whichever client began it: a request waits for it and
# starts the app again, rather than reach a run that is draining.
_stopping: weakref.WeakKeyDictionary[Starlette, asyncio.Task[object]] = weakref.WeakKeyDictionary()


async def _stopped(app: Starlette) -> None:
    while (stop := _stopping.get(app)) is not None:
        await asyncio.wait([stop])


class Exchange:
    """One HTTP request in flight: what the app has sent, what it failed to handle (an
    exception that escaped it comes last), and the task that serves it."""

    task: asyncio.Task[None]

    def __init__(self, result: Result) -> None:
        self.result = result
        self.failures: list[BaseException] = []

    async def close(self) -> None:
        """The client is done with the response: an app still sending it is cancelled, as
        when a client leaves; one that has sent it all is waited for (its background)."""
        if not self.result.complete:
            self.task.cancel()
        await asyncio.wait([self.task])

    async def abort(self) -> None:
        """The client is closing: the app is cancelled, whatever it is doing."""
        self.task.cancel()
        await asyncio.wait([self.task])


class Serving:
    """One TestClient's server, on the shared loop (every coroutine here runs there): its
    requests and WebSockets; when the app starts and stops is the subclass's."""

    def __init__(self, driver: Driver, loop: LoopThread) -> None:
        self.driver = driver
        self.loop = loop

    async def ensure_started(self) -> None:
        """Start the app, if it must start before a request."""

    async def enter(self) -> None:
        """Start the app, and stop it when this client leaves its ``with`` block."""

    async def stop(self, whoever_started: bool = False) -> None:
        """Stop what this client started or entered."""

    def release(self) -> None:
        """The client was garbage-collected unclosed: stop its run in the background."""

    async def open(self, wire: Wire) -> Exchange:
        """Start serving one HTTP request; returned once the app has sent the response's
        head (or returned without one)."""
        await self.ensure_started()
        exchange = Exchange(Result(streamed=True))
        exchange.task = asyncio.create_task(self._serve(wire, exchange))
        try:
            await exchange.result.started.wait()
        except BaseException:  # the client gave up waiting (its timeout): the app stops too
            await exchange.abort()
            raise
        return exchange

    async def _serve(self, wire: Wire, exchange: Exchange) -> None:
        unhandled_exceptions.set(exchange.failures)  # this request's task only
        rendered_templates.set(exchange.result.templates)
        try:
            await self.driver.send(wire, exchange.result)
        except Exception as exc:
            exchange.failures.append(exc)
        finally:
            exchange.result.end()  # whatever the app left unsent will not come

    async def websocket(
        self, wire: Wire, pipe: Pipe, failures: list[BaseException]
    ) -> asyncio.Task[None]:
        """Start serving one WebSocket; the task ends with the app's side of it."""
        await self.ensure_started()
        return asyncio.create_task(self._websocket(wire, pipe, failures))

    async def _websocket(self, wire: Wire, pipe: Pipe, failures: list[BaseException]) -> None:
        unhandled_exceptions.set(failures)
        try:
            await self.driver.websocket(wire, pipe)
        except Exception as exc:
            failures.append(exc)


class Server(Serving):
    """A hasten app's: started by its first request or ``with``, the run shared by every
    client of the app."""

    def __init__(self, app: Starlette, driver: Driver, loop: LoopThread) -> None:
        super().__init__(driver, loop)
        self.app = app
        self.run: Runtime | None = None  # the run this client started or entered
        self._starting = asyncio.Lock()

    async def ensure_started(self) -> None:
        # The app's first request starts it, as on a server without lifespan.
        await _stopped(self.app)
        if self.app.runtime is not None:
            return
        async with self._starting:
            if self.app.runtime is None:
                await self.driver.start()
                self.run = self.app.runtime

    async def enter(self) -> None:
        await self.ensure_started()
        self.run = self.app.runtime

    async def stop(self, whoever_started: bool = False) -> None:
        # The run this client started or entered, if it still runs; with
        # ``whoever_started``, the app's run whoever started it.
        await _stopped(self.app)
        this = asyncio.current_task()
        assert this is not None
        _stopping[self.app] = this
        try:
            run, self.run = self.run, None
            running = self.app.runtime
            current = running is not None and (whoever_started or running is run)
            await self.driver.stop(current)
        finally:
            if _stopping.get(self.app) is this:
                del _stopping[self.app]

    def release(self) -> None:
        if self.run is not None and not self.loop.loop.is_closed():
            self.loop.spawn(self.stop())


class ASGIServer(Serving):
    """Any other ASGI callable's, as Starlette's TestClient serves it: each request goes to
    it as it is, and its lifespan runs only from ``with`` to the block's end."""

    def __init__(self, driver: Driver, loop: LoopThread) -> None:
        super().__init__(driver, loop)
        self.entered = False

    async def enter(self) -> None:
        if not self.entered:
            await self.driver.start()
            self.entered = True

    async def stop(self, whoever_started: bool = False) -> None:
        if self.entered:
            self.entered = False
            await self.driver.stop(True)

    def release(self) -> None:
        if self.entered and not self.loop.loop.is_closed():
            self.loop.spawn(self.stop())
