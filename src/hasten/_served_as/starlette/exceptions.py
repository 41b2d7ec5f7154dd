"""``starlette.exceptions``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.errors import HTTPException, StarletteDeprecationWarning, WebSocketException

__all__ = ["HTTPException", "StarletteDeprecationWarning", "WebSocketException"]
