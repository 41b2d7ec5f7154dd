"""The one contract hasten's core speaks: ``async (Request) -> Response``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias

if TYPE_CHECKING:
    from .requests import Request
    from .responses import Response

__all__ = ["CallNext", "Handler", "Hook", "Middleware"]

Handler: TypeAlias = "Callable[[Request], Awaitable[Response]]"
CallNext: TypeAlias = "Callable[[Request], Awaitable[Response]]"
Middleware: TypeAlias = "Callable[[Request, CallNext], Awaitable[Response]]"
Hook: TypeAlias = Callable[[], Awaitable[Any] | Any]
