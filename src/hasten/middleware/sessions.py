"""Signed cookie sessions, as Starlette's ``SessionMiddleware``: ``request.session`` is a dict
kept in a cookie the client cannot alter (itsdangerous signs it with the app's secret key and
the time it was signed; past ``max_age`` it is no longer taken).

    app.add_middleware(SessionMiddleware, secret_key=config("SECRET_KEY"))

The session is sent back only when a handler changed it; a session emptied by a handler
expires the cookie. Reading it adds ``Vary: Cookie`` (a cache must not share the answer).
The cookie's contents are readable by the client (base64 JSON): never put a secret in it.
"""

from __future__ import annotations

import json
from base64 import b64decode, b64encode
from typing import Any, Literal

from hasten._flow.contracts import ASGIApp, Message, Receive, Scope, Send
from hasten._http.connection import _parse_cookies
from hasten._http.datastructures import MutableHeaders
from hasten.config import Secret

__all__ = ["Session", "SessionMiddleware"]

# What a cleared session's cookie is set to, already expired.
_EXPIRED = "null; path={path}; expires=Thu, 01 Jan 1970 00:00:00 GMT; {flags}"


class Session(dict[str, Any]):
    """A session's values; it notes whether it was read (``accessed``) and changed
    (``modified``), which decide what the response says."""

    accessed = False
    modified = False

    def mark_accessed(self) -> None:
        self.accessed = True

    def mark_modified(self) -> None:
        self.accessed = self.modified = True

    def __setitem__(self, key: str, value: Any) -> None:
        self.mark_modified()
        super().__setitem__(key, value)

    def __delitem__(self, key: str) -> None:
        self.mark_modified()
        super().__delitem__(key)

    def __ior__(self, other: Any, /) -> Session:  # type: ignore[override,misc]
        self.mark_modified()
        return super().__ior__(other)

    def clear(self) -> None:
        self.mark_modified()
        super().clear()

    def pop(self, key: str, *default: Any) -> Any:
        if key in self:
            self.mark_modified()
        return super().pop(key, *default)

    def popitem(self) -> tuple[str, Any]:
        item = super().popitem()
        self.mark_modified()
        return item

    def setdefault(self, key: str, default: Any = None) -> Any:
        if key not in self:
            self.mark_modified()
        return super().setdefault(key, default)

    def update(self, *args: Any, **kwargs: Any) -> None:
        self.mark_modified()
        super().update(*args, **kwargs)


class SessionMiddleware:
    """Keep ``scope["session"]`` (``request.session``) in a signed cookie."""

    def __init__(  # noqa: PLR0917 - Starlette's signature, positional arguments and all
        self,
        app: ASGIApp,
        secret_key: str | Secret,
        session_cookie: str = "session",
        max_age: int | None = 14 * 24 * 60 * 60,  # two weeks, in seconds
        path: str = "/",
        same_site: Literal["lax", "strict", "none"] = "lax",
        https_only: bool = False,
        domain: str | None = None,
        partitioned: bool = False,
    ) -> None:
        try:
            import itsdangerous
        except ImportError:  # pragma: no cover - the extra is installed in development
            raise ImportError(
                "SessionMiddleware needs itsdangerous: pip install 'hasten[sessions]'"
            ) from None
        self.app = app
        self.signer = itsdangerous.TimestampSigner(str(secret_key))
        self._bad_signature = itsdangerous.BadSignature
        self.session_cookie = session_cookie
        self.max_age = max_age
        self.path = path
        flags = [f"httponly; samesite={same_site}"]
        flags += ["secure"] * https_only + [f"domain={domain}"] * (domain is not None)
        self.security_flags = "; ".join(flags + ["partitioned"] * partitioned)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        session, sent = self._read(scope)
        scope["session"] = session

        async def send_with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start":
                self._write(session, sent, message)
            await send(message)

        await self.app(scope, receive, send_with_cookie)

    def _read(self, scope: Scope) -> tuple[Session, bool]:
        """The session the request's cookie holds (empty when it has none, or one not
        signed by this key, or signed too long ago); whether the client sent one."""
        cookie = _cookie(scope, self.session_cookie)
        if cookie is None:
            return Session(), False
        try:
            data = self.signer.unsign(cookie.encode("utf-8"), max_age=self.max_age)
        except self._bad_signature:
            return Session(), False
        return Session(json.loads(b64decode(data))), True

    def _write(self, session: Session, sent: bool, message: Message) -> None:
        message.setdefault("headers", [])
        headers = MutableHeaders(scope=message)
        if session.accessed:
            headers.add_vary_header("Cookie")
        if not session.modified:
            return
        if session:
            signed = self.signer.sign(b64encode(json.dumps(session).encode("utf-8")))
            max_age = "" if self.max_age is None else f"Max-Age={self.max_age}; "
            value = f"{signed.decode('utf-8')}; path={self.path}; {max_age}{self.security_flags}"
        elif sent:  # emptied: the client forgets it
            value = _EXPIRED.format(path=self.path, flags=self.security_flags)
        else:
            return
        headers.append("Set-Cookie", f"{self.session_cookie}={value}")


def _cookie(scope: Scope, name: str) -> str | None:
    """The value of cookie ``name`` in the scope's Cookie headers, or None."""
    headers = [value.decode("latin-1") for key, value in scope["headers"] if key == b"cookie"]
    return _parse_cookies(headers).get(name)
