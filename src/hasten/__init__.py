"""hasten: a Python web framework compiled once at startup, served over RSGI and ASGI."""

from .app import App, RouteInfo
from .connection import Connection
from .datastructures import Address, Headers, MutableHeaders, QueryParams, State
from .errors import HTTPError
from .files import FileResponse
from .params import Body, Cookie, Header, Parameter, Path, Query
from .requests import Request
from .responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from .routing import Route, Router
from .settings import Settings
from .sse import EventSourceResponse, ServerSentEvent
from .staticfiles import StaticFiles
from .websockets import WebSocket, WebSocketDisconnect

__version__ = "0.1.0"

__all__ = [
    "Address",
    "App",
    "Body",
    "Connection",
    "Cookie",
    "EventSourceResponse",
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
    "ServerSentEvent",
    "Settings",
    "State",
    "StaticFiles",
    "StreamingResponse",
    "WebSocket",
    "WebSocketDisconnect",
    "__version__",
]
