"""OpenTelemetry for each request and WebSocket, through opentelemetry-api only: what FastAPI
0.165's built-in telemetry makes (``App(telemetry={...})``, ``hasten._observing.telemetry``), on
hasten's one observed request path (``observe.py``).

- **Traces**: a SERVER span per request, named by its route (``GET /items/{id}``; ``WS
  /ws/{room}`` for a WebSocket) with the HTTP semantic conventions' attributes, a child of
  the caller's span where the request carries a trace context (``traceparent``, ``baggage``:
  what the global propagator reads), and current while it is served, on a thread too. Within
  it, operation spans: ``hasten._params.dependencies`` (reading the values and solving the
  dependencies), ``hasten.endpoint`` (the handler, where it runs), ``hasten.serialization``
  (rendering its result), then ``hasten.background_task`` for each background task.
- **Metrics**: ``http.server.request.duration`` (a histogram, seconds) and
  ``http.server.active_requests``, by method, scheme, route, status and error type.
- **Logs**: a request that fails validation (WARN ``hasten._params.validation.failed``) and an
  exception the app does not handle (ERROR, with the exception).

Each signal is on where its provider is given (``telemetry={"tracer_provider": ...}``) or
set globally by the time the app starts, as FastAPI's; without any, the app keeps the plain
request path. A global provider set later is followed from request to request.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager, nullcontext
from contextvars import Token
from time import perf_counter, time_ns
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import parse_qsl, urlencode

from hasten._http.background import task_operation
from hasten._http.connection import MOUNT_PATH, mounting
from hasten._http.errors import (
    HTTPError,
    RequestValidationError,
    WebSocketException,
    WebSocketRequestValidationError,
    unhandled_listener,
)
from hasten._http.hosts import DEFAULT_PORTS, host_port
from hasten._http.responses import Response
from hasten._http.websockets import WebSocketDisconnect
from hasten._observing.observe import Exchange, RouteTag
from hasten._settings import Settings

try:
    from opentelemetry import _logs, context, metrics, propagate, trace
    from opentelemetry._logs import SeverityNumber
except ImportError as exc:  # pragma: no cover - the dev install has it
    raise ImportError("telemetry needs opentelemetry-api: pip install 'hasten[otel]'") from exc

from hasten._observing.telemetry import DATA_KEY, TelemetryData

if TYPE_CHECKING:
    from hasten._flow.contracts import Invoke, Render
    from hasten._http.connection import Connection
    from hasten._http.requests import Request
    from hasten._http.websockets import WebSocket

__all__ = ["Telemetry", "configured"]

SCHEMA_URL = "https://opentelemetry.io/schemas/1.44.0"
LOGGED_PATH_LENGTH = 200  # as in error logs: a long path must not make a long span
# The methods named as they are; any other is ``_OTHER`` (OpenTelemetry's), so that invented
# methods cannot add attribute values without bound.
_KNOWN_METHODS = frozenset(
    ("CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "QUERY", "TRACE")
)
_DURATION_BUCKETS = (
    0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
)  # fmt: skip
# Query parameters whose values are secrets (the HTTP spans' conventions): kept, but redacted.
_SENSITIVE_QUERY = frozenset(
    ("X-Amz-Signature", "X-Amz-Credential", "X-Amz-Security-Token", "sig", "X-Goog-Signature")
)
# The answers an app gives on purpose: an operation that raises one has not failed.
_HANDLED = (HTTPError, RequestValidationError, WebSocketException, WebSocketRequestValidationError)
# FastAPI's words for its log records (event names, attributes, bodies), kept so that the
# queries and alerts of a moved app still find them: ``hasten port`` leaves them as they are,
# where it makes ``fastapi.endpoint``, the name of an operation's span, ``hasten.endpoint``.
_VALIDATION_FAILED = "fastapi.validation.failed"
_ERROR_COUNT = "fastapi.validation.error_count"
_WEBSOCKET_EXCEPTION = "fastapi.websocket.exception"
_REQUEST_FAILED = "Unhandled exception in FastAPI request"
_WEBSOCKET_FAILED = "Unhandled exception in FastAPI WebSocket connection"
# The providers the API hands out until an SDK's is set (Python's API has no public
# "is configured"); an SDK's or a vendor's is anything else.
_DEFERRED = frozenset(
    (
        ("opentelemetry.trace", "ProxyTracerProvider"),
        ("opentelemetry.metrics._internal", "_ProxyMeterProvider"),
        ("opentelemetry._logs._internal", "ProxyLoggerProvider"),
    )
)


def configured(provider: Any) -> bool:
    """Whether ``provider`` is one that records (not the API's proxy before an SDK's is set,
    nor a no-op one)."""
    kind = type(provider)
    if (kind.__module__, kind.__name__) in _DEFERRED:
        return False
    return not isinstance(
        provider, trace.NoOpTracerProvider | metrics.NoOpMeterProvider | _logs.NoOpLoggerProvider
    )


def exception_type(exc: BaseException) -> str:
    """``error.type``: the exception's class, with its module unless a builtin."""
    kind = type(exc)
    return (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )


