"""``starlette.templating``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.background import BackgroundTask
from hasten.datastructures import URL
from hasten.requests import Request
from hasten.responses import HTMLResponse
from hasten.templating import Jinja2Templates

__all__ = ["URL", "BackgroundTask", "HTMLResponse", "Jinja2Templates", "Request"]
