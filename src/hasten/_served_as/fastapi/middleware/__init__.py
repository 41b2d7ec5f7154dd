"""``fastapi.middleware``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.middleware import Middleware

__all__ = ["Middleware"]