def _function_name(function: Any) -> str:
    module = getattr(function, "__module__", type(function).__module__)
    qualname = getattr(function, "__qualname__", type(function).__qualname__)
    return f"{module}.{qualname}"


def _normal_close(exc: BaseException) -> bool:
    return isinstance(exc, WebSocketDisconnect) and exc.code in (1000, 1001)


class Telemetry:
    """An app's request telemetry: which signals are on (decided at startup), the providers'
    tracer, instruments and logger (looked up once per provider), and what it wraps around a
    route's steps (the ``Instrumentation`` a route is bound with)."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self.tracing: bool = config.get("tracing", True)
        self.metrics: bool = config.get("metrics", True)
        self.logs: bool = config.get("logs", True)
        self.operations: bool = config.get("operation_spans", True)
        self.exclude: Callable[[Any], bool] | None = config.get("exclude")
        known = os.getenv("OTEL_INSTRUMENTATION_HTTP_KNOWN_METHODS", "").strip()
        self.known_methods = (
            frozenset(method.strip() for method in known.split(",") if method.strip())
            if known
            else _KNOWN_METHODS
        )
        from hasten._version import __version__

        self.version = __version__
        self._tracer: tuple[Any, trace.Tracer] | None = None
        self._instruments: tuple[Any, Any, Any] | None = None
        self._logger: tuple[Any, Any] | None = None

    @classmethod
    def of(cls, settings: Settings) -> Telemetry | None:
        """The app's telemetry, or None where none of its signals has a provider: then the
        app keeps the plain request path."""
        config: dict[str, Any] = dict(settings.telemetry or {})
        telemetry = cls(config)
        return telemetry if telemetry.enabled() else None

    def enabled(self) -> bool:
        """Whether any signal is on and has a provider that records."""
        return (
            (self.tracing and self._provider("tracer_provider") is not None)
            or (self.metrics and self._provider("meter_provider") is not None)
            or (self.logs and self._provider("logger_provider") is not None)
        )

    def _provider(self, key: str) -> Any:
        """The provider of one signal: the app's (``telemetry={key: ...}``), else the global
        one, as it is now; None where it does not record."""
        given = self.config.get(key)
        if given is not None:
            return None if _is_noop(given) else given
        found = {
            "tracer_provider": trace.get_tracer_provider,
            "meter_provider": metrics.get_meter_provider,
            "logger_provider": _logs.get_logger_provider,
        }[key]()
        return found if configured(found) else None

    # The providers' objects, made once per provider (a provider set later is followed).
    def tracer(self) -> trace.Tracer | None:
        provider = self._provider("tracer_provider") if self.tracing else None
        if provider is None:
            return None
        if self._tracer is None or self._tracer[0] is not provider:
            self._tracer = (
                provider,
                provider.get_tracer("hasten", self.version, schema_url=SCHEMA_URL),
            )
        return self._tracer[1]

    def instruments(self) -> tuple[Any, Any] | None:
        provider = self._provider("meter_provider") if self.metrics else None
        if provider is None:
            return None
        if self._instruments is None or self._instruments[0] is not provider:
            meter = provider.get_meter("hasten", self.version, schema_url=SCHEMA_URL)
            duration = meter.create_histogram(
                "http.server.request.duration",
                unit="s",
                description="Duration of HTTP server requests.",
                explicit_bucket_boundaries_advisory=_DURATION_BUCKETS,
            )
            active = meter.create_up_down_counter(
                "http.server.active_requests",
                unit="{request}",
                description="Number of active HTTP server requests.",
            )
            self._instruments = (provider, duration, active)
        return self._instruments[1], self._instruments[2]

    def logger(self) -> Any:
        provider = self._provider("logger_provider") if self.logs else None
        if provider is None:
            return None
        if self._logger is None or self._logger[0] is not provider:
            logger = _logs.get_logger("hasten", self.version, provider, schema_url=SCHEMA_URL)
            self._logger = (provider, logger)
        return self._logger[1]

    # The observe.Tracer protocol: a request from before it is routed to after its cleanup.
    def start(self, method: str, request: Request) -> Observed:
        """A request is about to be handled: its span (current from now on), its data."""
        return self._start(request, websocket=False)

    def complete(self, observed: Observed, tag: RouteTag, exchange: Exchange) -> None:
        """Its response is sent: the span ends, the duration is recorded."""
        observed.finish(tag, exchange.status, None, exchange)

    def end(self, observed: Observed, tag: RouteTag, exchange: Exchange) -> None:
        """Its cleanup is done (or it failed, the exception on its way out of the serve
        step): the span ends if the response was not sent, and the context is left."""
        error = sys.exc_info()[1]
        if error is not None:
            observed.unhandled(error)
        observed.finish(tag, exchange.status, error, exchange)
        observed.leave()

    def start_websocket(self, websocket: WebSocket) -> Observed:
        return self._start(websocket, websocket=True)

    def end_websocket(self, observed: Observed, tag: RouteTag) -> None:
        """The connection is done, its cleanup too: failed if the app did not handle an
        exception (a client's normal close is no failure)."""
        failure = observed.exceptions[-1] if observed.exceptions else None
        observed.finish(tag, 0, failure, None)
        observed.leave()

    def _start(self, connection: Connection, *, websocket: bool) -> Observed:
        observed = Observed(self, websocket, connection)
        if mounting.get() is not None:
            outer = context.get_value(DATA_KEY)
            if outer is not None:  # the app it is mounted in observes it (or excludes it)
                observed.outer = outer
                observed.tokens.append(mounting.set(None))  # a request it makes is its own
                return observed
        if self.exclude is not None and self.exclude(connection.scope):
            observed.enter(context.set_value(DATA_KEY, EXCLUDED))
            return observed
        method = connection.method if connection.method in self.known_methods else "_OTHER"
        attributes: dict[str, Any] = {"url.scheme": connection.scheme}
        if websocket:
            observed.span_method = "WS"
            attributes["network.protocol.name"] = "websocket"
        else:
            observed.span_method = "HTTP" if method == "_OTHER" else method
            attributes["http.request.method"] = method
            version = connection.scope.get("http_version")
            if version:
                attributes["network.protocol.version"] = version
        observed.logger = self.logger()
        instruments = None if websocket else self.instruments()
        tracer = self.tracer()
        if tracer is None and instruments is None and observed.logger is None:
            return observed  # nothing of it is recorded: it is served as it would be without
        observed.attributes = attributes
        if instruments is not None:
            observed.count(*instruments)
        parent = context.get_current()
        if tracer is not None:
            parent = propagate.extract(connection.headers, getter=_HEADERS)
            observed.trace(tracer, parent, method)
            parent = trace.set_span_in_context(observed.span, parent)  # type: ignore[arg-type]
            if self.operations:
                observed.tracer = tracer
        observed.enter(context.set_value(DATA_KEY, observed, parent))
        return observed

    # Around a request's errors.
    def validation_failed(
        self, exc: RequestValidationError | WebSocketRequestValidationError
    ) -> None:
        """The request's values failed: what the data and the log say of it."""
        observed = current()
        if observed is not None:
            observed.validation_failed(exc)

    # The Instrumentation a route is bound with: what it wraps around the route's steps.
    def invoke(self, invoke: Invoke, func: Callable[..., Any]) -> Invoke:
        """Reading the values and solving the dependencies, in ``hasten._params.dependencies``."""

        async def traced(connection: Any) -> Any:
            observed = current()
            if observed is None:
                return await invoke(connection)
            observed.connected(connection)
            observed.dependencies(func)
            try:
                return await invoke(connection)
            except BaseException as exc:
                observed.solved(None, exc)
                raise
            finally:
                observed.solved(None, None)

        return traced

    def run(
        self, run: Callable[..., Any], func: Callable[..., Any], around: bool
    ) -> Callable[..., Any]:
        """The handler handed its values: the dependencies' span ends and the values are
        noted, on the loop; ``around``, the handler runs elsewhere (a process, an executor),
        and its span is around the wait for it."""

        def solved(**values: Any) -> Any:
            observed = current()
            if observed is None:
                return run(**values)
            observed.solved(values, None)
            if around:
                return observed.around("endpoint", func, run(**values))
            return run(**values)

        return solved

    def endpoint(self, func: Callable[..., Any], on_loop: bool) -> Callable[..., Any]:
        """The handler in its own span, current where it runs: on the loop, or its thread."""
        if on_loop:

            async def traced(**values: Any) -> Any:
                with _operation("endpoint", func):
                    return await func(**values)

            return traced

        def in_thread(**values: Any) -> Any:
            with _operation("endpoint", func):
                return func(**values)

        return in_thread

    def render(self, render: Render, func: Callable[..., Any]) -> Render:
        """Rendering a result that is no Response, in ``hasten.serialization``."""

        def traced(result: Any) -> Response:
            if isinstance(result, Response):
                return render(result)
            with _operation("serialization", func):
                return render(result)

        return traced


class Observed:
    """One request's (or WebSocket's) telemetry, from before it is routed to after its
    cleanup: its span, instruments, logger and data, what it recorded already."""

    __slots__ = (
        "active",
        "active_attributes",
        "attributes",
        "connection",
        "data",
        "duration",
        "entered",
        "exceptions",
        "finished",
        "logger",
        "operation",
        "outer",
        "route_override",
        "span",
        "span_method",
        "started",
        "telemetry",
        "tokens",
        "tracer",
        "websocket",
    )

    def __init__(self, telemetry: Telemetry, websocket: bool, connection: Connection) -> None:
        self.telemetry = telemetry
        self.websocket = websocket
        self.connection: Connection | None = connection
        # A mounted app's request: the outer app's (its Observed, or EXCLUDED), which it
        # tells the route it matched; then it observes nothing itself.
        self.outer: Any = None
        # The route a mounted app matched, below the mount's prefix (see ``outer``).
        self.route_override: str | None = None
        self.span: trace.Span | None = None
        self.span_method = ""
        self.tracer: trace.Tracer | None = None  # for operation spans, where they are on
        self.logger: Any = None
        self.duration: Any = None
        self.active: Any = None
        self.attributes: dict[str, Any] = {}
        self.active_attributes: dict[str, Any] = {}
        self.data: TelemetryData | None = TelemetryData()
        self.exceptions: list[BaseException] = []
        self.finished = False
        self.started = perf_counter()
        # The dependencies' span while it is open: (its manager, its span).
        self.operation: Any = None
        # The request's OpenTelemetry context, attached; then hasten's variables, set.
        self.entered: Token[context.Context] | None = None
        self.tokens: list[Token[Any]] = []

    def count(self, duration: Any, active: Any) -> None:
        """The request is measured: active from now on, its duration when it ends."""
        self.duration, self.active = duration, active
        self.active_attributes = {
            key: value
            for key, value in self.attributes.items()
            if key != "network.protocol.version"
        }
        active.add(1, self.active_attributes)

    def trace(self, tracer: trace.Tracer, parent: context.Context, method: str) -> None:
        """The request's SERVER span, a child of the caller's (``parent``)."""
        connection = self.connection
        assert connection is not None  # while it is served
        attributes = {**self.attributes, **_server_attributes(connection)}
        if not self.websocket:
            attributes["url.path"] = connection.path[:LOGGED_PATH_LENGTH]
            query = connection.query_string
            if query:
                attributes["url.query"] = _redacted(query)
            if method != connection.method:
                attributes["http.request.method_original"] = connection.method
        self.span = tracer.start_span(
            self.span_method, context=parent, kind=trace.SpanKind.SERVER, attributes=attributes
        )

    def enter(self, ctx: context.Context) -> None:
        """The request's context is current from now on: its span, its data."""
        self.entered = context.attach(ctx)
        self.tokens.append(unhandled_listener.set(self.unhandled))
        if self.tracer is not None:
            self.tokens.append(task_operation.set(_background_task))

    def leave(self) -> None:
        """The request is done: its data is gone (a context kept since finds none), and the
        context is the caller's again."""
        self.data = None
        self.connection = None  # a context kept since holds this, not the request
        self.exceptions.clear()
        while self.tokens:
            token = self.tokens.pop()
            token.var.reset(token)
        if self.entered is not None:
            context.detach(self.entered)
            self.entered = None

    # What the request's handling tells it.
    def connected(self, connection: Any) -> None:
        if self.data is not None:
            if self.websocket:
                self.data.websocket = connection
            else:
                self.data.request = connection

    def dependencies(self, func: Callable[..., Any]) -> None:
        if self.tracer is not None:
            manager = _traced_operation(self.tracer, "dependencies", func)
            manager.__enter__()
            self.operation = manager

    def solved(self, values: dict[str, Any] | None, error: BaseException | None) -> None:
        """The dependencies are solved (``values``: the handler's arguments), or failed."""
        if values is not None and self.data is not None:
            self.data.values = values
            self.data.errors = []
        manager, self.operation = self.operation, None
        if manager is not None:
            if error is None:
                manager.__exit__(None, None, None)
            else:
                manager.__exit__(type(error), error, error.__traceback__)

    async def around(self, name: str, func: Callable[..., Any], work: Any) -> Any:
        with _operation(name, func):
            return await work

    def validation_failed(
        self, exc: RequestValidationError | WebSocketRequestValidationError
    ) -> None:
        errors = exc.errors()
        if self.data is not None:
            if isinstance(exc, RequestValidationError) and exc.body is not None:
                body = exc.body
                # A body that is no JSON is kept as its text, as FastAPI keeps it.
                self.data.body = (
                    body.decode("utf-8", "replace") if isinstance(body, bytes) else body
                )
            self.data.errors = errors
        if self.logger is not None:
            attributes: dict[str, Any] = {_ERROR_COUNT: len(errors)}
            route = self.route()
            if route is not None:
                attributes["http.route"] = route
            self.logger.emit(
                event_name=_VALIDATION_FAILED,
                timestamp=time_ns(),
                severity_number=SeverityNumber.WARN,
                severity_text="WARN",
                body="Request validation failed",
                attributes=attributes,
            )

    def unhandled(self, exc: BaseException) -> None:
        """An exception the app did not handle: logged once, with the request's trace (a
        client's normal close of a WebSocket is none)."""
        if _normal_close(exc) or any(seen is exc for seen in self.exceptions):
            return
        self.exceptions.append(exc)
        if self.logger is None or not isinstance(exc, Exception):
            return
        route = self.route()
        self.logger.emit(
            exception=exc,
            event_name=_WEBSOCKET_EXCEPTION if self.websocket else "http.server.request.exception",
            timestamp=time_ns(),
            severity_number=SeverityNumber.ERROR,
            severity_text="ERROR",
            body=_WEBSOCKET_FAILED if self.websocket else _REQUEST_FAILED,
            attributes={"http.route": route} if route else None,
        )

    def route(self) -> str | None:
        """The route the request matched, once it did (below a mount: the mount's prefix,
        then the route the mounted app matched)."""
        if self.route_override is not None:
            return self.route_override
        target = getattr(self.connection, "_target", None)
        tag = getattr(target, "tag", None)
        return tag.template if tag is not None and tag.matched else None

    def finish(
        self, tag: RouteTag, status: int, error: BaseException | None, exchange: Exchange | None
    ) -> None:
        """The span ends and the duration is recorded, once: when the response is sent, or
        when the request ends without one."""
        if self.finished:
            return
        self.finished = True
        if isinstance(self.outer, Observed) and tag.matched:
            self.outer.route_override = _mount_prefix(self.outer) + tag.template
        if not self.attributes:  # excluded, or mounted in an app that observes it
            return
        attributes = self.attributes
        route = self.route()
        if route is not None:
            attributes["http.route"] = route
        if status:
            attributes["http.response.status_code"] = status
        failed = error is not None or (not self.websocket and (status == 0 or status >= 500))
        if failed:
            failure = error or (self.exceptions[-1] if self.exceptions else None)
            # No status at all: the response never started (FastAPI's word for it).
            reason = str(status or "incomplete_response")
            attributes["error.type"] = reason if failure is None else exception_type(failure)
        if self.span is not None:
            self._end_span(tag, failed, exchange)
        if self.duration is not None:
            self.duration.record(max(0.0, perf_counter() - self.started), attributes)
            self.active.add(-1, self.active_attributes)

    def _end_span(self, tag: RouteTag, failed: bool, exchange: Exchange | None) -> None:
        span = self.span
        assert span is not None
        span.set_attributes(self.attributes)
        span.set_attribute("hasten.runs_on", tag.runs_on)
        route = self.attributes.get("http.route")
        if route is not None:
            span.update_name(f"{self.span_method} {route}")
        if exchange is not None and exchange.status:
            span.set_attribute("http.response.body.size", exchange.sent)
        if exchange is not None and exchange.queued:
            span.set_attribute("hasten.queue.duration", exchange.queued)
        if failed:
            span.set_status(trace.StatusCode.ERROR)
        span.end()


# What a request's context holds where the app excludes it (``telemetry={"exclude": ...}``):
# no telemetry for it, nor for an app mounted in it, nor from an outer request's.
EXCLUDED = object()


def _mount_prefix(outer: Observed) -> str:
    """The prefix of the mount an outer request matched (``/child`` of
    ``/child/{mount_path:path}``)."""
    tag = getattr(getattr(outer.connection, "_target", None), "tag", None)
    template = tag.template if tag is not None else ""
    return template.removesuffix("/{" + MOUNT_PATH + ":path}")


def current() -> Observed | None:
    """The telemetry of the request being served, where it is on for it."""
    found = context.get_value(DATA_KEY)
    return found if isinstance(found, Observed) else None


def _operation(name: str, function: Any) -> Any:
    """A span of the request's (``hasten.<name>``) around what runs within, current there;
    nothing where its operations are not traced."""
    observed = current()
    if observed is None or observed.tracer is None:
        return nullcontext()
    return _traced_operation(observed.tracer, name, function)


@contextmanager
def _traced_operation(tracer: trace.Tracer, name: str, function: Any) -> Iterator[None]:
    attributes = {"code.function.name": _function_name(function)} if function is not None else {}
    with tracer.start_as_current_span(
        f"hasten.{name}",
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        try:
            yield
        except Exception as exc:
            # An answer given on purpose (an HTTPException, a 422) is no failure of the
            # operation; a background task's is, whatever it raised.
            if name == "background_task" or not (isinstance(exc, _HANDLED) or _normal_close(exc)):
                span.set_attribute("error.type", exception_type(exc))
                span.set_status(trace.StatusCode.ERROR)
            raise


def _background_task(function: Any) -> Any:
    return _operation("background_task", function)


def _is_noop(provider: Any) -> bool:
    return isinstance(
        provider, trace.NoOpTracerProvider | metrics.NoOpMeterProvider | _logs.NoOpLoggerProvider
    )


class _HeadersGetter:
    """How the propagator reads a request's headers (``baggage`` given as one value)."""

    def get(self, carrier: Any, key: str) -> list[str] | None:
        values: list[str] = carrier.get_all(key)
        if not values:
            return None
        return [",".join(values)] if key.lower() == "baggage" else values

    def keys(self, carrier: Any) -> list[str]:
        return list(carrier)


_HEADERS = cast("Any", _HeadersGetter())


def _redacted(query: str) -> str:
    """The query as the span says it: decoded, each secret's value ``REDACTED``."""
    return urlencode(
        [
            (key, "REDACTED" if key in _SENSITIVE_QUERY else value)
            for key, value in parse_qsl(query, keep_blank_values=True)
        ]
    )


def _server_attributes(connection: Connection) -> dict[str, Any]:
    """``server.address`` and ``server.port``: the Host the client asked for (its scheme's
    port when it gives none), else the server's own address; none from a malformed Host."""
    authority = connection._header("host")
    address: str | None
    port: int | None
    if authority is not None:
        try:
            host, given = host_port(authority)
        except HTTPError:
            return {}
        address = host.strip("[]").lower()
        port = int(given) if given else DEFAULT_PORTS.get(connection.scheme)
    else:
        server = connection.scope.get("server") or (None, None)
        address, port = server[0], server[1]
    if not address:
        return {}
    attributes: dict[str, Any] = {"server.address": address}
    if port is not None:
        attributes["server.port"] = port
    return attributes
