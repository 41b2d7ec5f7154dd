"""OpenID Connect: the scheme documented by its discovery URL."""

from __future__ import annotations

from typing import Any

from hasten._http.connection import Connection
from hasten.security.base import SecurityScheme

__all__ = ["OpenIdConnect"]


class OpenIdConnect(SecurityScheme):
    """OpenID Connect, discovered at ``openIdConnectUrl``: returns the whole ``Authorization``
    header, whatever its scheme (FastAPI's; the route checks the token)."""

    def __init__(
        self,
        *,
        openIdConnectUrl: str,
        scheme_name: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
    ) -> None:
        super().__init__(scheme_name=scheme_name, description=description, auto_error=auto_error)
        self.open_id_connect_url = openIdConnectUrl

    def _scheme(self) -> dict[str, Any]:
        return {"type": "openIdConnect", "openIdConnectUrl": self.open_id_connect_url}

    async def __call__(self, request: Connection) -> str | None:
        authorization = request._header("authorization")
        if not authorization:
            self._refuse()
            return None
        return authorization
