"""``starlette.middleware.body_limit``, served by hasten: Starlette 1.10's request body limit,
as an ASGI middleware around an ASGI app.

hasten's own limit is the ``max_body_size`` setting (on the app, routers, mounts and routes:
the innermost wins), held where the body is read, in hasten's words. This class is for code
that wraps an app with Starlette's: it counts what the app receives, refuses a declared
Content-Length over the limit before anything is read, and answers ``Content Too Large``
(Starlette's words) unless the response has started, when the error is raised instead."""

from __future__ import annotations

from typing import Any

from hasten.errors import HTTPError
from hasten.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["MAX_BODY_SIZE_SCOPE_KEY", "RequestBodyLimitMiddleware"]

MAX_BODY_SIZE_SCOPE_KEY = "starlette.max_body_size"  # the limit in force, for the app to read
_TOO_LARGE = b"Content Too Large"
_ABSENT: Any = object()


class _BodyTooLarge(HTTPError):
    def __init__(self) -> None:
        super().__init__(413, _TOO_LARGE.decode())


class RequestBodyLimitMiddleware:
    """Hold ``app``'s request bodies to ``max_body_size`` bytes: a 413 past it."""

    def __init__(self, app: ASGIApp, max_body_size: int) -> None:
        self.app = app
        self.max_body_size = max_body_size

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.max_body_size
        declared = _content_length(scope)
        if declared is not None and declared > limit:
            await _refuse(send)
            return
        received = 0
        started = False

        async def counted_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise _BodyTooLarge
            return message

        async def watched_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        previous = scope.get(MAX_BODY_SIZE_SCOPE_KEY, _ABSENT)
        scope[MAX_BODY_SIZE_SCOPE_KEY] = limit
        try:
            await self.app(scope, counted_receive, watched_send)
        except _BodyTooLarge:
            if started:
                raise
            await _refuse(send)
        finally:
            if previous is _ABSENT:
                scope.pop(MAX_BODY_SIZE_SCOPE_KEY, None)
            else:
                scope[MAX_BODY_SIZE_SCOPE_KEY] = previous


# A declared length of more digits than this is past any limit (and past int()'s, at 4,300).
_LONGEST_LENGTH = 18


def _content_length(scope: Scope) -> int | None:
    """The declared length, if it is a number (a client's other words are not trusted: the
    bytes received are counted all the same)."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"content-length":
            if not value.isdigit():
                return None
            digits = value.lstrip(b"0")
            return int(digits or b"0") if len(digits) <= _LONGEST_LENGTH else 10**_LONGEST_LENGTH
    return None


async def _refuse(send: Send) -> None:
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", str(len(_TOO_LARGE)).encode()),
    ]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": _TOO_LARGE})
