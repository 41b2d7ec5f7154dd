"""What is left of a request for after its response: ``yield`` dependencies' exits, background
tasks, uploaded files.

A ``Cleanup`` hangs on a connection that leaves something behind; the serve step runs it once
the response is sent, with the request still counted in flight, so shutdown drains it too.
"""

from __future__ import annotations

import logging
import sys
from concurrent.futures import Executor
from typing import Protocol, TypeVar

import anyio
from anyio.lowlevel import checkpoint_if_cancelled

from hasten._http.background import BackgroundTasks, run_tasks
from hasten._http.errors import SWALLOWED, FastAPIError, report_unhandled
from hasten._running.threads import Exit, advance, close_exit, finish

__all__ = ["Cleanup", "Closing"]

logger = logging.getLogger("hasten.error")
T = TypeVar("T")
_new = object.__new__


class Closing(Protocol):
    """What is closed after a request's response: its form (``FormData``), which closes its
    uploaded files."""

    async def close(self) -> None: ...


class Cleanup:
    """What a request leaves for after its response: the exits of its ``yield``
    dependencies, its background tasks, and its uploaded files; on a route that needs it,
    the guard its dependencies' cleanup runs under (``connection.guard_of``). A request
    without any never has one. ``connection.cleanup_of`` makes it."""

    __slots__ = ("exits", "form", "guard", "tasks", "threads")
    threads: Executor | None
    exits: list[Exit]
    tasks: BackgroundTasks | None
    form: Closing | None  # the request's form: its uploaded files are closed last
    guard: anyio.CancelScope | None

    async def after_response(self) -> Exception | None:
        """Background tasks, then each generator's code after ``yield`` (last first), then
        the uploaded files are closed, then the guard is left; every failure is logged, none
        raised: the first is returned. Each runs once: what is left after it is nothing to
        do. The tasks may be cancelled; what comes after them runs under the guard,
        shielded."""
        # perf: one coroutine for all of it, as a request with a yield dependency runs it.
        first: Exception | None = None
        try:
            if self.tasks is not None:
                tasks, self.tasks = self.tasks, None
                first = await run_tasks(tasks, self.threads)
        finally:
            guard = self.guard
            ended = False  # whether generators end here (not thrown an exception before)
            if guard is not None:
                guard.shield = True
                ended = bool(self.exits)
            try:
                while self.exits:
                    done = self.exits.pop()
                    generator, is_async, name = done
                    try:
                        # perf: ``advance(done, self.threads)`` written out, a frame less for
                        # every request with a yield dependency; tests/project/test_perf_copies.py
                        # holds them equal.
                        await (
                            generator.__anext__() if is_async else finish(self.threads, generator)
                        )
                    except StopAsyncIteration:
                        continue
                    except Exception as exc:  # thrown into the generators before it
                        failure = await self._failed(exc, name)
                        first = first or failure
                        break
                    logger.error("Dependency %s yielded more than once", name)
                    await close_exit(done, self.threads)
            finally:
                try:
                    if self.form is not None:
                        form, self.form = self.form, None
                        await form.close()
                finally:
                    if guard is not None:
                        await self._leave(guard, ended)
        return first

    async def _failed(self, failure: Exception, failed: str) -> Exception | None:
        """A generator's cleanup (``failed``'s) raised ``failure``: it is thrown into those
        before it (last first), as FastAPI's exit stack does; one may replace it by raising
        another, or swallow it (those before that one end as usual). The one left is logged,
        and returned for the TestClient (or the ASGI server), as Starlette's are."""
        current: Exception | None = failure
        while self.exits:
            done = self.exits.pop()
            try:
                await advance(done, self.threads, current)
            except StopAsyncIteration:
                current = None  # it ended: what was thrown into it, it swallowed
                continue
            except Exception as exc:
                if exc is not current:
                    current, failed = exc, done[2]
                continue
            logger.error("Dependency %s yielded more than once", done[2])
            await close_exit(done, self.threads)
        if current is not None:
            logger.error("The cleanup of dependency %s failed", failed, exc_info=current)
            report_unhandled(current)
        return current

    async def _leave(self, guard: anyio.CancelScope, ended: bool) -> None:
        """Leave the guard, its work done. Where generators ``ended`` here, a cancellation
        the guard held off comes now, as FastAPI lets it come once a dependency's cleanup
        has ended (a task group a dependency held may have caught it while the guard was
        shielded); where they were thrown the request's exception, that one goes on."""
        self.guard = None
        guard.shield = False
        left = sys.exception()
        guard.__exit__(type(left) if left else None, left, None)
        if ended and left is None:
            await checkpoint_if_cancelled()

    async def unwind(self, exc: BaseException) -> BaseException:
        """The request failed with ``exc``: throw it into each generator (last first). A
        generator may replace it by raising another; the one left is what the client sees.
        One that swallows it leaves the request without a response: FastAPIError, as
        FastAPI's (the generators before it end as after a response)."""
        self.tasks = None  # a failed request runs no background task
        while self.exits:
            done = self.exits.pop()
            try:
                await advance(done, self.threads, exc)
            except StopAsyncIteration:
                if not isinstance(exc, Exception):  # cancelled: the request is gone anyway
                    continue
                # The generators before it end now; the files stay open for the error
                # response (a handler of it may read them), and close after it is sent, as
                # the guard is left then (this runs under it).
                form, self.form = self.form, None
                guard, self.guard = self.guard, None
                try:
                    await self.after_response()
                finally:  # cancelled or not, the files are still closed after the response
                    self.form, self.guard = form, guard
                return FastAPIError(SWALLOWED)
            except BaseException as raised:
                exc = raised
                continue
            _, _, name = done
            logger.error("Dependency %s yielded again after an exception", name)
            await close_exit(done, self.threads)
        return exc
