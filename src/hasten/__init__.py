"""hasten: a Python web framework compiled once at startup, served over RSGI and ASGI."""

from .app import App, RouteInfo
from .background import BackgroundTasks
from .connection import Connection
from .datastructures import Address, Headers, MutableHeaders, QueryParams, State
from .dependencies import Security
from .errors import HTTPError, RequestValidationError
from .forms import FormData
from .params import Body, Cookie, Depends, File, Form, Header, Parameter, Path, Query
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
from .security import (
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
from .settings import Settings
from .uploads import UploadFile

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
    "Header",
    "Headers",
    "JSONResponse",
    "MutableHeaders",
    "OAuth2PasswordBearer",
    "OAuth2PasswordRequestForm",
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
    "Settings",
    "State",
    "StreamingResponse",
    "UploadFile",
    "__version__",
]
