"""``AuthenticationMiddleware``, as Starlette's: asks a backend who makes each connection and
puts the answer in ``scope["auth"]`` and ``scope["user"]`` (``request.auth``,
``request.user``); a backend's AuthenticationError answers 400 with its message (or
``on_error``'s response; a WebSocket is closed)."""

from __future__ import annotations

from collections.abc import Callable

from hasten._flow.contracts import ASGIApp, Receive, Scope, Send
from hasten._http.requests import HTTPConnection
from hasten._http.responses import PlainTextResponse, Response
from hasten.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    UnauthenticatedUser,
)

__all__ = ["AuthenticationMiddleware"]


class AuthenticationMiddleware:
    """Authenticate every HTTP and WebSocket connection with ``backend``."""

    def __init__(
        self,
        app: ASGIApp,
        backend: AuthenticationBackend,
        on_error: Callable[[HTTPConnection, AuthenticationError], Response] | None = None,
    ) -> None:
        self.app = app
        self.backend = backend
        self.on_error = on_error or self.default_on_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        connection = HTTPConnection(scope)
        try:
            found = await self.backend.authenticate(connection)
        except AuthenticationError as error:
            if scope["type"] == "websocket":
                await send({"type": "websocket.close", "code": 1000})
            else:
                await self.on_error(connection, error)(scope, receive, send)
            return
        scope["auth"], scope["user"] = found or (AuthCredentials(), UnauthenticatedUser())
        await self.app(scope, receive, send)

    @staticmethod
    def default_on_error(conn: HTTPConnection, exc: Exception) -> Response:
        return PlainTextResponse(str(exc), status_code=400)
