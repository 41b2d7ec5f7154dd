"""The protocol adapters: the only code that speaks RSGI or ASGI, and (with the transport's
exception for a client that has gone) the only code that imports Granian's names."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from hasten._http.responses import Response
    from hasten._serve.runtime import Runtime

__all__ = ["Served"]


class Served(Protocol):
    """What the protocol adapters serve (an App): its runtime once started, and a way to
    start it for a connection that comes first. The adapters know nothing else of it."""

    @property
    def runtime(self) -> Runtime | None: ...

    # ASGI middleware wraps the app: an RSGI connection goes through ``asgi`` too.
    through_asgi: bool
    # Code replaced the app's ``__call__`` (instrumentation): RSGI goes through that first.
    call_replaced: bool
    # The path the app is served under (FastAPI's deprecated ``root_path=``), or ''.
    root_path: str

    @property
    def asgi(self) -> Callable[..., Awaitable[None]]:
        """The app's ASGI callable, with any ASGI middleware around it."""
        ...

    async def start_for(self, path: str) -> Runtime | Response:
        """Start the app for a connection to ``path`` that came before startup: its runtime,
        or the response that refuses the connection (stopping, starting, failed to start)."""
        ...

    async def startup(self) -> None: ...

    async def shutdown(self) -> None: ...
