"""The HTTP authentication schemes: ``Authorization: <scheme> <credentials>``."""

from __future__ import annotations

import binascii
from base64 import b64decode
from typing import Any

import msgspec

from hasten._http.connection import Connection
from hasten.security.base import SecurityScheme
from hasten.security.utils import get_authorization_scheme_param

__all__ = [
    "HTTPAuthorizationCredentials",
    "HTTPBase",
    "HTTPBasic",
    "HTTPBasicCredentials",
    "HTTPBearer",
    "HTTPDigest",
]


class _Credentials(msgspec.Struct, frozen=True):
    def model_dump(self) -> dict[str, str]:
        """The fields as a dict (FastAPI's credentials are pydantic models)."""
        found: dict[str, str] = msgspec.structs.asdict(self)
        return found


class HTTPBasicCredentials(_Credentials, frozen=True):
    """What ``HTTPBasic`` returns."""

    username: str
    password: str


class HTTPAuthorizationCredentials(_Credentials, frozen=True):
    """What ``HTTPBase``, ``HTTPBearer`` and ``HTTPDigest`` return: the header's scheme as sent
    (``Bearer``) and the credentials after it."""

    scheme: str
    credentials: str


class HTTPBase(SecurityScheme):
    """Any HTTP authentication scheme (``scheme``, as in OpenAPI): returns the header's scheme
    and credentials, whichever scheme the client sent."""

    def __init__(
        self,
        *,
        scheme: str,
        scheme_name: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        super().__init__(scheme_name=scheme_name, description=description, auto_error=auto_error)
        self.scheme = scheme

    def _scheme(self) -> dict[str, Any]:
        return {"type": "http", "scheme": self.scheme}

    def _challenge(self) -> str:
        return self.scheme.title()

    async def __call__(self, request: Connection) -> HTTPAuthorizationCredentials | None:
        scheme, credentials = get_authorization_scheme_param(request._header("authorization"))
        if not (scheme and credentials) or not self._accepts(scheme):
            self._refuse()
            return None
        return HTTPAuthorizationCredentials(scheme, credentials)

    def _accepts(self, scheme: str) -> bool:
        """Whether the header's ``scheme`` is this one's (HTTPBase takes any)."""
        return True


class HTTPBearer(HTTPBase):
    """``Authorization: Bearer <token>``: returns HTTPAuthorizationCredentials."""

    def __init__(
        self,
        *,
        bearerFormat: str | None = None,
        scheme_name: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        super().__init__(
            scheme="bearer", scheme_name=scheme_name, description=description, auto_error=auto_error
        )
        self.bearer_format = bearerFormat

    def _scheme(self) -> dict[str, Any]:
        found = super()._scheme()
        if self.bearer_format:
            found["bearerFormat"] = self.bearer_format
        return found

    def _accepts(self, scheme: str) -> bool:
        return scheme.lower() == "bearer"


class HTTPDigest(HTTPBase):
    """``Authorization: Digest <credentials>``: returns HTTPAuthorizationCredentials, unchecked
    (as FastAPI's, a stub for OpenAPI: a subclass checks the digest)."""

    def __init__(
        self,
        *,
        scheme_name: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        super().__init__(
            scheme="digest", scheme_name=scheme_name, description=description, auto_error=auto_error
        )

    def _accepts(self, scheme: str) -> bool:
        return scheme.lower() == "digest"


class HTTPBasic(HTTPBase):
    """``Authorization: Basic <base64 user:password>``: returns HTTPBasicCredentials."""

    def __init__(
        self,
        *,
        scheme_name: str | None = None,
        realm: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        super().__init__(
            scheme="basic", scheme_name=scheme_name, description=description, auto_error=auto_error
        )
        self.realm = realm

    def _challenge(self) -> str:
        return f'Basic realm="{self.realm}"' if self.realm else "Basic"

    # FastAPI's HTTPBasic is an HTTPBase that returns a username and password instead.
    async def __call__(self, request: Connection) -> HTTPBasicCredentials | None:  # type: ignore[override]
        header = request._header("authorization")
        scheme, value = get_authorization_scheme_param(header)
        if not header or scheme.lower() != "basic":
            self._refuse()
            return None
        try:
            decoded = b64decode(value, validate=True).decode("utf-8")
        except (ValueError, UnicodeDecodeError, binascii.Error):
            raise self.make_not_authenticated_error() from None
        username, separator, password = decoded.partition(":")
        if not separator:
            raise self.make_not_authenticated_error()
        return HTTPBasicCredentials(username, password)
