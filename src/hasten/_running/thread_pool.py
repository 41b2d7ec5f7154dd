"""The app's thread pool: calls handed from the event loop to threads, and their results back,
made for that one job (``def`` handlers, sync dependencies, the steps of ``yield`` ones).

``loop.run_in_executor`` on a ThreadPoolExecutor cost a ``def`` route about 150,000
instructions of its 165,000: a concurrent.futures Future (a Condition and its lock, taken at
each state change), an asyncio future chained to it both ways (``wrap_future``), and one
``call_soon_threadsafe`` per result, each a write to the loop's self-pipe. Here:

- ``call`` (on the loop) puts the call, its asyncio future and the caller's context on a
  ``queue.SimpleQueue`` (C), which a parked thread takes;
- the thread runs it in that context and hands the outcome to the loop's ``Returns``, which
  wakes the loop only when no wake-up is on its way already: under load one wake-up settles
  every result that came in before the loop ran;
- on the loop, each future is set and its task resumes.

At most ``size`` threads, started as calls come and none is idle, each kept parked on the
queue until shutdown; a call beyond them waits in the queue for the first thread free. They
are daemon threads, which the interpreter's exit does not wait for: a thread that called into
its loop after the loop had stopped (a test's loop, run until its test ended) waits for an
answer that never comes, and ``concurrent.futures`` joins its pools' threads at exit, for
ever. The app's shutdown still waits for the calls it started (``shutdown``).
"""

from __future__ import annotations

import asyncio
import collections
import functools
import os
import queue
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future
from contextvars import Context, copy_context
from typing import Any

import anyio.lowlevel

from hasten._running.threads import ThreadHandoff

__all__ = ["ThreadPool"]

# One call: its future, where its outcome goes (None: a concurrent.futures Future, set by the
# thread), the caller's context, the function and its arguments.
Call = tuple[Any, "Returns | None", Context, Callable[..., Any], tuple[Any, ...], dict[str, Any]]
# What a call came to: its future, its result, or the error it raised.
Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]


class Returns:
    """Outcomes of calls made from one event loop, handed back to it: each thread adds its
    outcome, and the first to find no wake-up on its way asks for one.

    The wake-up is a byte on a pipe the loop watches (``add_reader``), read once when the loop
    settles: asyncio's own ``call_soon_threadsafe`` makes a Handle per call and reads its
    self-pipe until recv() fails, which alone cost about 7,000 instructions a wake-up (the
    BlockingIOError, its message decoded from the locale). A loop that cannot watch a pipe
    (Windows' proactor) is woken by ``call_soon_threadsafe``."""

    __slots__ = ("__weakref__", "_pipe", "loop", "outcomes", "wake", "woken")

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        # Each thread appends its outcome (future, result, error), then, if ``woken`` is
        # clear, sets it and calls ``wake`` (see ``_serve``).
        self.outcomes: collections.deque[Outcome] = collections.deque()
        # Whether a wake-up is on its way: set by a thread, cleared by the loop once it has
        # read the wake-up and before it reads the outcomes. Two threads may both find it
        # clear: a second byte, read with the first; none is ever missed.
        self.woken = False
        self._pipe: tuple[int, int] | None = _watched_pipe(loop, self._settle)
        self.wake: Callable[[], Any]
        if self._pipe is None:
            self.wake = functools.partial(loop.call_soon_threadsafe, self._settle)
        else:
            self.wake = functools.partial(os.write, self._pipe[1], b"\0")
            weakref.finalize(self, _close_pipe, self._pipe)

    def _settle(self) -> None:
        """On the loop: set every future whose outcome has come."""
        if self._pipe is not None:
            os.read(self._pipe[0], 64)
        self.woken = False
        outcomes = self.outcomes
        while outcomes:
            future, result, error = outcomes.popleft()
            if future.cancelled():  # its awaiter went (a deadline): the thread ran it anyway
                continue
            if error is None:
                future.set_result(result)
            else:
                future.set_exception(error)

    def close(self) -> None:
        """Stop watching the pipe (the threads that wrote to it have ended)."""
        if self._pipe is not None and not self.loop.is_closed():
            self.loop.remove_reader(self._pipe[0])


