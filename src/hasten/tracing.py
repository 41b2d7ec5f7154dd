"""OpenTelemetry tracing through ``opentelemetry-api`` only: a SERVER span per request, named
by its route (``GET /items/{id}``), with the HTTP semantic conventions' attributes.

An incoming trace context (``traceparent``, ``tracestate``, ``baggage``: whatever the global
propagator reads, W3C's by default) makes the span a child of the caller's, so the request
joins the upstream trace. Whether to trace is decided at startup: without a tracer provider
set by then (an SDK's), the API's is a no-op, and the app keeps the plain request path.
"""

from __future__ import annotations

from contextvars import Token
from typing import TYPE_CHECKING

from .observe import Exchange, RouteTag

if TYPE_CHECKING:
    from .requests import Request

try:
    from opentelemetry import context, propagate, trace
except ImportError as exc:  # pragma: no cover - the dev install has it
    raise ImportError("tracing=True needs opentelemetry-api: pip install 'hasten[otel]'") from exc

__all__ = ["Tracing", "configured"]

LOGGED_PATH_LENGTH = 200  # as in error logs: a long path must not make a long span
# A span, the token that made it current, and the method it was named by.
Started = tuple["trace.Span", Token["context.Context"], str]


def configured() -> bool:
    """Whether a tracer provider is set (the API's default is a proxy to nothing)."""
    provider = trace.get_tracer_provider()
    return not isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider)


class Tracing:
    """Starts and ends each request's span; the span is current while the handler runs, so
    the handler's own spans (on the loop, or on a thread) are its children. It is started
    before the request is routed, named by the method, and renamed by its route at the end,
    as the HTTP semantic conventions allow."""

    def __init__(self, provider: trace.TracerProvider | None = None) -> None:
        """``provider``: the app's own (FastAPI's ``telemetry={"tracer_provider": ...}``),
        else the global one."""
        from . import __version__

        self.tracer = trace.get_tracer("hasten", __version__, provider)

    def start(self, method: str, request: Request) -> Started:
        attributes: dict[str, str] = {
            "http.request.method": method,
            "url.path": request.path[:LOGGED_PATH_LENGTH],
        }
        parent = _upstream(request)
        span = self.tracer.start_span(
            method, parent, kind=trace.SpanKind.SERVER, attributes=attributes
        )
        return span, context.attach(trace.set_span_in_context(span, parent)), method

    def end(self, started: Started, tag: RouteTag, exchange: Exchange) -> None:
        span, token, method = started
        context.detach(token)
        span.set_attribute("hasten.runs_on", tag.runs_on)
        if tag.matched:
            span.set_attribute("http.route", tag.template)
            span.update_name(f"{method} {tag.template}")
        if exchange.status:
            span.set_attribute("http.response.status_code", exchange.status)
            span.set_attribute("http.response.body.size", exchange.sent)
            if exchange.status >= 500:
                span.set_status(trace.StatusCode.ERROR)
        if exchange.queued:
            span.set_attribute("hasten.queue.duration", exchange.queued)
        span.end()


def _upstream(request: Request) -> context.Context | None:
    """The caller's trace context, from the headers the global propagator reads; None when
    the request carries none (the span then starts a trace)."""
    fields = propagate.get_global_textmap().fields
    headers = request.headers
    carrier = {name: value for name in fields if (value := headers.get(name)) is not None}
    return propagate.extract(carrier) if carrier else None
