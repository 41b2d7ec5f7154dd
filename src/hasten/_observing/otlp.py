"""OTLP exporters from the environment, for FastAPI's ``telemetry={"auto_configure": True}``
(or ``FASTAPI_OTEL_AUTO_CONFIGURE=true``): when the app starts, each signal it records whose
OTLP endpoint the environment gives (``OTEL_EXPORTER_OTLP_ENDPOINT``, or the signal's own
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` ...) is exported there over HTTP/protobuf.

The providers in place are kept, and an exporter is added to them; where none is set, an SDK
provider is made and set globally. What is made here is flushed when the app stops and shut
down when the process exits; each provider gets its exporter once, however many apps or
starts ask. A configuration that cannot be honoured is logged, and the app starts anyway.
Needs the SDK and the OTLP exporter: ``pip install 'hasten[otel,otlp]'``.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import _logs, metrics, trace

from hasten._http.errors import FastAPIError
from hasten._observing.tracing import configured

__all__ = ["configure_from_environment", "flush", "shutdown"]

logger = logging.getLogger("hasten.error")

# Each signal: the environment's name for it, its switch in the config, its provider's key.
_SIGNALS = (
    ("TRACES", "tracing", "tracer_provider"),
    ("METRICS", "metrics", "meter_provider"),
    ("LOGS", "logs", "logger_provider"),
)
_GLOBAL: dict[str, tuple[Callable[[], Any], Callable[[Any], None]]] = {
    "TRACES": (trace.get_tracer_provider, trace.set_tracer_provider),
    "METRICS": (metrics.get_meter_provider, metrics.set_meter_provider),
    "LOGS": (_logs.get_logger_provider, _logs.set_logger_provider),
}
_INSTALL = (
    "Automatic OpenTelemetry export needs the SDK and the OTLP exporter: pip install "
    "'hasten[otel,otlp]'; or configure the providers yourself and pass "
    "telemetry={'auto_configure': False}."
)

_lock = threading.RLock()
_owned: list[Any] = []  # what this module made: flushed at each stop, shut down at exit
_configured: list[tuple[str, Any]] = []  # (signal, provider) given an exporter already


def configure_from_environment(config: Mapping[str, Any]) -> None:
    """Add the environment's OTLP exporters to the providers of the signals ``config``
    records; a failure is logged, never raised (telemetry must not stop the app)."""
    try:
        _configure(config)
    except Exception as exc:
        logger.warning("Automatic telemetry configuration failed: %s", exc)


def flush() -> None:
    """Export what the exporters made here hold (the app is stopping)."""
    for component in tuple(_owned):
        try:
            component.force_flush()
        except Exception:
            logger.exception("Flushing telemetry failed")


def shutdown() -> None:
    """Shut down what was made here (at the process's exit): the exporters send what they
    hold, once."""
    with _lock:
        owned = tuple(_owned)
        _owned.clear()
    for component in owned:
        try:
            component.shutdown()
        except Exception:
            logger.exception("Shutting telemetry down failed")


atexit.register(shutdown)


def _configure(config: Mapping[str, Any]) -> None:
    if os.getenv("OTEL_SDK_DISABLED", "").lower() == "true":
        return
    with _lock:
        requested = [
            (signal, config.get(key), endpoint)
            for signal, switch, key in _SIGNALS
            if config.get(switch, True) and (endpoint := _endpoint(signal)) is not None
        ]
        if not requested:
            return
        made = _components()
        for signal, explicit, endpoint in requested:
            _register(signal, explicit, made[signal](endpoint))


def _endpoint(signal: str) -> str | None:
    """Where the environment exports ``signal``, checked as the OTLP exporter would take it;
    None where it exports it nowhere."""
    exporter = (os.getenv(f"OTEL_{signal}_EXPORTER") or "otlp").strip().lower()
    endpoint = os.getenv(f"OTEL_EXPORTER_OTLP_{signal}_ENDPOINT")
    if not endpoint:
        endpoint = os.getenv("OTEL_EXPORTER_OTLP_ENDPOINT")
        if endpoint:
            endpoint = f"{endpoint.removesuffix('/')}/v1/{signal.lower()}"
    if not endpoint or exporter == "none":
        return None
    if exporter != "otlp":
        raise FastAPIError(
            f"Automatic telemetry supports OTEL_{signal}_EXPORTER=otlp or none: configure "
            "other exporters yourself and pass telemetry={'auto_configure': False}."
        )
    protocol = (
        os.getenv(f"OTEL_EXPORTER_OTLP_{signal}_PROTOCOL")
        or os.getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
        or "http/protobuf"
    )
    if protocol != "http/protobuf":
        raise FastAPIError(
            "Automatic telemetry exports over OTLP http/protobuf only: configure other "
            "transports yourself and pass telemetry={'auto_configure': False}."
        )
    url = urlsplit(endpoint)
    if url.scheme not in ("http", "https") or not url.hostname:
        raise FastAPIError(
            f"Invalid OTLP {signal.lower()} endpoint {endpoint!r}: give an absolute HTTP or "
            "HTTPS URL."
        )
    return endpoint


def _components() -> dict[str, Callable[[str], Any]]:
    """How each signal's exporter is made: the SDK's batching part around OTLP's."""
    try:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
        from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError as exc:
        raise FastAPIError(_INSTALL) from exc
    return {
        "TRACES": lambda endpoint: BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)),
        "METRICS": lambda endpoint: PeriodicExportingMetricReader(
            OTLPMetricExporter(endpoint=endpoint)
        ),
        "LOGS": lambda endpoint: BatchLogRecordProcessor(OTLPLogExporter(endpoint=endpoint)),
    }


