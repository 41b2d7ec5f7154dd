"""``fastapi.requests``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.requests import HTTPConnection, Request

__all__ = ["HTTPConnection", "Request"]
