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
