"""The servers hasten runs on, and the interfaces each speaks: named once, for ``hasten run``,
``hasten bench`` and the test client."""

from __future__ import annotations

from typing import Literal

__all__ = ["INTERFACES", "EventLoop", "Interface", "ServerName"]

# The protocol between server and app: Granian's own RSGI, or ASGI.
Interface = Literal["rsgi", "asgi"]
ServerName = Literal["granian", "uvicorn"]
# Both servers' names for their loops: "auto" takes uvloop where it is installed.
EventLoop = Literal["auto", "asyncio", "uvloop"]
# The interfaces each server speaks; the first is its native one, the default.
INTERFACES: dict[ServerName, tuple[Interface, ...]] = {
    "granian": ("rsgi", "asgi"),
    "uvicorn": ("asgi",),
}
