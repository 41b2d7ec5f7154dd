"""``starlette.middleware.cors``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.datastructures import Headers, MutableHeaders
from hasten.middleware import CORSMiddleware
from hasten.responses import PlainTextResponse, Response

__all__ = ["CORSMiddleware", "Headers", "MutableHeaders", "PlainTextResponse", "Response"]
