"""The end of a stop: ``shutdown_timeout`` bounds it. What is still in flight at its deadline
is named by route, then cut (its WebSockets closed with 1001, going away; its requests'
tasks cancelled), so that a server waiting for its connections to end (an endless stream
would keep it waiting for ever) goes on to the shutdown hooks.

A cut request ends quietly: the serve step takes the cancellation that says ``CUT`` as the
end of the request (where the server would log it as the app's error, with a traceback) and
answers 503 if its response had not begun; a stream it began is left unended over ASGI, for
the server to drop the connection.

Requests are found at that moment, at no cost to them: each runs in a task of the server's,
and a task whose chain of awaited coroutines holds this runtime's serve step is one of its
requests (as the blocking monitor finds a route by the code on the loop's stack). WebSockets
are the runtime's own list (``Runtime.sockets``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from types import CodeType, FrameType
from typing import TYPE_CHECKING, Any

import anyio

from hasten._flow.in_flight import overloaded
from hasten._http.error_responses import error_response
from hasten._http.websockets import GOING_AWAY
from hasten._running.event_loop import clock

if TYPE_CHECKING:
    from hasten._flow.transport import Outbound
    from hasten._http.connection import Connection
    from hasten._http.requests import Request
    from hasten._serve.runtime import Runtime

__all__ = ["CUT", "answer_cut", "cut", "end_by", "going_away", "was_cut"]

logger = logging.getLogger("hasten.error")

POLL_SECONDS = 0.01
# What the requests cut at the deadline have to unwind (their yield dependencies' exits run)
# before the shutdown hooks run.
UNWIND_SECONDS = 1.0
# What WebSocket handlers have to see their close and end, so that their close frames are out
# before the server stops (Granian's RSGI sends it in the background, and drops it then).
GOING_AWAY_SECONDS = 1.0
GOING_AWAY_REASON = "server shutting down"
# The message of the cancellation that cuts a request or a WebSocket's handler.
CUT = "cut: shutdown_timeout is over"


async def end_by(runtime: Runtime, deadline: float) -> None:
    """Wait until no request nor WebSocket is in flight, at most until ``deadline`` (the
    loop's clock); then cut what is left, and let it unwind."""
    if await _until(lambda: _idle(runtime), deadline):
        return
    await cut(runtime)
    await _until(lambda: _idle(runtime), clock() + UNWIND_SECONDS)


def _idle(runtime: Runtime) -> bool:
    gate = runtime.in_flight
    return not (gate.count or gate.waiting or runtime.sockets)


async def _until(done: Callable[[], bool], deadline: float) -> bool:
    """Wait until ``done()``, at most until ``deadline``; whether it is done."""
    # perf: polled, so that a request pays nothing for being waited for (see InFlight).
    while not done():
        if clock() >= deadline:
            return False
        await anyio.sleep(POLL_SECONDS)
    return True


async def cut(runtime: Runtime) -> None:
    """Log what is still in flight, by route; cancel its requests, close its WebSockets with
    1001 and cancel the handlers that do not end on it. Once: a stop has one deadline."""
    if runtime.in_flight.cut:
        return
    runtime.in_flight.cut = True
    requests = _requests(runtime)
    labels = [_label(request) for _, request in requests]
    labels += [_label(websocket, "WEBSOCKET") for websocket in runtime.sockets]
    unnamed = 0 if runtime.on_asyncio else runtime.in_flight.count  # found on asyncio only
    if not labels and not unnamed:
        return
    named = [f"{label} ({count})" for label, count in sorted(Counter(labels).items())]
    if unnamed:
        named.append(f"requests ({unnamed})")
    logger.warning(
        "Stopping: still in flight after shutdown_timeout (%g s), now closed: %s",
        runtime.settings.shutdown_timeout,
        ", ".join(named),
    )
    for task, request in requests:
        request._cut_short()
        task.cancel(CUT)
    await going_away(runtime)
    for handler in list(runtime.sockets.values()):
        if isinstance(handler, asyncio.Task):
            handler.cancel(CUT)
        elif handler is not None:  # off asyncio (trio), the cancel scope around the handler
            handler.cancel()


async def going_away(runtime: Runtime) -> None:
    """Close each open WebSocket with 1001 (going away), and give its handler, which sees the
    close, a moment to end."""
    for websocket in list(runtime.sockets):
        with contextlib.suppress(Exception):  # the client may have gone already
            await websocket.shut(GOING_AWAY, GOING_AWAY_REASON)
    await _until(lambda: not runtime.sockets, clock() + GOING_AWAY_SECONDS)


def was_cut(cancelled: BaseException) -> bool:
    """Whether ``cancelled`` is the cancellation of a cut."""
    return cancelled.args == (CUT,)


async def answer_cut(request: Request, outbound: Outbound) -> None:
    """Answer a cut request as one that comes during the stop, 503, if its response had not
    begun (else the server ends it, as ``Request._cut_short`` says)."""
    refusal = error_response(overloaded("The server is shutting down"))
    with contextlib.suppress(Exception):  # its response had begun
        await refusal.send(outbound, request)
        request._status = refusal.status


def _requests(runtime: Runtime) -> list[tuple[asyncio.Task[Any], Request]]:
    """The tasks serving ``runtime``'s requests, each with its request."""
    if not runtime.on_asyncio:
        return []  # another loop's (trio's) tasks are out of reach
    step = runtime.step
    serving = type(step).serve.__code__  # the outermost step's: the Observed one's, if any
    found = []
    for task in asyncio.all_tasks():
        frame = _frame_of(task.get_coro(), serving)
        if frame is not None and frame.f_locals.get("self") is step:
            found.append((task, frame.f_locals["request"]))
    return found


def _frame_of(awaitable: Any, code: CodeType) -> FrameType | None:
    """The frame running ``code`` down the chain of what ``awaitable`` awaits, if any."""
    while awaitable is not None:
        frame: FrameType | None = getattr(awaitable, "cr_frame", None) or getattr(
            awaitable, "gi_frame", None
        )
        if frame is not None and frame.f_code is code:
            return frame
        awaitable = getattr(awaitable, "cr_await", None) or getattr(awaitable, "gi_yieldfrom", None)
    return None


def _label(connection: Connection, method: str | None = None) -> str:
    """``GET /items/{id}``: the route the connection matched, else its path."""
    target = connection._target
    route = None if target is None else target.route
    path = connection.path if route is None else route.path
    return f"{method or connection.method} {path}"
