"""hasten: a Python web framework compiled once at startup, served over RSGI and ASGI."""

from typing import TYPE_CHECKING, Any

from hasten import status
from hasten._http.background import BackgroundTasks
from hasten._http.connection import Connection
from hasten._http.datastructures import Address, Headers, MutableHeaders, QueryParams, State
from hasten._http.errors import HTTPError, HTTPException, RequestValidationError, WebSocketException
from hasten._http.files import FileResponse
from hasten._http.forms import FormData
from hasten._http.requests import Request
from hasten._http.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from hasten._http.sse import EventSourceResponse, ServerSentEvent
from hasten._http.static_files import StaticFiles
from hasten._http.uploads import UploadFile
from hasten._http.websockets import WebSocket, WebSocketDisconnect
from hasten._params.dependencies import Security
from hasten._params.descriptions import Parameter
from hasten._params.markers import Body, Cookie, Depends, File, Form, Header, Param, Path, Query
from hasten._serve.routes import Route
from hasten._settings import Settings
from hasten._version import __version__
from hasten.app import App, RouteInfo
from hasten.routing import Router
from hasten.security.api_key import APIKeyCookie, APIKeyHeader, APIKeyQuery
from hasten.security.http import (
    HTTPAuthorizationCredentials,
    HTTPBasic,
    HTTPBasicCredentials,
    HTTPBearer,
)
from hasten.security.oauth2 import OAuth2PasswordBearer, OAuth2PasswordRequestForm

# FastAPI's names for the same classes: code written for FastAPI reads as it was written.
FastAPI = App
APIRouter = Router
APIRoute = Route

if TYPE_CHECKING:
    from hasten.templating import Jinja2Templates as Jinja2Templates


__all__ = [
    "APIKeyCookie",
    "APIKeyHeader",
    "APIKeyQuery",
    "APIRoute",
    "APIRouter",
    "Address",
    "App",
    "BackgroundTasks",
    "Body",
    "Connection",
    "Cookie",
    "Depends",
    "EventSourceResponse",
    "FastAPI",
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
