"""SIGTERM, taken ahead of the server: a stop with an end, and a drain for apps with a
readiness endpoint.

A server stops listening as soon as it gets SIGTERM, then waits for its connections to end
before it stops the app: an endless stream kept it waiting for ever, past any grace period,
and its shutdown hooks never ran. So every app takes SIGTERM first:

- ``shutdown_timeout`` after it, what is still in flight is cut (logged by route, its
  connections closed): the server's wait ends, and the app's shutdown, which ends by the same
  deadline, runs its hooks;
- its WebSockets are closed with 1001 (going away) before the server hears of the signal,
  which would drop them without a close frame (Granian's ASGI) or with its own code (uvicorn's
  1012);
- an app with ``ready_url`` first closes its gate (every new request, readiness included,
  gets 503 + Retry-After) and waits for its requests in flight, so that a load balancer
  polling readiness sees a 503 rather than refused connections.

A second SIGTERM goes to the server at once.

The server's handler is found where the server put it: a ``signal.signal`` handler (uvicorn),
or one on the event loop (Granian). asyncio's loop keeps those in a private dict; uvloop's
keeps them out of Python's reach, so ``hasten run`` notes the handlers Granian puts on the
worker's loop as it puts them (``remember_signal_handlers``), whichever the loop.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from hasten._flow.in_flight import InFlight

__all__ = ["Stopping", "remember_signal_handlers", "stop_on_sigterm"]

logger = logging.getLogger("hasten.error")

Handler = tuple[Callable[..., Any], tuple[Any, ...]]
# The handlers each loop was given, by signal, since ``remember_signal_handlers``.
_remembered: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[int, Handler]] = (
    weakref.WeakKeyDictionary()
)


def remember_signal_handlers(loop: asyncio.AbstractEventLoop) -> None:
    """From now on, note each handler put on ``loop`` by ``add_signal_handler``, so that the
    drain can hand SIGTERM on to it, on a loop that keeps its handlers out of reach too.

    ``hasten run`` calls it in each Granian worker, before Granian puts its own handlers on
    the loop. It wraps the loop's method on this one loop object (uvloop's ``Loop``, as
    asyncio's, takes attributes): there is no other way in.
    """
    handlers = _remembered.setdefault(loop, {})
    add = loop.add_signal_handler

    def noting(signum: int, callback: Callable[..., Any], *args: Any) -> None:
        add(signum, callback, *args)
        handlers[signum] = (callback, args)

    loop.add_signal_handler = noting  # type: ignore[method-assign,assignment]


@dataclass(frozen=True, slots=True)
class Stopping:
    """How an app stops on SIGTERM: ``close`` what the server must not drop (its WebSockets)
    before the server hears of it, and ``cut`` what is still in flight ``timeout`` seconds
    after it; with ``drains``, close ``gate`` at once and wait for it to drain first."""

    gate: InFlight
    timeout: float
    drains: bool
    close: Callable[[], Awaitable[None]]
    cut: Callable[[], Awaitable[None]]


def stop_on_sigterm(stopping: Stopping) -> None:
    """Stand in front of the server's SIGTERM handler, on the running loop; nothing when
    there is none to stand in front of (no server, or not its main thread), and a warning
    when the server's handler is out of reach."""
    if threading.current_thread() is not threading.main_thread():
        return  # signals reach the main thread only (the TestClient runs elsewhere)
    loop = asyncio.get_running_loop()
    server_handler = _remembered.get(loop, {}).get(signal.SIGTERM) or _loop_handler(loop)
    if server_handler is not None:
        callback, args = server_handler
        stop = _Stop(stopping, lambda: callback(*args))
        loop.add_signal_handler(signal.SIGTERM, stop.signalled)
        return
    previous = signal.getsignal(signal.SIGTERM)
    if not callable(previous):
        return  # the default (die) or ignored: there is no server shutdown to delay
    if _registered_through(loop, previous):
        # The server's handler sits in an event loop that keeps it out of reach (uvloop's is
        # a C attribute): calling ``previous`` would not stop the server.
        logger.warning(
            "SIGTERM cannot be taken ahead of the server on %s, which keeps its signal "
            "handlers out of reach: shutdown_timeout will not bound the stop%s (serve with "
            "hasten run, or on asyncio's loop)",
            type(loop).__module__,
            ", nor will readiness turn 503 before the server stops listening"
            if stopping.drains
            else "",
        )
        return
    # uvicorn (and servers like it) use signal.signal: its handler is called with a frame.
    stop = _Stop(stopping, lambda: previous(signal.SIGTERM, None))
    signal.signal(signal.SIGTERM, lambda *_: loop.call_soon_threadsafe(stop.signalled))


def _loop_handler(loop: asyncio.AbstractEventLoop) -> Handler | None:
    """The handler ``loop.add_signal_handler`` registered for SIGTERM, or None.

    asyncio has no public way to read it: its loops keep them in the private
    ``_signal_handlers`` dict of Handles (``_callback``, ``_args``).
    tests/observing/test_drain.py fails loudly if a Python release moves them.
    """
    handlers = getattr(loop, "_signal_handlers", None)
    handle = handlers.get(signal.SIGTERM) if isinstance(handlers, dict) else None
    return None if handle is None else (handle._callback, handle._args)


def _registered_through(loop: asyncio.AbstractEventLoop, handler: Callable[..., Any]) -> bool:
    """Whether ``handler`` is only an event loop's stand-in for handlers it keeps itself:
    asyncio's no-op, or a method of the loop (uvloop's)."""
    stand_in_module = getattr(handler, "__module__", None) or ""
    return stand_in_module.startswith("asyncio.") or getattr(handler, "__self__", None) is loop


class _Stop:
    def __init__(self, stopping: Stopping, forward: Callable[[], None]) -> None:
        self.stopping = stopping
        self.forward = forward
        self.task: asyncio.Task[None] | None = None

    def signalled(self) -> None:
        if self.task is not None:  # a second SIGTERM: stop now
            self.task.cancel()
            self.forward()
            return
        gate = self.stopping.gate
        gate.deadline = asyncio.get_running_loop().time() + self.stopping.timeout
        if self.stopping.drains:
            gate.close()
        self.task = asyncio.ensure_future(self._stop(gate.deadline))

    async def _stop(self, deadline: float) -> None:
        stopping = self.stopping
        if stopping.drains:
            await stopping.gate.drained(stopping.timeout)
        await stopping.close()
        self.forward()
        await asyncio.sleep(deadline - asyncio.get_running_loop().time())
        await stopping.cut()
