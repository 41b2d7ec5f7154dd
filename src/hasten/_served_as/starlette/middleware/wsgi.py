"""``starlette.middleware.wsgi``, served by hasten: a WSGI app (Flask, Django) as an ASGI app,
by a2wsgi, the library Starlette deprecated its own WSGIMiddleware for (``pip install
'hasten[wsgi]'``). ``WSGIMiddleware(flask_app)`` is mounted as Starlette's is;
``build_environ`` is the environ it gives the app, a2wsgi's (``asgi.scope`` and
``REMOTE_PORT`` beside Starlette's keys)."""

from __future__ import annotations

import io
from typing import Any

try:
    from a2wsgi import WSGIMiddleware
    from a2wsgi.wsgi import build_environ as _a2wsgi_environ
except ImportError as missing:  # pragma: no cover - a2wsgi is in the development set
    raise ModuleNotFoundError(
        "starlette.middleware.wsgi is a2wsgi's WSGIMiddleware on hasten: "
        "pip install 'hasten[wsgi]' (or a2wsgi)",
        name="a2wsgi",
    ) from missing

__all__ = ["WSGIMiddleware", "build_environ"]


def build_environ(scope: Any, body: bytes) -> dict[str, Any]:
    """The WSGI environ of an HTTP ``scope`` and its whole ``body`` (Starlette's signature)."""
    # a2wsgi's own body reads the request as it comes; a whole one is a file of it.
    stream: Any = io.BytesIO(body)
    return dict(_a2wsgi_environ(scope, stream))
