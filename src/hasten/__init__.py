"""hasten: a Python web framework compiled once at startup, served over RSGI and ASGI."""

from typing import TYPE_CHECKING, Any

from .app import App, RouteInfo
from .connection import Connection
from .datastructures import Address, Headers, MutableHeaders, QueryParams, State
from .errors import HTTPError
from .params import Body, Cookie, Header, Parameter, Path, Query
from .requests import Request
from .responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from .routing import Route, Router
from .settings import Settings

if TYPE_CHECKING:
    from .templating import Jinja2Templates as Jinja2Templates

__version__ = "0.1.0"

__all__ = [
    "Address",
    "App",
    "Body",
    "Connection",
    "Cookie",
    "FileResponse",
    "HTMLResponse",
    "HTTPError",
    "Header",
    "Headers",
    "JSONResponse",
    "MutableHeaders",
    "Parameter",
    "Path",
    "PlainTextResponse",
    "Query",
    "QueryParams",
    "RedirectResponse",
    "Request",
    "Response",
    "Route",
    "RouteInfo",
    "Router",
    "Settings",
    "State",
    "StreamingResponse",
    "__version__",
]


def __getattr__(name: str) -> Any:
    # Jinja2 is an optional extra (hasten[templates]): hasten.Jinja2Templates imports it on
    # first use, and stays out of __all__ so that `from hasten import *` never needs it.
    if name == "Jinja2Templates":
        from .templating import Jinja2Templates

        return Jinja2Templates
    raise AttributeError(f"module 'hasten' has no attribute {name!r}")
