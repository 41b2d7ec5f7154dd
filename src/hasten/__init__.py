"""hasten: a Python web framework compiled once at startup, served over RSGI and ASGI."""

from .app import App, RouteInfo
from .datastructures import Address, Headers, MutableHeaders, QueryParams
from .errors import HTTPError
from .requests import Request
from .responses import JSONResponse, RedirectResponse, Response
from .routing import Route, Router
from .settings import Settings

__version__ = "0.1.0"

__all__ = [
    "Address",
    "App",
    "HTTPError",
    "Headers",
    "JSONResponse",
    "MutableHeaders",
    "QueryParams",
    "RedirectResponse",
    "Request",
    "Response",
    "Route",
    "RouteInfo",
    "Router",
    "Settings",
    "__version__",
]
