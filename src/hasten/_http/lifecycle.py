"""What is left of a request for after its response: ``yield`` dependencies' exits, background
tasks, uploaded files.

A ``Cleanup`` hangs on a connection that leaves something behind; the serve step runs it once
the response is sent, with the request still counted in flight, so shutdown drains it too.
"""

from __future__ import annotations

import logging
from concurrent.futures import Executor
from typing import Protocol, TypeVar

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
    dependencies, its background tasks, and its uploaded files. A request without any never
    has one. ``connection.cleanup_of`` makes it."""

    __slots__ = ("exits", "form", "tasks", "threads")
    threads: Executor | None
    exits: list[Exit]
    tasks: BackgroundTasks | None
    form: Closing | None  # the request's form: its uploaded files are closed last

    async def after_response(self) -> None:
        """Background tasks, then each generator's code after ``yield`` (last first), then
        the uploaded files are closed; every failure is logged, none raised. Each runs once:
        what is left after it is nothing to do."""
        # perf: one coroutine for all three, as a request with a yield dependency runs it.
        try:
            if self.tasks is not None:
                tasks, self.tasks = self.tasks, None
                await run_tasks(tasks, self.threads)
            while self.exits:
                done = self.exits.pop()
                generator, is_async, name = done
                try:
                    # perf: ``advance(done, self.threads)`` written out, a frame less for
                    # every request with a yield dependency; tests/test_perf_copies.py holds
                    # them equal.
                    await (generator.__anext__() if is_async else finish(self.threads, generator))
                except StopAsyncIteration:
                    continue
                except Exception as exc:
                    logger.error("The cleanup of dependency %s failed", name, exc_info=exc)
                    report_unhandled(exc)  # a TestClient raises it, as Starlette's does
                    continue
                logger.error("Dependency %s yielded more than once", name)
                await close_exit(done, self.threads)
        finally:
            if self.form is not None:
                form, self.form = self.form, None
                await form.close()

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
                # response (a handler of it may read them), and close after it is sent.
                form, self.form = self.form, None
                try:
                    await self.after_response()
                finally:  # cancelled or not, the files are still closed after the response
                    self.form = form
                return FastAPIError(SWALLOWED)
            except BaseException as raised:
                exc = raised
                continue
            _, _, name = done
            logger.error("Dependency %s yielded again after an exception", name)
            await close_exit(done, self.threads)
        return exc
