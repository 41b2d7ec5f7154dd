"""Observation: what an app does for each request when metrics, tracing, the access log or
the live stats are on, chosen once at startup. With all of them off, no request comes here.

The adapters call ``Observer.serve``, which notes when a request began and hands it to the
app's serve step, which ends it (``end``) once the response is sent, with the status it noted
on the request. Where the access log or the tracer reads more than that, an Exchange begins
with the request and stands in for its Outbound, noting the status and bytes of whatever is
sent; for the tallies alone, an Exchange is made only for a response that decides its status
as it goes (a file's range, a mounted app). At the end the request is counted in the tallies
(for the metrics and the live stats, which read them when asked), and the access log and the
tracer are told the route the request matched (the tag on its route's Target, never its raw
path), the status, bytes, duration and time spent queued for a thread or a worker process
(timed only for them).
"""

from __future__ import annotations

import contextvars
import time
from bisect import bisect_left
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from functools import partial
from time import perf_counter
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

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


class Exchange(msgspec.Struct):
    """One observed request, from before it is handled to after its response is sent: it
    stands in for the request's Outbound, noting the status and the body bytes on their way to
    the server's (``inner``), and holds what the sinks and the tracer are told at the end: the
    method's label, the seconds its handler waited for a thread or worker process
    (``queued``), and its span. perf: a Struct, made by msgspec's C ``__init__`` (a class of
    ours with an ``__init__`` runs it in an interpreter frame, about 900 instructions)."""

    inner: Outbound
    method: str
    status: int = 0  # 0 until a response starts (the client may leave first)
    sent: int = 0
    queued: float = 0.0
    span: Any = None
    # Set while QueueTimer notes this request's waits (only when something reads them).
    token: contextvars.Token[Exchange | None] | None = None
    # What ends the tracer's span once the response is sent (Observer.sent), until then.
    done: Callable[[], None] | None = None

    def complete(self) -> None:
        """The response is sent, and what comes after it (background tasks, cleanup) begins:
        the tracer's span ends here, once."""
        done = self.done
        if done is not None:
            self.done = None
            done()

    # A whole body, a file or its range is sent as it is handed over: the tracer's span ends
    # there (Observer.sent), before what runs after the response (background tasks, cleanup).
    def response_bytes(self, status: int, headers: HeaderList, body: bytes) -> Sent:
        self.status = status
        self.sent = len(body)
        sent = self.inner.response_bytes(status, headers, body)
        if self.done is not None:
            self.complete()
        return sent

    def response_stream(self, status: int, headers: HeaderList) -> StreamWriter:
        self.status = status
        return _CountingWriter(self, self.inner.response_stream(status, headers))

    def response_file(self, status: int, headers: HeaderList, file: str) -> Sent:
        self.status = status
        self.sent = _content_length(headers)
        sent = self.inner.response_file(status, headers, file)
        if self.done is not None:
            self.complete()
        return sent

    def response_file_range(
        self, status: int, headers: HeaderList, file: str, start: int, end: int
    ) -> Sent:
        self.status = status
        self.sent = end - start
        sent = self.inner.response_file_range(status, headers, file, start, end)
        if self.done is not None:
            self.complete()
        return sent

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
        # The queue waits are timed (a context variable set around each request, and every
        # call to a pool wrapped) only when something reports them.
        self.times_queues = tracer is not None or any(sink.reads_queued for sink in sinks)
        # Whether each request goes through an Exchange: the access log and the tracer read
        # more than the status (bytes, queue waits, a span); the tallies read only the status,
        # which the serve step notes on the request.
        self.exchanges = bool(sinks) or tracer is not None
        # The app's serve step, set once it is built.
        self.step: Callable[[Request, Outbound, float], Awaitable[None]] = _no_step

    def serve(self, request: Request, outbound: Outbound) -> Awaitable[None]:
        """What the adapters call for an observed app: the app's serve step (``step``), timed
        from here (the time is handed to it) and ended by the step (``end``); where the
        access log or the tracer read more than the status, its response goes through an
        Exchange begun here, to ``outbound``. perf: a plain call handing back the step's
        coroutine, not one around it; the tallies alone make no Exchange (it costs two
        frames, about 2,000 instructions)."""
        if self.exchanges:
            outbound = exchange = Exchange(
                outbound, METHOD_LABELS.get(request.method, OTHER_METHOD)
            )
            if self.tracer is not None:
                exchange.span = self.tracer.start(exchange.method, request)
                exchange.done = partial(self.sent, request, exchange)
            if self.times_queues:
                exchange.token = _current.set(exchange)
        return self.step(request, outbound, perf_counter())

    def sent(self, request: Request, exchange: Exchange) -> None:
        """The request's response is sent, through ``exchange``: the tracer's span ends
        (``Exchange.complete`` calls it, once)."""
        if exchange.span is not None:
            assert self.tracer is not None
            self.tracer.complete(exchange.span, _tag_of(request), exchange)

    def end(self, request: Request, outbound: Outbound, started: float) -> None:
        """The request's response is sent (or failed): count it, tell the sinks and the
        tracer. ``outbound``: what the step sent through (the Exchange, if ``serve`` began
        one); ``started``: the time ``serve`` began it."""
        seconds = perf_counter() - started
        # perf: ``_tag_of(request)`` written out, a frame less per observed request.
        target = request._target
        tag = UNMATCHED_TAG if target is None or target.tag is None else target.tag
        status = request._status
        if self.tallies is not None:
            label = METHOD_LABELS.get(request.method, OTHER_METHOD)
            tally = self.tallies[label, tag.template, status]
            tally.seconds += seconds
            # perf: most requests take under the first bound; a compare is a tenth of bisect's call.
            bucket = 0 if seconds <= _FIRST_BOUND else bisect_left(DURATION_BOUNDS, seconds)
            tally.buckets[bucket] += 1
        if type(outbound) is not Exchange:
            return
        exchange = outbound
        if exchange.token is not None:
            _current.reset(exchange.token)
        if exchange.span is not None:
            assert self.tracer is not None
            self.tracer.end(exchange.span, tag, exchange)
        for sink in self.sinks:
            sink.record(request.path, tag, exchange, seconds)


def _no_step(request: Request, outbound: Outbound, started: float) -> Awaitable[None]:
    raise RuntimeError("Observer.step is set when the app starts")


def _tag_of(request: Request) -> RouteTag:
    """How the request is named: by the route it matched, else as unmatched."""
    target = request._target
    return UNMATCHED_TAG if target is None or target.tag is None else target.tag
