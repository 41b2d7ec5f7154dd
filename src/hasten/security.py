"""Security schemes as dependencies, with FastAPI's names and answers.

Each is an instance used with ``Depends()`` (or ``Security()`` to ask for OAuth2 scopes): it
reads the credentials from the request and returns them, or answers 401 ``Not
authenticated`` with the scheme's ``WWW-Authenticate`` header (``auto_error=False``: returns
None instead, for optional authentication). Each also describes itself for OpenAPI:
``scheme_name`` and ``security_scheme()``, the Security Scheme Object.
"""

from __future__ import annotations

import binascii
from base64 import b64decode
from typing import Annotated, Any

import msgspec

from .errors import HTTPError
from .params import Form
from .requests import Request

__all__ = [
    "APIKeyCookie",
    "APIKeyHeader",
    "APIKeyQuery",
    "HTTPAuthorizationCredentials",
    "HTTPBasic",
    "HTTPBasicCredentials",
    "HTTPBearer",
    "OAuth2PasswordBearer",
    "OAuth2PasswordRequestForm",
    "SecurityScheme",
    "SecurityScopes",
]


class HTTPBasicCredentials(msgspec.Struct, frozen=True):
    """What ``HTTPBasic`` returns."""

    username: str
    password: str


class HTTPAuthorizationCredentials(msgspec.Struct, frozen=True):
    """What ``HTTPBearer`` returns: the scheme (``Bearer``) and the token."""

    scheme: str
    credentials: str


def _scheme_and_value(header: str | None) -> tuple[str, str]:
    if not header:
        return "", ""
    scheme, _, value = header.partition(" ")
    return scheme, value.strip()


class SecurityScheme:
    """What every scheme shares: its name in OpenAPI, its description, ``auto_error``."""

    kind = ""

    def __init__(
        self, *, scheme_name: str | None, description: str | None, auto_error: bool
    ) -> None:
        self.scheme_name = scheme_name or type(self).__name__
        self.description = description
        self.auto_error = auto_error

    def security_scheme(self) -> dict[str, Any]:
        """The OpenAPI Security Scheme Object (``components.securitySchemes[scheme_name]``)."""
        found = self._scheme()
        if self.description:
            found["description"] = self.description
        return found

    def _scheme(self) -> dict[str, Any]:
        raise NotImplementedError

    def _challenge(self) -> str:
        raise NotImplementedError

    def make_authenticate_headers(self) -> dict[str, str]:
        """The ``WWW-Authenticate`` challenge of this scheme (FastAPI's name)."""
        return {"WWW-Authenticate": self._challenge()}

    def make_not_authenticated_error(self) -> HTTPError:
        """The 401 this scheme answers, with its challenge: a subclass may answer otherwise
        (FastAPI's name; its tutorial's HTTPBearer403 returns a 403)."""
        return HTTPError(401, "Not authenticated", self.make_authenticate_headers())

    def _refuse(self) -> None:
        if self.auto_error:
            raise self.make_not_authenticated_error()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(scheme_name={self.scheme_name!r})"


