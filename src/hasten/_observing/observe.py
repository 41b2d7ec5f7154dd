"""Observation: what an app does for each request when metrics, tracing, the access log or
the live stats are on, chosen once at startup. With all of them off, no request comes here.

The serve step notes when it began a request and ends it once the response is sent, with the
status it sent. Where the access log or the tracer reads more than that, an Exchange begins
with the request and stands in for its Outbound, noting the status and bytes of whatever is
sent; where only the tallies count it, the serve step hands plain data's status over itself
and makes an Exchange only for a Response, whose status a file or a mounted app may change.
At the end the request is counted in the tallies (for the metrics and the live stats, which
read them when asked), and the access log and the tracer are told the route the request
matched (the tag on its route's Target, never its raw path), the status, bytes, duration and
time spent queued for a thread or a worker process (timed only for them).
"""

from __future__ import annotations

import contextvars
import time
from bisect import bisect_left
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from time import perf_counter
from typing import TYPE_CHECKING, Any, Protocol

from hasten._http.wire import HeaderList
from hasten._observing.tallies import DURATION_BOUNDS, Tallies
from hasten._running.threads import ThreadHandoff

if TYPE_CHECKING:
    from hasten._flow.transport import Outbound, Sent, StreamWriter
    from hasten._http.requests import Request

__all__ = [
    "UNMATCHED",
    "Exchange",
    "Observer",
    "QueueTimer",
    "RouteTag",
    "Sink",
    "queue_timer",
]

UNMATCHED = "<unmatched>"
_FIRST_BOUND = DURATION_BOUNDS[0]
# Any other method a client sends is labelled as this (OpenTelemetry's name), so that invented
# methods cannot add label values without bound.
OTHER_METHOD = "_OTHER"
_KNOWN_METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT")
# A method's label: ``METHOD_LABELS.get(method, OTHER_METHOD)``, one lookup in C.
METHOD_LABELS = {method: method for method in _KNOWN_METHODS}
WHERE = {
    "event loop": "loop",
    "thread pool": "thread",
    "process pool": "process",
    "executor": "executor",
}


@dataclass(frozen=True, slots=True)
class RouteTag:
    """How a request is named: its route's template, and where its handler runs."""

    template: str
    runs_on: str  # loop | thread | process | executor
    matched: bool = True
    # Whether the handler runs on one of the app's pools, where it may wait its turn.
    pooled: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "pooled", self.runs_on in ("thread", "process"))


UNMATCHED_TAG = RouteTag(UNMATCHED, "loop", matched=False)


class Exchange:
    """One observed request, from before it is handled to after its response is sent: it
    stands in for the request's Outbound, noting the status and the body bytes on their way to
    the server's (``inner``), and holds what the sinks and the tracer are told at the end: the
    method's label, the seconds its handler waited for a thread or worker process
    (``queued``), and its span."""

    __slots__ = ("inner", "method", "queued", "sent", "span", "status", "token")

    def __init__(self, inner: Outbound, method: str) -> None:
        self.inner = inner
        self.method = method
        self.status = 0  # 0 until a response starts (the client may leave first)
        self.sent = 0
        self.queued = 0.0
        self.span: Any = None
        # Set while QueueTimer notes this request's waits (only when something reads them).
        self.token: contextvars.Token[Exchange | None] | None = None

    def response_bytes(self, status: int, headers: HeaderList, body: bytes) -> Sent:
        self.status = status
        self.sent = len(body)
        return self.inner.response_bytes(status, headers, body)

    def response_stream(self, status: int, headers: HeaderList) -> StreamWriter:
        self.status = status
        return _CountingWriter(self, self.inner.response_stream(status, headers))

    def response_file(self, status: int, headers: HeaderList, file: str) -> Sent:
        self.status = status
        self.sent = _content_length(headers)
        return self.inner.response_file(status, headers, file)

    def response_file_range(
        self, status: int, headers: HeaderList, file: str, start: int, end: int
    ) -> Sent:
        self.status = status
        self.sent = end - start
        return self.inner.response_file_range(status, headers, file, start, end)

    async def send(self, message: dict[str, Any]) -> None:
        """ASGI ``send``: what a mounted ASGI app answers through under ASGI."""
        if message["type"] == "http.response.start":
            self.status = message["status"]
        elif message["type"] == "http.response.body":
            self.sent += len(message.get("body", b""))
        inner: Any = self.inner
        await inner.send(message)


class _CountingWriter:
    __slots__ = ("exchange", "writer")

    def __init__(self, exchange: Exchange, writer: StreamWriter) -> None:
        self.exchange = exchange
        self.writer = writer

    async def send_bytes(self, data: bytes) -> None:
        self.exchange.sent += len(data)
        await self.writer.send_bytes(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.writer, name)


def _content_length(headers: HeaderList) -> int:
    for name, value in headers:
        if name == "content-length":
            return int(value)
    return 0


# The request being observed, for QueueTimer: set by the Observer around the serve step when
# something reads the queue waits (Observer.times_queues).
_current: contextvars.ContextVar[Exchange | None] = contextvars.ContextVar(
    "hasten_exchange", default=None
)


