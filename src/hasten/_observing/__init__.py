"""Observing a running app: observation, tallies, metrics, stats, tracing and FastAPI's
telemetry, the access log, draining. It may import ``_params``, ``_http``, ``_flow``,
``_running``, ``_settings``."""
