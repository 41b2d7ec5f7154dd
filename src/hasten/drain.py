"""Draining on SIGTERM, for apps with a readiness endpoint: readiness turns 503 at once.

A server stops listening as soon as it gets SIGTERM, and stops the app only once its requests
in flight are done: a load balancer polling readiness would never see a 503, only refused
connections. So an app with ``ready_url`` takes SIGTERM first: it closes its gate (every new
request, readiness included, gets 503 + Retry-After), waits for the requests in flight (up to
``shutdown_timeout``), then hands the signal to the server, which stops as it always does.
A second SIGTERM goes to the server at once.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import threading
from collections.abc import Callable
from typing import Any

from .overload import InFlight

__all__ = ["drain_on_sigterm"]

logger = logging.getLogger("hasten.error")


def drain_on_sigterm(gate: InFlight, timeout: float) -> None:
    """Put the drain in front of the server's SIGTERM handler, on the running loop; nothing
    when there is none to put it in front of (no server, or not its main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return  # signals reach the main thread only (the TestClient runs elsewhere)
    loop = asyncio.get_running_loop()
    # Granian (and any asyncio server) registers with loop.add_signal_handler; the loop keeps
    # those in a private dict, the only place to find the server's handler to call later.
    handlers: dict[int, Any] = getattr(loop, "_signal_handlers", {})
    handle = handlers.get(signal.SIGTERM)
    if handle is not None:
        forward: Callable[[], None] = lambda: handle._callback(*handle._args)  # noqa: E731
        drain = _Drain(gate, timeout, forward)
        loop.add_signal_handler(signal.SIGTERM, drain.signalled)
        return
    previous = signal.getsignal(signal.SIGTERM)
    if not callable(previous):
        return  # the default (die) or ignored: there is no server shutdown to delay
    # uvicorn (and servers like it) use signal.signal: its handler is called with a frame.
    drain = _Drain(gate, timeout, lambda: previous(signal.SIGTERM, None))
    signal.signal(signal.SIGTERM, lambda *_: loop.call_soon_threadsafe(drain.signalled))


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
