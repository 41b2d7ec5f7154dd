"""``fastapi.middleware.cors``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.middleware import CORSMiddleware

__all__ = ["CORSMiddleware"]
