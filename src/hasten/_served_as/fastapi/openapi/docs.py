"""``fastapi.openapi.docs``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.encoders import jsonable_encoder
from hasten.openapi.docs import (
    get_redoc_html,
    get_swagger_ui_html,
    get_swagger_ui_oauth2_redirect_html,
)
from hasten.responses import HTMLResponse

__all__ = [
    "HTMLResponse",
    "get_redoc_html",
    "get_swagger_ui_html",
    "get_swagger_ui_oauth2_redirect_html",
    "jsonable_encoder",
]
