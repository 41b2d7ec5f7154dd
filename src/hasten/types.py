"""The one contract hasten's core speaks: ``async (Request) -> Response``."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, NamedTuple, TypeAlias

if TYPE_CHECKING:
    from .requests import Request
    from .responses import Response

__all__ = ["CallNext", "Handler", "Hook", "Middleware", "Target"]

Handler: TypeAlias = "Callable[[Request], Awaitable[Response]]"
CallNext: TypeAlias = "Callable[[Request], Awaitable[Response]]"
Middleware: TypeAlias = "Callable[[Request, CallNext], Awaitable[Response]]"
Hook: TypeAlias = Callable[[], Awaitable[Any] | Any]


class Target(NamedTuple):
    """What the router hands a request to: ``render(await invoke(request))`` is the Response.

    Split in two so that an async handler's own coroutine is the only one awaited for it.
    """

    invoke: Callable[[Request], Awaitable[Any]]
    render: Callable[[Any], Response]


def passthrough(response: Any) -> Response:
    """The ``render`` of a target whose ``invoke`` already produces the Response."""
    return response  # type: ignore[no-any-return]
