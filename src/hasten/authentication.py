"""Authentication as Starlette's ``starlette.authentication``: a backend that finds who makes
a request (``AuthenticationMiddleware`` puts the user and their scopes in
``request.user``/``request.auth``), and ``@requires`` on an endpoint that needs some scopes.

    class TokenBackend(AuthenticationBackend):
        async def authenticate(self, conn):
            if "authorization" not in conn.headers:
                return None                      # anonymous: UnauthenticatedUser
            ...
            return AuthCredentials(["authenticated"]), SimpleUser(name)

    @requires("authenticated")
    async def profile(request): ...
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec
from urllib.parse import urlencode

from hasten._http.connection import Connection
from hasten._http.errors import HTTPException
from hasten._http.requests import Request
from hasten._http.responses import RedirectResponse
from hasten._http.websockets import WebSocket

__all__ = [
    "AuthCredentials",
    "AuthenticationBackend",
    "AuthenticationError",
    "BaseUser",
    "SimpleUser",
    "UnauthenticatedUser",
    "has_required_scope",
    "requires",
]

P = ParamSpec("P")


def has_required_scope(conn: Connection, scopes: Sequence[str]) -> bool:
    """Whether the connection's credentials hold every one of ``scopes``."""
    return all(scope in conn.auth.scopes for scope in scopes)


def requires(
    scopes: str | Sequence[str], status_code: int = 403, redirect: str | None = None
) -> Callable[[Callable[P, Any]], Callable[P, Any]]:
    """Let the decorated endpoint run only for credentials with ``scopes``: else an
    HTTPException(``status_code``), or a 303 to the route named ``redirect`` (with the page
    asked for as ``next``); a WebSocket is closed. The endpoint takes a ``request`` or a
    ``websocket`` parameter."""
    wanted = [scopes] if isinstance(scopes, str) else list(scopes)

    def decorator(func: Callable[P, Any]) -> Callable[P, Any]:
        return _Guard(func, wanted, status_code, redirect).wrapped()

    return decorator


class _Guard:
    """``@requires``'s check around one endpoint."""

    def __init__(
        self, func: Callable[..., Any], scopes: list[str], status: int, redirect: str | None
    ) -> None:
        names = list(inspect.signature(func).parameters)
        kind = next((name for name in names if name in ("request", "websocket")), None)
        if kind is None:
            raise Exception(f'No "request" or "websocket" argument on function "{func}"')
        self.func, self.scopes, self.status, self.redirect = func, scopes, status, redirect
        self.kind, self.position = kind, names.index(kind)

    def connection(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        position, kind = self.position, self.kind
        found = kwargs.get(kind, args[position] if position < len(args) else None)
        expected = WebSocket if kind == "websocket" else Request
        assert isinstance(found, expected), (
            f"Parameter with name '{kind}' is required to be of type "
            f"'{expected.__name__}' not '{type(found).__name__}'"
        )
        return found

    def refusal(self, request: Request) -> Any:
        if self.redirect is None:
            raise HTTPException(status_code=self.status)
        asked = urlencode({"next": str(request.url)})
        return RedirectResponse(url=f"{request.url_for(self.redirect)}?{asked}", status_code=303)

    def wrapped(self) -> Callable[..., Any]:
        func = self.func
        if self.kind == "websocket":

            async def on_websocket(*args: Any, **kwargs: Any) -> None:
                websocket = self.connection(args, kwargs)
                if has_required_scope(websocket, self.scopes):
                    await func(*args, **kwargs)
                else:
                    await websocket.close()

            return functools.wraps(func)(on_websocket)
        if inspect.iscoroutinefunction(func):

            async def on_request(*args: Any, **kwargs: Any) -> Any:
                request = self.connection(args, kwargs)
                if has_required_scope(request, self.scopes):
                    return await func(*args, **kwargs)
                return self.refusal(request)

            return functools.wraps(func)(on_request)

        def on_request_sync(*args: Any, **kwargs: Any) -> Any:
            request = self.connection(args, kwargs)
            if has_required_scope(request, self.scopes):
                return func(*args, **kwargs)
            return self.refusal(request)

        return functools.wraps(func)(on_request_sync)


class AuthenticationError(Exception):
    """Raised by a backend for credentials that are wrong (not for missing ones): the
    middleware answers with its ``on_error``."""


class AuthenticationBackend:
    """Finds who makes a request: ``(AuthCredentials, BaseUser)``, or None for anonymous."""

    async def authenticate(self, conn: Connection) -> tuple[AuthCredentials, BaseUser] | None:
        raise NotImplementedError()


class AuthCredentials:
    """What the user may do: their scopes."""

    def __init__(self, scopes: Sequence[str] | None = None) -> None:
        self.scopes = [] if scopes is None else list(scopes)


class BaseUser:
    """A user, as ``request.user`` is: whether authenticated, and how to name them."""

    @property
    def is_authenticated(self) -> bool:
        raise NotImplementedError()

    @property
    def display_name(self) -> str:
        raise NotImplementedError()

    @property
    def identity(self) -> str:
        raise NotImplementedError()


class SimpleUser(BaseUser):
    """An authenticated user known by a name."""

    def __init__(self, username: str) -> None:
        self.username = username

    @property
    def is_authenticated(self) -> bool:
        return True

    @property
    def display_name(self) -> str:
        return self.username

    @property
    def identity(self) -> str:
        return self.username


class UnauthenticatedUser(BaseUser):
    """Who makes a request no credentials came with."""

    @property
    def is_authenticated(self) -> bool:
        return False

    @property
    def display_name(self) -> str:
        return ""

    @property
    def identity(self) -> str:
        return ""
