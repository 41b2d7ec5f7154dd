"""What a TestClient learns of a response beyond its bytes: the template and context of each
``TemplateResponse`` made while serving its request (Starlette's test client reads them from
ASGI's ``http.response.debug``), for ``response.template`` and ``response.context``."""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

__all__ = ["rendered_templates"]

# (template, context) pairs, in the order made; None outside a TestClient's request, so that
# servers pay one lookup per template and keep nothing.
rendered_templates: ContextVar[list[tuple[Any, Any]] | None] = ContextVar(
    "hasten_rendered_templates", default=None
)
