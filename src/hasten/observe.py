"""Observation: the request path an app takes when metrics, tracing, the access log or the
live stats are on, chosen once at startup. With all of them off, no request comes here.

The Observer wraps the one serve step: it names the request by the route it matches (never by
its raw path), hands the serve step an Exchange that notes the status and bytes of whatever is
sent, and, once the response is out, gives the sinks the route, status, bytes, duration and
time spent queued for a thread or a worker process.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, Future
from dataclasses import dataclass, field
from time import perf_counter
from typing import TYPE_CHECKING, Any, Protocol

from .connection import NO_PATH_PARAMS
from .wire import HeaderList

if TYPE_CHECKING:
    from .matcher import Matcher
    from .runtime import RequestReader
    from .transport import Sending, StreamWriter, Transport
    from .types import Target

__all__ = [
    "UNMATCHED",
    "Exchange",
    "Observer",
    "QueueTimer",
    "RouteTag",
    "Sink",
]

UNMATCHED = "<unmatched>"
# Any other method a client sends is labelled as this (OpenTelemetry's name), so that invented
# methods cannot add label values without bound.
OTHER_METHOD = "_OTHER"
KNOWN_METHODS = frozenset(
    {"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"}
)
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
    """One observed request: the Transport the serve step sends to, which notes the status and
    the body bytes on their way to the server's transport (``inner``), and the seconds its
    handler waited for a thread or worker process (``queued``)."""

    __slots__ = ("inner", "queued", "sent", "status")

    def __init__(self, inner: Transport) -> None:
        # The server's transport, as Any: Granian's protocol object is also how a Request
        # reads its body, and an ASGI transport has send() and receive().
        self.inner: Any = inner
        self.status = 0  # 0 until a response starts (the client may leave first)
        self.sent = 0
        self.queued = 0.0

    def response_bytes(self, status: int, headers: HeaderList, body: bytes) -> Sending:
        self.status = status
        self.sent = len(body)
        sending: Sending = self.inner.response_bytes(status, headers, body)
        return sending

    def response_stream(self, status: int, headers: HeaderList) -> StreamWriter:
        self.status = status
        writer: StreamWriter = self.inner.response_stream(status, headers)
        return _CountingWriter(self, writer)

    def response_file(self, status: int, headers: HeaderList, file: str) -> Sending:
        self.status = status
        self.sent = _content_length(headers)
        sending: Sending = self.inner.response_file(status, headers, file)
        return sending

    def response_file_range(
        self, status: int, headers: HeaderList, file: str, start: int, end: int
    ) -> Sending:
        self.status = status
        self.sent = end - start
        sending: Sending = self.inner.response_file_range(status, headers, file, start, end)
        return sending

    def client_disconnect(self) -> Awaitable[None]:
        done: Awaitable[None] = self.inner.client_disconnect()
        return done

    # A Request reads its body from the transport it is given: Granian's protocol object is
    # called, or iterated; an ASGI transport has receive() (found through __getattr__).
    def __call__(self) -> Awaitable[bytes]:
        reading: Awaitable[bytes] = self.inner()
        return reading

    def __aiter__(self) -> Any:
        return self.inner.__aiter__()

    async def send(self, message: dict[str, Any]) -> None:
        """ASGI ``send``, which a mounted ASGI app answers through under ASGI."""
        if message["type"] == "http.response.start":
            self.status = message["status"]
        elif message["type"] == "http.response.body":
            self.sent += len(message.get("body", b""))
        await self.inner.send(message)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


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


# The request being observed, for QueueTimer: set by the Observer around the serve step.
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


def _timed(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    """In the thread or worker process: when the call started, and its result."""
    return time.monotonic(), fn(*args, **kwargs)


class Sink(Protocol):
    """What is told of each observed request, once its response is sent (or failed)."""

    def record(
        self, method: str, path: str, tag: RouteTag, exchange: Exchange, seconds: float
    ) -> None: ...


class Tracer(Protocol):
    """Wraps each observed request in a span (hasten.tracing); ``headers`` gives the
    request's headers, where an upstream trace's context comes from."""

    def start(
        self, method: str, tag: RouteTag, path: str, headers: Callable[[], list[tuple[str, str]]]
    ) -> Any: ...

    def end(self, started: Any, exchange: Exchange) -> None: ...


Serve = Callable[[str, str, Any, "Transport", "RequestReader"], Awaitable[None]]


class Observer:
    """The instrumented serve step: ``serve`` wraps the plain one (``inner``)."""

    def __init__(
        self,
        inner: Serve,
        matcher: Matcher,
        *,
        app: Any,  # the App: what a Request is read for
        tags: dict[Target, RouteTag],
        sinks: list[Sink],
        tracer: Tracer | None,
    ) -> None:
        self.inner = inner
        self.app = app
        self.static_targets = matcher.static_targets
        self.match_dynamic = matcher.match_dynamic
        self.tags = tags
        self.sinks = sinks
        self.tracer = tracer

    async def serve(
        self, method: str, path: str, scope: Any, transport: Transport, reader: RequestReader
    ) -> None:
        """``Runtime.serve``, observed: same arguments, same behaviour."""
        # Matched once more here, so that the plain path carries no observation at all.
        # perf: a static path is looked up without a call into the matcher, as serve does.
        targets = self.static_targets.get(path)
        target = targets.get(method) if targets is not None else None
        if target is None:
            target = self.match_dynamic(method, path)[0]
        tag = self.tags.get(target, UNMATCHED_TAG)
        label = method if method in KNOWN_METHODS else OTHER_METHOD
        exchange = Exchange(transport)
        # perf: only a handler on a pool can wait in a queue (QueueTimer reads this).
        token = _current.set(exchange) if tag.pooled else None
        span = None
        if self.tracer is not None:
            headers = reader(self.app, 0, scope, exchange, NO_PATH_PARAMS)._raw_headers
            span = self.tracer.start(label, tag, path, headers)
        started = perf_counter()
        try:
            await self.inner(method, path, scope, exchange, reader)
        finally:
            seconds = perf_counter() - started
            if token is not None:
                _current.reset(token)
            if span is not None:
                assert self.tracer is not None
                self.tracer.end(span, exchange)
            for sink in self.sinks:
                sink.record(label, path, tag, exchange, seconds)
