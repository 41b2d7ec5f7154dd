"""``fastapi``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten import (
    APIRouter,
    BackgroundTasks,
    Body,
    Cookie,
    Depends,
    FastAPI,
    File,
    Form,
    Header,
    HTTPException,
    Path,
    Query,
    Request,
    Response,
    Security,
    UploadFile,
    WebSocket,
    WebSocketDisconnect,
    WebSocketException,
)
from hasten import status as status

# As FastAPI's package, which imports them: its modules are its attributes too.
from hasten._served_as.fastapi import applications as applications
from hasten._served_as.fastapi import background as background
from hasten._served_as.fastapi import datastructures as datastructures
from hasten._served_as.fastapi import exceptions as exceptions
from hasten._served_as.fastapi import param_functions as param_functions
from hasten._served_as.fastapi import params as params
from hasten._served_as.fastapi import requests as requests
from hasten._served_as.fastapi import routing as routing
from hasten._served_as.fastapi import websockets as websockets

# The release whose public names this module holds.
__version__ = "0.165.0"

__all__ = [
    "APIRouter",
    "BackgroundTasks",
    "Body",
    "Cookie",
    "Depends",
    "FastAPI",
    "File",
    "Form",
    "HTTPException",
    "Header",
    "Path",
    "Query",
    "Request",
    "Response",
    "Security",
    "UploadFile",
    "WebSocket",
    "WebSocketDisconnect",
    "WebSocketException",
    "__version__",
]
