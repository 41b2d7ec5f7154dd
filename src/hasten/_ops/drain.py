"""Draining on SIGTERM, for apps with a readiness endpoint: readiness turns 503 at once.

A server stops listening as soon as it gets SIGTERM, and stops the app only once its requests
in flight are done: a load balancer polling readiness would never see a 503, only refused
connections. So an app with ``ready_url`` takes SIGTERM first: it closes its gate (every new
request, readiness included, gets 503 + Retry-After), waits for the requests in flight (up to
``shutdown_timeout``), then hands the signal to the server, which stops as it always does.
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
from collections.abc import Callable
from typing import Any

from hasten._http.in_flight import InFlight

__all__ = ["drain_on_sigterm", "remember_signal_handlers"]

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


def drain_on_sigterm(gate: InFlight, timeout: float) -> None:
    """Put the drain in front of the server's SIGTERM handler, on the running loop; nothing
    when there is none to put it in front of (no server, or not its main thread), and a
    warning when the server's handler is out of reach."""
    if threading.current_thread() is not threading.main_thread():
        return  # signals reach the main thread only (the TestClient runs elsewhere)
    loop = asyncio.get_running_loop()
    server_handler = _remembered.get(loop, {}).get(signal.SIGTERM) or _loop_handler(loop)
    if server_handler is not None:
        callback, args = server_handler
        drain = _Drain(gate, timeout, lambda: callback(*args))
        loop.add_signal_handler(signal.SIGTERM, drain.signalled)
        return
    previous = signal.getsignal(signal.SIGTERM)
    if not callable(previous):
        return  # the default (die) or ignored: there is no server shutdown to delay
    if _registered_through(loop, previous):
        # The server's handler sits in an event loop that keeps it out of reach (uvloop's is
        # a C attribute): calling ``previous`` would not stop the server.
        logger.warning(
            "ready_url: SIGTERM cannot be taken ahead of the server on %s, which keeps its "
            "signal handlers out of reach: readiness will not turn 503 before the server "
            "stops listening (serve with hasten run, or on asyncio's loop, for the drain)",
            type(loop).__module__,
        )
        return
    # uvicorn (and servers like it) use signal.signal: its handler is called with a frame.
    drain = _Drain(gate, timeout, lambda: previous(signal.SIGTERM, None))
    signal.signal(signal.SIGTERM, lambda *_: loop.call_soon_threadsafe(drain.signalled))


def _loop_handler(loop: asyncio.AbstractEventLoop) -> Handler | None:
    """The handler ``loop.add_signal_handler`` registered for SIGTERM, or None.

    asyncio has no public way to read it: its loops keep them in the private
    ``_signal_handlers`` dict of Handles (``_callback``, ``_args``).
    tests/test_drain.py fails loudly if a Python release moves them.
    """
    handlers = getattr(loop, "_signal_handlers", None)
    handle = handlers.get(signal.SIGTERM) if isinstance(handlers, dict) else None
    return None if handle is None else (handle._callback, handle._args)


def _registered_through(loop: asyncio.AbstractEventLoop, handler: Callable[..., Any]) -> bool:
    """Whether ``handler`` is only an event loop's stand-in for handlers it keeps itself:
    asyncio's no-op, or a method of the loop (uvloop's)."""
    stand_in_module = getattr(handler, "__module__", None) or ""
    return stand_in_module.startswith("asyncio.") or getattr(handler, "__self__", None) is loop


class _Drain:
    def __init__(self, gate: InFlight, timeout: float, forward: Callable[[], None]) -> None:
        self.gate = gate
        self.timeout = timeout
        self.forward = forward
        self.task: asyncio.Task[None] | None = None

    def signalled(self) -> None:
        if self.task is not None:  # a second SIGTERM: stop now
            self.task.cancel()
            self.forward()
            return
        self.gate.close()
        self.task = asyncio.ensure_future(self._drain())

    async def _drain(self) -> None:
        if not await self.gate.drained(self.timeout):
            logger.warning("SIGTERM: %d requests still in flight, stopping", self.gate.count)
        self.forward()
