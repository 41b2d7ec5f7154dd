"""``starlette.middleware.opentelemetry``, served by hasten: Starlette 1.10's experimental
middleware that makes one OpenTelemetry server span for each HTTP request, over ASGI.

hasten traces an app of its own accord once a tracer provider is set (``telemetry=``, as
FastAPI 0.165 does: docs/observability.md). This class is for code that adds Starlette's: a
span named by the route's template once the app has matched it (``GET /users/{name}``), with
the HTTP semantic conventions' attributes, a remote parent taken from the request's headers,
and one span however many of these middlewares the request passes through."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

try:
    from opentelemetry import metrics, propagate, trace
    from opentelemetry.trace import SpanKind, Status, StatusCode
except ImportError:  # pragma: no cover - an optional dependency
    raise ImportError(
        "starlette.middleware.opentelemetry needs the opentelemetry-api package"
    ) from None

from hasten._http.connection import MOUNT_PATH
from hasten._served_as.starlette import __version__
from hasten.datastructures import URL
from hasten.routing import Host, Mount
from hasten.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["OpenTelemetryMiddleware"]

_TRACED = "starlette.opentelemetry"  # in the scope while a span is open for the request


class OpenTelemetryMiddleware:
    """A server span for each HTTP request ``app`` serves; none for a URL that one of
    ``excluded_urls`` (regular expressions, or one string of them split on commas)
    matches."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        excluded_urls: str | Sequence[str] = (),
        tracer_provider: trace.TracerProvider | None = None,
        meter_provider: metrics.MeterProvider | None = None,
    ) -> None:
        self.app = app
        if isinstance(excluded_urls, str):
            excluded_urls = [part.strip() for part in excluded_urls.split(",") if part.strip()]
        self._excluded = tuple(re.compile(pattern) for pattern in excluded_urls)
        self._tracer_provider = tracer_provider
        self._meter_provider = meter_provider  # taken, as Starlette's; no metric is made

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get(_TRACED):
            await self.app(scope, receive, send)
            return
        scope[_TRACED] = True  # an inner middleware of this kind, or an app mounted, adds none
        try:
            provider = self._tracer_provider or trace.get_tracer_provider()
            url = URL(scope=scope)
            if isinstance(provider, trace.NoOpTracerProvider) or any(
                pattern.search(str(url)) for pattern in self._excluded
            ):
                await self.app(scope, receive, send)
                return
            await self._traced(provider, url, scope, receive, send)
        finally:
            del scope[_TRACED]

    async def _traced(
        self, provider: Any, url: URL, scope: Scope, receive: Receive, send: Send
    ) -> None:
        headers: dict[str, list[str]] = {}
        for name, value in scope.get("headers", ()):
            headers.setdefault(name.decode("latin-1").lower(), []).append(value.decode("latin-1"))
        method = str(scope.get("method", "")).upper()
        tracer = provider.get_tracer("starlette", __version__)
        with tracer.start_as_current_span(
            method,
            context=propagate.extract(headers),
            kind=SpanKind.SERVER,
            attributes=_request_attributes(scope, url, method, headers),
        ) as span:

            async def send_with_status(message: Message) -> None:
                if message["type"] == "http.response.start":
                    status = message["status"]
                    span.set_attribute("http.response.status_code", status)
                    if status >= 500:
                        span.set_attribute("error.type", str(status))
                        span.set_status(Status(StatusCode.ERROR))
                await send(message)

            try:
                await self.app(scope, receive, send_with_status)
            except Exception as exc:
                span.set_attribute("error.type", type(exc).__qualname__)
                raise
            finally:
                route = _route_template(scope)
                if route is not None:
                    span.update_name(f"{method} {route}")
                    span.set_attribute("http.route", route)


def _request_attributes(
    scope: Scope, url: URL, method: str, headers: dict[str, list[str]]
) -> dict[str, str | int]:
    """The request's attributes by the HTTP semantic conventions, those it has."""
    given = scope.get("method", "")
    attributes: dict[str, str | int] = {
        "http.request.method": method,
        "url.path": scope.get("path", ""),
        "url.scheme": scope.get("scheme", "http"),
    }
    if given != method:
        attributes["http.request.method_original"] = given
    if url.query:
        attributes["url.query"] = url.query
    if url.hostname is not None:
        attributes["server.address"] = url.hostname
        server = scope.get("server")
        port = url.port if url.port is not None else server[1] if server else None
        if port is not None:
            attributes["server.port"] = port
    if scope.get("http_version"):
        attributes["network.protocol.version"] = scope["http_version"]
    if scope.get("client"):
        attributes["client.address"] = scope["client"][0]
    if headers.get("user-agent"):
        attributes["user_agent.original"] = headers["user-agent"][0]
    return attributes


def _route_template(scope: Scope) -> str | None:
    """The matched route's template under the path the app is mounted at; a mount's own
    path where nothing under it matched; None where no route says."""
    route = scope.get("route")
    if isinstance(route, Host):  # a host has no path: its app's is not known here
        return None
    if isinstance(route, Mount):  # its prefix, whichever of its two routes matched
        prefix = route.path.removesuffix(f"/{{{MOUNT_PATH}:path}}")
        return scope.get("root_path", "").rstrip("/") + prefix or "/"
    template = getattr(route, "path_format", None)
    if not isinstance(template, str):
        return None
    return scope.get("root_path", "").rstrip("/") + template or "/"