def _watched_pipe(
    loop: asyncio.AbstractEventLoop, settle: Callable[[], None]
) -> tuple[int, int] | None:
    """A pipe, both ends non-blocking, whose reading end ``loop`` watches with ``settle``;
    None where the loop cannot watch one."""
    pipe = os.pipe()
    for end in pipe:
        os.set_blocking(end, False)
    try:
        loop.add_reader(pipe[0], settle)
    except NotImplementedError:
        _close_pipe(pipe)
        return None
    return pipe


def _close_pipe(pipe: tuple[int, int]) -> None:
    for end in pipe:
        os.close(end)


class ThreadPool(ThreadHandoff):
    """At most ``size`` threads, started on demand, named after hasten for stack dumps.

    Made on a running event loop, its threads are AnyIO worker threads of that loop, as
    Starlette's threads are: code on them may call back into the loop with
    ``anyio.from_thread.run(...)`` and ``run_sync(...)``. A pool dropped without
    ``shutdown`` ends its threads once collected, as a ThreadPoolExecutor does.
    """

    def __init__(self, size: int) -> None:
        self.size = size
        self._calls: queue.SimpleQueue[Call | None] = queue.SimpleQueue()
        # One token per thread that is going back to the queue after its call: a call that
        # takes one needs no new thread. (A thread that takes a waiting call leaves its
        # token behind; that happens only with every thread busy, when no thread can be
        # started anyway.)
        self._idle: queue.SimpleQueue[None] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._starting = threading.Lock()
        self._shut = False
        self._claim = _loop_worker()
        # The loop calls come from, and where their outcomes go (see ``_returns_for``).
        self._returns: Returns | None = None
        self._by_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Returns] = (
            weakref.WeakKeyDictionary()
        )
        # The threads hold no reference to the pool: collected, it ends them.
        self._end = weakref.finalize(self, _end_threads, self._calls, self._threads)

    def call(self, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> asyncio.Future[Any]:
        """``func(*args, **kwargs)`` on a thread, in the caller's context: a future of the
        running loop for its result."""
        loop = asyncio.get_running_loop()
        returns = self._returns
        if returns is None or returns.loop is not loop:
            returns = self._returns_for(loop)
        future = loop.create_future()
        # perf: ``_put`` written out, a frame less per call.
        if self._shut:
            raise RuntimeError("cannot submit to a thread pool that has shut down")
        self._calls.put((future, returns, copy_context(), func, args, kwargs))
        self._claim_thread()
        return future

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """``Executor.submit``: a concurrent.futures Future, for code that is not on the loop
        (the call runs in a copy of the submitter's context, as ``call``'s)."""
        future: Future[Any] = Future()
        self._put((future, None, copy_context(), fn, args, kwargs))
        return future

    def _put(self, call: Call) -> None:
        if self._shut:
            raise RuntimeError("cannot submit to a thread pool that has shut down")
        self._calls.put(call)
        self._claim_thread()

    def _claim_thread(self) -> None:
        """A thread for the call just put: an idle one's token, else a new thread."""
        idle = self._idle
        if idle.qsize():
            try:
                idle.get_nowait()
            except queue.Empty:  # another loop's call took it first
                self._start()
            return
        self._start()

    def _start(self) -> None:
        """A thread more, if there are fewer than ``size``: else the call waits for one."""
        with self._starting:
            if len(self._threads) >= self.size or self._shut:
                return
            thread = threading.Thread(
                target=_serve,
                args=(self._calls, self._idle, self._claim),
                name=f"hasten-thread_{len(self._threads)}",
                daemon=True,
            )
            thread.start()
            self._threads.append(thread)

    def _returns_for(self, loop: asyncio.AbstractEventLoop) -> Returns:
        """Where outcomes of calls from ``loop`` go; nearly always one loop per pool, the
        last one's kept at hand."""
        returns = self._by_loop.get(loop)
        if returns is None:
            returns = self._by_loop[loop] = Returns(loop)
        self._returns = returns
        return returns

    @property
    def queued(self) -> int:
        """Calls waiting for a free thread."""
        return self._calls.qsize()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """No call is taken after this; the calls waiting still run (an app's belong to the
        requests its shutdown drains: ``cancel_futures`` is not taken), then every thread
        ends, waited for where ``wait``."""
        with self._starting:
            self._shut = True
            threads = list(self._threads)
        self._end()
        if wait:
            for thread in threads:
                thread.join()
            for returns in list(self._by_loop.values()):
                returns.close()


def _serve(
    calls: queue.SimpleQueue[Call | None],
    idle: queue.SimpleQueue[None],
    claim: Callable[[], None] | None,
) -> None:
    """A thread's life: take a call, run it, hand its outcome back, until told to end."""
    if claim is not None:
        claim()
    take, parked = calls.get, idle.put
    while (call := take()) is not None:
        future, returns, context, func, args, kwargs = call
        if returns is None:
            _settle_here(future, context, func, args, kwargs)
            parked(None)
        elif future.cancelled():  # taken back before it started (a deadline)
            parked(None)
        else:
            try:
                outcome: Outcome = (future, context.run(func, *args, **kwargs), None)
            except BaseException as exc:  # the awaiter gets it
                outcome = (future, None, _awaitable_error(exc))
            # Free again, said before the outcome is handed back, so that a call the loop
            # makes on seeing it finds this thread idle rather than starting another.
            parked(None)
            # Handed back (perf: written out here, a frame less per call than a method).
            returns.outcomes.append(outcome)
            if not returns.woken:
                returns.woken = True
                # perf: a try costs nothing where nothing is raised, contextlib.suppress an
                # object.
                try:  # noqa: SIM105
                    returns.wake()
                except (RuntimeError, OSError):  # the loop closed: nobody awaits the future
                    pass
            del outcome
        # Hold nothing of a request's while parked.
        del call, future, returns, context, func, args, kwargs


def _end_threads(calls: queue.SimpleQueue[Call | None], threads: list[threading.Thread]) -> None:
    """Tell each thread to end once the calls before it are done."""
    for _ in threads:
        calls.put(None)


def _settle_here(
    future: Future[Any],
    context: Context,
    func: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
) -> None:
    """A ``submit``-ted call, its concurrent.futures Future set on the thread."""
    if not future.set_running_or_notify_cancel():
        return
    try:
        result = context.run(func, *args, **kwargs)
    except BaseException as exc:  # the future's holder gets it
        future.set_exception(exc)
    else:
        future.set_result(result)


def _awaitable_error(exc: BaseException) -> BaseException:
    """StopIteration cannot be set on an asyncio future: a RuntimeError from it instead, as a
    coroutine that raises it raises (and as AnyIO's threads hand it back)."""
    if isinstance(exc, StopIteration):
        error = RuntimeError("coroutine raised StopIteration")
        error.__cause__ = exc
        return error
    return exc


def _loop_worker() -> Callable[[], None] | None:
    """What makes a new thread an AnyIO worker thread of the running loop (None off a loop).

    AnyIO finds its loop from such a thread in a thread-local, which only its own worker
    threads set: set here the same way (``anyio._core``; tests/running/test_pools.py holds it)."""
    try:
        token = anyio.lowlevel.current_token()
    except RuntimeError:  # made off a running loop (NoEventLoopError): none to call back into
        return None
    from anyio._core._eventloop import threadlocals

    def claim() -> None:
        threadlocals.current_token = token

    return claim
