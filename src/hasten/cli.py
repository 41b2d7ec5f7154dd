"""The command line: ``hasten run`` serves an app, ``routes`` lists it, ``bench`` measures it,
``openapi`` prints its OpenAPI document.

The public names; the code is in ``hasten._cli.main``."""

from hasten._cli.loading import UsageError, load_app
from hasten._cli.main import RunConfig, build_parser, format_routes, main, serve

__all__ = [
    "RunConfig",
    "UsageError",
    "build_parser",
    "format_routes",
    "load_app",
    "main",
    "serve",
]
