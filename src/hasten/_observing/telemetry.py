"""FastAPI's built-in telemetry, by its names (``fastapi.telemetry``): ``App(telemetry={...})``
takes a ``TelemetryConfig``, and ``get_telemetry_data()`` gives an OpenTelemetry processor
what the request being served holds (its Request, body, argument values, validation errors).

What is traced, measured and logged for each request is hasten's request telemetry
(``hasten._observing.tracing``): a SERVER span, operation spans, FastAPI's two metrics and its log
records. Needs opentelemetry-api: ``pip install 'hasten[otel]'``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

try:
    from opentelemetry import context as otel_context
except ImportError as exc:  # pragma: no cover - the dev install has it
    raise ImportError(
        "hasten._observing.telemetry needs opentelemetry-api: pip install 'hasten[otel]'"
    ) from exc

from hasten._settings import TelemetryKeywords

if TYPE_CHECKING:
    from collections.abc import Sequence

    from hasten._http.requests import Request
    from hasten._http.websockets import WebSocket

__all__ = ["DATA_KEY", "TelemetryConfig", "TelemetryData", "get_telemetry_data"]

# FastAPI's name for the keys ``App(telemetry=...)`` takes.
TelemetryConfig = TelemetryKeywords

# Where a request's telemetry is in its OpenTelemetry context, while it is served.
DATA_KEY = otel_context.create_key("hasten.request")


class TelemetryData:
    """What the request or WebSocket being served holds, for synchronous OpenTelemetry
    processors (FastAPI's): filled in as the request is handled, and read-only for them.
    Nothing of it is exported unless a processor exports it.

    ``request`` (or ``websocket``) from when its handler's values are read; ``body`` the body
    as read, before validation (JSON decoded, or the text that is no JSON); ``values`` the
    handler's arguments once its dependencies are solved; ``errors`` the validation errors,
    with the values given.
    """

    __slots__ = ("_body", "_body_set", "errors", "request", "values", "websocket")

    def __init__(self) -> None:
        self.request: Request | None = None
        self.websocket: WebSocket | None = None
        self.values: dict[str, Any] | None = None
        self.errors: Sequence[Any] | None = None
        self._body: Any = None
        self._body_set = False

    @property
    def body(self) -> Any:
        """The body read for the request, before validation: decoded on first use (it costs
        nothing unless a processor reads it)."""
        if not self._body_set and self.request is not None:
            self._body = _read_body(self.request)
            self._body_set = True
        return self._body

    @body.setter
    def body(self, value: Any) -> None:
        self._body = value
        self._body_set = True

    def __repr__(self) -> str:
        return f"TelemetryData(request={self.request!r}, websocket={self.websocket!r})"


def _read_body(request: Request) -> Any:
    """The body the request has read, as FastAPI keeps it: JSON decoded, else its text; None
    when there was none (or it was not read)."""
    raw: bytes | None = getattr(request, "_body", None)  # set once the body is read
    if not raw:
        return None
    import msgspec

    try:
        return msgspec.json.decode(raw)
    except msgspec.DecodeError:
        return raw.decode("utf-8", "replace")


def get_telemetry_data(context: otel_context.Context | None = None) -> TelemetryData | None:
    """The data of the request being served in ``context`` (the current one by default; a
    log processor passes ``record.context``), or None: outside a request, after it ends (even
    from a context kept since), or where telemetry is off for it."""
    found = otel_context.get_value(DATA_KEY, context)
    return getattr(found, "data", None)
