"""API keys: a key in a query parameter, a header or a cookie."""

from __future__ import annotations

from typing import Any

from hasten._http.connection import Connection
from hasten.security.base import SecurityScheme

__all__ = ["APIKeyBase", "APIKeyCookie", "APIKeyHeader", "APIKeyQuery"]


class APIKeyBase(SecurityScheme):
    """An API key named ``name`` in one part of the request (``where``): returns it."""

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

    def _read(self, request: Connection) -> str | None:
        raise NotImplementedError

    def check_api_key(self, api_key: str | None) -> str | None:
        """The key, or (none, or empty) a 401, or None without ``auto_error`` (FastAPI's)."""
        if not api_key:
            self._refuse()
            return None
        return api_key

    async def __call__(self, request: Connection) -> str | None:
        return self.check_api_key(self._read(request))


class APIKeyQuery(APIKeyBase):
    """An API key in the query parameter ``name``: returns it."""

    where = "query"

    def _read(self, request: Connection) -> str | None:
        value: str | None = request.query_params.get(self.name)
        return value


class APIKeyHeader(APIKeyBase):
    """An API key in the header ``name``: returns it."""

    where = "header"

    def _read(self, request: Connection) -> str | None:
        return request._header(self.name.lower())


class APIKeyCookie(APIKeyBase):
    """An API key in the cookie ``name``: returns it."""

    where = "cookie"

    def _read(self, request: Connection) -> str | None:
        return request.cookies.get(self.name)
