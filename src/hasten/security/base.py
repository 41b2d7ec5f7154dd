"""What every security scheme shares: its name in OpenAPI, its description, ``auto_error``,
and the 401 it answers."""

from __future__ import annotations

from typing import Any

from hasten._http.errors import HTTPException

__all__ = ["SecurityBase", "SecurityScheme"]


class SecurityScheme:
    """A security scheme: a dependency that reads credentials from the request, and the
    Security Scheme Object it is in OpenAPI (``security_scheme()``, under ``scheme_name``).

    A subclass says what it is in OpenAPI (``_scheme``) and what it challenges the client with
    (``_challenge``). A scheme written for FastAPI, which sets ``self.model`` (an OpenAPI model
    of ``hasten.openapi.models``, or a dict) and ``self.scheme_name`` itself, is documented
    from its ``model``.
    """

    scheme_name: str
    description: str | None = None
    auto_error: bool = True

    def __init__(
        self,
        *,
        scheme_name: str | None = None,
        description: str | None = None,
        auto_error: bool = True,
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
        model = getattr(self, "model", None)
        if model is None:
            raise NotImplementedError(f"{type(self).__name__} does not describe itself")
        if isinstance(model, dict):
            return {key: value for key, value in model.items() if value is not None}
        found: dict[str, Any] = model.model_dump(by_alias=True, exclude_none=True, mode="json")
        return found

    def _challenge(self) -> str:
        return "Bearer"

    def make_authenticate_headers(self) -> dict[str, str]:
        """The ``WWW-Authenticate`` challenge of this scheme (FastAPI's name)."""
        return {"WWW-Authenticate": self._challenge()}

    def make_not_authenticated_error(self) -> HTTPException:
        """The 401 this scheme answers, with its challenge: a subclass may answer otherwise
        (FastAPI's name; its tutorial's HTTPBearer403 returns a 403)."""
        return HTTPException(401, "Not authenticated", self.make_authenticate_headers())

    def _refuse(self) -> None:
        """No credentials: a 401 (``auto_error``), else the scheme returns None."""
        if self.auto_error:
            raise self.make_not_authenticated_error()

    def __repr__(self) -> str:
        return f"{type(self).__name__}(scheme_name={self.scheme_name!r})"


# FastAPI's name, for schemes written for FastAPI (``fastapi.security.base.SecurityBase``).
SecurityBase = SecurityScheme
