"""``starlette.middleware.wsgi``, served by hasten: a WSGI app (Flask, Django) as an ASGI app,
by a2wsgi, the library Starlette deprecated its own WSGIMiddleware for (``pip install
'hasten[wsgi]'``). ``WSGIMiddleware(flask_app)`` is mounted as Starlette's is; its environ is
a2wsgi's, and Starlette's ``build_environ`` is not served."""

from __future__ import annotations

try:
    from a2wsgi import WSGIMiddleware
except ImportError as missing:  # pragma: no cover - a2wsgi is in the development set
    raise ModuleNotFoundError(
        "starlette.middleware.wsgi is a2wsgi's WSGIMiddleware on hasten: "
        "pip install 'hasten[wsgi]' (or a2wsgi)",
        name="a2wsgi",
    ) from missing

__all__ = ["WSGIMiddleware"]