class HTTPBearer(SecurityScheme):
    """``Authorization: Bearer <token>``: returns HTTPAuthorizationCredentials."""

    def __init__(
        self,
        *,
        bearerFormat: str | None = None,
        scheme_name: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        super().__init__(scheme_name=scheme_name, description=description, auto_error=auto_error)
        self.bearer_format = bearerFormat

    def _scheme(self) -> dict[str, Any]:
        found: dict[str, Any] = {"type": "http", "scheme": "bearer"}
        if self.bearer_format:
            found["bearerFormat"] = self.bearer_format
        return found

    def _challenge(self) -> str:
        return "Bearer"

    async def __call__(self, request: Request) -> HTTPAuthorizationCredentials | None:
        scheme, token = _scheme_and_value(request._header("authorization"))
        if not (scheme and token) or scheme.lower() != "bearer":
            self._refuse()
            return None
        return HTTPAuthorizationCredentials(scheme, token)


class HTTPBasic(SecurityScheme):
    """``Authorization: Basic <base64 user:password>``: returns HTTPBasicCredentials."""

    def __init__(
        self,
        *,
        scheme_name: str | None = None,
        realm: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        super().__init__(scheme_name=scheme_name, description=description, auto_error=auto_error)
        self.realm = realm

    def _scheme(self) -> dict[str, Any]:
        return {"type": "http", "scheme": "basic"}

    def _challenge(self) -> str:
        return f'Basic realm="{self.realm}"' if self.realm else "Basic"

    async def __call__(self, request: Request) -> HTTPBasicCredentials | None:
        scheme, value = _scheme_and_value(request._header("authorization"))
        if not value or scheme.lower() != "basic":
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


class _APIKey(SecurityScheme):
    where = ""

    def __init__(
        self,
        *,
        name: str,
        scheme_name: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        super().__init__(scheme_name=scheme_name, description=description, auto_error=auto_error)
        self.name = name

    def _scheme(self) -> dict[str, Any]:
        return {"type": "apiKey", "in": self.where, "name": self.name}

    def _challenge(self) -> str:
        return "APIKey"

    def _read(self, request: Request) -> str | None:
        raise NotImplementedError

    async def __call__(self, request: Request) -> str | None:
        key = self._read(request)
        if not key:
            self._refuse()
            return None
        return key


class APIKeyHeader(_APIKey):
    """An API key in the header ``name``: returns it."""

    where = "header"

    def _read(self, request: Request) -> str | None:
        return request._header(self.name.lower())


class APIKeyQuery(_APIKey):
    """An API key in the query parameter ``name``: returns it."""

    where = "query"

    def _read(self, request: Request) -> str | None:
        value: str | None = request.query.get(self.name)
        return value


class APIKeyCookie(_APIKey):
    """An API key in the cookie ``name``: returns it."""

    where = "cookie"

    def _read(self, request: Request) -> str | None:
        return request.cookies.get(self.name)


class OAuth2PasswordBearer(SecurityScheme):
    """A bearer token obtained at ``tokenUrl`` with a username and password: returns the
    token (the route checks it)."""

    def __init__(
        self,
        tokenUrl: str,
        *,
        scheme_name: str | None = None,
        scopes: dict[str, str] | None = None,
        description: str | None = None,
        auto_error: bool = True,
        refreshUrl: str | None = None,
    ) -> None:
        super().__init__(scheme_name=scheme_name, description=description, auto_error=auto_error)
        self.token_url = tokenUrl
        self.refresh_url = refreshUrl
        self.scopes = dict(scopes or {})

    def _scheme(self) -> dict[str, Any]:
        flow: dict[str, Any] = {"tokenUrl": self.token_url, "scopes": self.scopes}
        if self.refresh_url:
            flow["refreshUrl"] = self.refresh_url
        return {"type": "oauth2", "flows": {"password": flow}}

    def _challenge(self) -> str:
        return "Bearer"

    async def __call__(self, request: Request) -> str | None:
        scheme, token = _scheme_and_value(request._header("authorization"))
        if not token or scheme.lower() != "bearer":
            self._refuse()
            return None
        return token


class SecurityScopes:
    """Take it as a parameter of a dependency used with ``Security(..., scopes=[...])``: the
    OAuth2 scopes required along the way to it, from the route down (FastAPI's)."""

    def __init__(self, scopes: list[str] | None = None) -> None:
        self.scopes: list[str] = scopes or []
        self.scope_str = " ".join(self.scopes)

    def __repr__(self) -> str:
        return f"SecurityScopes({self.scopes!r})"


class OAuth2PasswordRequestForm:
    """The form of OAuth2's password flow, as a dependency:
    ``form: Annotated[OAuth2PasswordRequestForm, Depends()]``. ``scopes`` is ``scope`` split
    on spaces."""

    def __init__(
        self,
        *,
        username: Annotated[str, Form()],
        password: Annotated[str, Form(json_schema_extra={"format": "password"})],
        grant_type: Annotated[str | None, Form(pattern="^password$")] = None,
        scope: Annotated[str, Form()] = "",
        client_id: Annotated[str | None, Form()] = None,
        client_secret: Annotated[str | None, Form(json_schema_extra={"format": "password"})] = None,
    ) -> None:
        self.grant_type = grant_type
        self.username = username
        self.password = password
        self.scopes = scope.split()
        self.client_id = client_id
        self.client_secret = client_secret
