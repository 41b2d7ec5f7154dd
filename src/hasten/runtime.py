"""Runtime: what an app builds when it starts, and tears down when it stops.

The compiled matcher, the pools bound to each endpoint, the blocking monitor and the gate on
requests in flight: everything here depends only on the app, so it is decided once.
"""

from __future__ import annotations

from types import CodeType
from typing import TYPE_CHECKING

from .matcher import Matcher
from .monitor import LoopMonitor
from .overload import InFlight
from .params import unwrap
from .pools import Pools
from .routing import Route

if TYPE_CHECKING:
    from .settings import Settings
    from .types import Middleware

__all__ = ["Runtime"]


class Runtime:
    """The started state of an app."""

    def __init__(
        self, settings: Settings, routes: list[Route], middlewares: list[Middleware]
    ) -> None:
        needs_processes = any(route.endpoint.runs_on == "process pool" for route in routes)
        self.pools = Pools(
            settings.max_threads, settings.max_processes, settings.process_threads, needs_processes
        )
        try:
            self.matcher = Matcher(
                [route.compile(route.endpoint.bound(self.pools, route.label)) for route in routes]
            )
        except BaseException:
            self.pools.shutdown()
            raise
        self.in_flight = InFlight(settings.max_in_flight)
        self.monitor: LoopMonitor | None = None
        if settings.block_threshold is not None:
            self.monitor = LoopMonitor(settings.block_threshold, _codes(routes, middlewares))

    def start(self) -> None:
        """Start what needs the running loop (call from the loop's thread)."""
        if self.monitor is not None:
            self.monitor.start()

    def stop(self) -> None:
        if self.monitor is not None:
            self.monitor.stop()
        self.pools.shutdown()


def _codes(routes: list[Route], middlewares: list[Middleware]) -> dict[CodeType, str]:
    """The code objects that run on the event loop, and what to call them in a report."""
    codes: dict[CodeType, str] = {}
    for route in routes:
        if route.endpoint.runs_on == "event loop":
            code = getattr(unwrap(route.endpoint.func), "__code__", None)
            if code is not None:
                codes[code] = route.label
    for middleware in middlewares:
        code = getattr(unwrap(middleware), "__code__", None)
        if code is not None:
            codes[code] = f"middleware {getattr(middleware, '__qualname__', middleware)}"
    return codes
