"""FastAPI's built-in telemetry, by its names (``fastapi.telemetry``): ``App(telemetry={...})``
takes a ``TelemetryConfig``, and ``get_telemetry_data()`` gives an OpenTelemetry processor
what the request being served holds (its Request, body, argument values, validation errors).

The public names; the code is in ``hasten._observing.telemetry``."""

from hasten._observing.telemetry import (
    DATA_KEY,
    TelemetryConfig,
    TelemetryData,
    get_telemetry_data,
)

__all__ = [
    "DATA_KEY",
    "TelemetryConfig",
    "TelemetryData",
    "get_telemetry_data",
]
