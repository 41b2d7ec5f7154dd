"""Reading a request's values: parameter descriptions, plans, the solver, extractors, validation,
endpoints, models, renderers. It may import ``_http``, ``_running`` and ``_settings``."""
