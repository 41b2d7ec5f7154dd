"""The command line: ``hasten run`` serves an app, ``routes`` lists it, ``bench`` measures it,
``openapi`` prints its OpenAPI document.

The public names; the code is in ``hasten._cli.main``."""

from hasten._cli.main import (
    RunConfig,
    UsageError,
    build_parser,
    format_routes,
    load_app,
    main,
    serve,
)

__all__ = [
    "RunConfig",
    "UsageError",
    "build_parser",
    "format_routes",
    "load_app",
    "main",
    "serve",
]
