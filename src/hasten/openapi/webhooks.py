"""``app.webhooks``: the requests an API sends to others, documented and never served.

FastAPI's webhooks are routes of a router of their own, named rather than placed at a path
(``@app.webhooks.post("new-subscription")``); the document lists them under ``webhooks`` by
that name (OpenAPI 3.1), described as any operation is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Unpack

from hasten._serve.routes import BaseRoute, Route, RouteKeywords
from hasten.routing import Router

__all__ = ["Webhooks"]


class Webhooks(Router):
    """A router whose routes are webhooks: a name each (a path, if it starts with ``/``)."""

    def __init__(self) -> None:
        super().__init__()
        self._webhook_names: list[str] = []

    def add_api_route(
        self,
        path: str,
        endpoint: Callable[..., Any],
        methods: Iterable[str] | None = None,
        **options: Unpack[RouteKeywords],
    ) -> Route:
        """Register the webhook ``path`` (its name) sent as ``endpoint`` describes."""
        route = super().add_api_route(
            path if path.startswith("/") else f"/{path}", endpoint, methods, **options
        )
        self._webhook_names.append(path)
        return route

    def named(self) -> list[tuple[str, BaseRoute]]:
        """Each webhook with its name, in the order they were declared."""
        return list(zip(self._webhook_names, self.routes, strict=True))
