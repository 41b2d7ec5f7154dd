"""hasten: a Python web framework compiled once at startup, served over RSGI and ASGI."""

from typing import TYPE_CHECKING, Any

from hasten import status
from hasten.app import App, RouteInfo
from hasten.background import BackgroundTasks
from hasten.connection import Connection
from hasten.datastructures import Address, Headers, MutableHeaders, QueryParams, State
from hasten.dependencies import Security
from hasten.errors import HTTPError, HTTPException, RequestValidationError, WebSocketException
from hasten.files import FileResponse
from hasten.forms import FormData
from hasten.params import Body, Cookie, Depends, File, Form, Header, Param, Parameter, Path, Query
from hasten.requests import Request
from hasten.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from hasten.routing import Route, Router
from hasten.security import (
    APIKeyCookie,
    APIKeyHeader,
    APIKeyQuery,
    HTTPAuthorizationCredentials,
    HTTPBasic,
    HTTPBasicCredentials,
    HTTPBearer,
    OAuth2PasswordBearer,
    OAuth2PasswordRequestForm,
)
from hasten.settings import Settings
from hasten.sse import EventSourceResponse, ServerSentEvent
from hasten.staticfiles import StaticFiles
from hasten.uploads import UploadFile
from hasten.websockets import WebSocket, WebSocketDisconnect

if TYPE_CHECKING:
    from hasten.templating import Jinja2Templates as Jinja2Templates

__version__ = "0.1.0"

__all__ = [
    "APIKeyCookie",
    "APIKeyHeader",
    "APIKeyQuery",
    "Address",
    "App",
    "BackgroundTasks",
    "Body",
    "Connection",
    "Cookie",
    "Depends",
    "EventSourceResponse",
    "File",
    "FileResponse",
    "Form",
    "FormData",
    "HTMLResponse",
    "HTTPAuthorizationCredentials",
    "HTTPBasic",
    "HTTPBasicCredentials",
    "HTTPBearer",
    "HTTPError",
    "HTTPException",
    "Header",
    "Headers",
    "JSONResponse",
    "MutableHeaders",
    "OAuth2PasswordBearer",
    "OAuth2PasswordRequestForm",
    "Param",
    "Parameter",
    "Path",
    "PlainTextResponse",
    "Query",
    "QueryParams",
    "RedirectResponse",
    "Request",
    "RequestValidationError",
    "Response",
    "Route",
    "RouteInfo",
    "Router",
    "Security",
    "ServerSentEvent",
    "Settings",
    "State",
    "StaticFiles",
    "StreamingResponse",
    "UploadFile",
    "WebSocket",
    "WebSocketDisconnect",
    "WebSocketException",
    "__version__",
    "status",
]


def __getattr__(name: str) -> Any:
    # Jinja2 is an optional extra (hasten[templates]): hasten.Jinja2Templates imports it on
    # first use, and stays out of __all__ so that `from hasten import *` never needs it.
    if name == "Jinja2Templates":
        from hasten.templating import Jinja2Templates

        return Jinja2Templates
    raise AttributeError(f"module 'hasten' has no attribute {name!r}")
