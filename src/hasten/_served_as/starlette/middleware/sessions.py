"""``starlette.middleware.sessions``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.config import Secret
from hasten.datastructures import MutableHeaders
from hasten.middleware.sessions import Session, SessionMiddleware
from hasten.requests import HTTPConnection

__all__ = ["HTTPConnection", "MutableHeaders", "Secret", "Session", "SessionMiddleware"]