class QueueTimer(Executor):
    """An executor around ``inner`` whose calls add to their request's ``Exchange.queued``
    the time they waited before starting: for a worker process too, as CLOCK_MONOTONIC is
    one clock for every process on the machine."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        exchange = _current.get()
        if exchange is None:  # work started outside a request (startup, a background task)
            return self.inner.submit(fn, *args, **kwargs)
        submitted = time.monotonic()
        running = self.inner.submit(_timed, fn, args, kwargs)
        result: Future[Any] = Future()

        def finished(done: Future[tuple[float, Any]]) -> None:
            if done.cancelled():
                result.cancel()
                return
            error = done.exception()
            if error is not None:
                result.set_exception(error)
                return
            started, value = done.result()
            exchange.queued += max(0.0, started - submitted)
            result.set_result(value)

        running.add_done_callback(finished)
        # A deadline cancels the caller's future: take back a call that has not started.
        result.add_done_callback(lambda outcome: outcome.cancelled() and running.cancel())
        return result

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait, cancel_futures=cancel_futures)


class ThreadQueueTimer(QueueTimer, ThreadHandoff):
    """A QueueTimer around the app's thread pool, whose calls from the loop are handed over
    by the pool itself (``ThreadHandoff.call``), timed the same way."""

    inner: ThreadHandoff

    def call(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Awaitable[Any]:
        exchange = _current.get()
        if exchange is None:  # work started outside a request (startup, a background task)
            return self.inner.call(fn, *args, **kwargs)
        # Cancelled (a deadline), the wait below cancels the pool's future, which takes the
        # call back if it has not started.
        return _timed_wait(exchange, time.monotonic(), self.inner.call(_timed, fn, args, kwargs))


def queue_timer(inner: Executor) -> QueueTimer:
    """The QueueTimer for ``inner``: one that hands calls over as ``inner`` does."""
    return ThreadQueueTimer(inner) if isinstance(inner, ThreadHandoff) else QueueTimer(inner)


async def _timed_wait(exchange: Exchange, submitted: float, running: Awaitable[Any]) -> Any:
    started, value = await running
    exchange.queued += max(0.0, started - submitted)
    return value


def _timed(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """In the thread or worker process: when the call started, and its result."""
    return time.monotonic(), fn(*args, **kwargs)


class Sink(Protocol):
    """What is told of each observed request, once its response is sent (or failed): for what
    the tallies do not hold (the access log's line)."""

    # Whether it reads ``Exchange.queued``: the waits for pools are timed only if one does.
    reads_queued: bool

    def record(self, path: str, tag: RouteTag, exchange: Exchange, seconds: float) -> None:
        """``exchange.method`` is the request's method, a known one or ``_OTHER``."""


class Tracer(Protocol):
    """The request's OpenTelemetry (hasten._observing.tracing): its span, started before the
    request is routed and named by its route once it is, ended when its response is sent; its
    metrics and logs."""

    def start(self, method: str, request: Request) -> Any: ...

    def complete(self, started: Any, tag: RouteTag, exchange: Exchange) -> None:
        """The response is sent (what runs after it, background tasks, is not timed)."""

    def end(self, started: Any, tag: RouteTag, exchange: Exchange) -> None:
        """The request is done, its cleanup too (or it failed on its way out)."""


class Observer:
    """What observes an app's requests: the tallies each is counted in (for the metrics and
    the live stats), the sinks told of each, and the tracer, if any."""

    def __init__(self, tallies: Tallies | None, sinks: list[Sink], tracer: Tracer | None) -> None:
        self.tallies = tallies
        self.sinks = sinks
        self.tracer = tracer
        # Whether every request needs an Exchange from its start: the access log and the
        # tracer read more than the status (bytes, queue waits, a span). The tallies alone
        # need only the status, which the serve step knows for plain data.
        self.exchanges = bool(sinks) or tracer is not None
        # The queue waits are timed (a context variable set around each request, and every
        # call to a pool wrapped) only when something reports them.
        self.times_queues = tracer is not None or any(sink.reads_queued for sink in sinks)

    def begin(self, request: Request, outbound: Outbound) -> Exchange:
        """A request is about to be handled, or its Response sent: the Exchange the response
        goes through, to ``outbound``."""
        exchange = Exchange(outbound, METHOD_LABELS.get(request.method, OTHER_METHOD))
        if self.tracer is not None:
            exchange.span = self.tracer.start(exchange.method, request)
        if self.times_queues:
            exchange.token = _current.set(exchange)
        return exchange

    def sent(self, request: Request, exchange: Exchange) -> None:
        """The request's response is sent, through ``exchange``: the tracer's span ends."""
        if exchange.span is not None:
            assert self.tracer is not None
            self.tracer.complete(exchange.span, _tag_of(request), exchange)

    def end(self, request: Request, started: float, status: int, exchange: Exchange | None) -> None:
        """The request's response is sent (or failed): count it, tell the sinks and the
        tracer. ``status`` is the plain data's sent without an Exchange; else the Exchange's."""
        seconds = perf_counter() - started
        tag = _tag_of(request)
        if exchange is not None:
            status = exchange.status
            if exchange.token is not None:
                _current.reset(exchange.token)
        if self.tallies is not None:
            label = METHOD_LABELS.get(request.method, OTHER_METHOD)
            tally = self.tallies[label, tag.template, status]
            tally.seconds += seconds
            # perf: most requests take under the first bound; a compare is a tenth of bisect's call.
            bucket = 0 if seconds <= _FIRST_BOUND else bisect_left(DURATION_BOUNDS, seconds)
            tally.buckets[bucket] += 1
        if exchange is None:  # counted only: no sink, no tracer
            return
        if exchange.span is not None:
            assert self.tracer is not None
            self.tracer.end(exchange.span, tag, exchange)
        for sink in self.sinks:
            sink.record(request.path, tag, exchange, seconds)


def _tag_of(request: Request) -> RouteTag:
    """How the request is named: by the route it matched, else as unmatched."""
    target = request._target
    return UNMATCHED_TAG if target is None or target.tag is None else target.tag
