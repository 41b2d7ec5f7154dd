"""``fastapi.middleware.wsgi``, served by hasten: Starlette's, which is a2wsgi's here."""

from __future__ import annotations

from hasten._served_as.starlette.middleware.wsgi import WSGIMiddleware

__all__ = ["WSGIMiddleware"]
