"""Operating a running app: observation, tallies, metrics, stats, tracing and FastAPI's telemetry,
the access log, draining. It may import ``_values``, ``_http``, ``_running``, ``_settings``."""
