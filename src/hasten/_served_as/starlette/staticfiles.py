"""``starlette.staticfiles``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.datastructures import URL, Headers
from hasten.errors import HTTPException
from hasten.responses import FileResponse, RedirectResponse, Response
from hasten.staticfiles import StaticFiles

__all__ = [
    "URL",
    "FileResponse",
    "HTTPException",
    "Headers",
    "RedirectResponse",
    "Response",
    "StaticFiles",
]
