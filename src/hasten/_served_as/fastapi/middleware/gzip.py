"""``fastapi.middleware.gzip``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.middleware import GZipMiddleware

__all__ = ["GZipMiddleware"]