def _register(signal: str, explicit: Any, component: Any) -> None:
    """Give ``signal``'s provider (the app's, else the global one) the exporter
    ``component``; where there is no provider, one of the SDK's, set globally."""
    get_global, set_global = _GLOBAL[signal]
    provider = explicit if explicit is not None else get_global()
    if any(done == signal and other is provider for done, other in _configured):
        component.shutdown()
        return
    if explicit is None and not configured(provider):
        made = _sdk_provider(signal, component)
        set_global(made)
        if get_global() is made:
            _configured.append((signal, made))
            _owned.append(made)
            return
        made.shutdown()  # another part of the process set one meanwhile: use it
        provider = get_global()
    add = _adder(signal, provider)
    if add is None:
        component.shutdown()
        raise FastAPIError(
            f"The OpenTelemetry provider of {signal.lower()} cannot take an exporter: "
            "configure its export yourself and pass telemetry={'auto_configure': False}."
        )
    try:
        add(component)
    except Exception:
        component.shutdown()
        raise
    _configured.append((signal, provider))
    _owned.append(component)


def _sdk_provider(signal: str, component: Any) -> Any:
    if signal == "TRACES":
        from opentelemetry.sdk.trace import TracerProvider

        tracer = TracerProvider(shutdown_on_exit=False)
        tracer.add_span_processor(component)
        return tracer
    if signal == "METRICS":
        from opentelemetry.sdk.metrics import MeterProvider

        return MeterProvider(metric_readers=[component], shutdown_on_exit=False)
    from opentelemetry.sdk._logs import LoggerProvider

    logs = LoggerProvider(shutdown_on_exit=False)
    logs.add_log_record_processor(component)
    return logs


def _adder(signal: str, provider: Any) -> Callable[[Any], None] | None:
    """The provider's method that takes an exporter of ``signal``, where it has one."""
    name = {
        "TRACES": "add_span_processor",
        "METRICS": "add_metric_reader",
        "LOGS": "add_log_record_processor",
    }[signal]
    found = getattr(provider, name, None)
    return found if callable(found) else None
