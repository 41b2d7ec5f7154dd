"""Reading the ``Authorization`` header (FastAPI's ``fastapi.security.utils``)."""

from __future__ import annotations

__all__ = ["get_authorization_scheme_param"]


def get_authorization_scheme_param(authorization_header_value: str | None) -> tuple[str, str]:
    """``"Bearer  abc "`` -> ``("Bearer", "abc")``: the scheme, and the rest without the spaces
    around it; ``("", "")`` without a header."""
    if not authorization_header_value:
        return "", ""
    scheme, _, param = authorization_header_value.partition(" ")
    return scheme, param.strip()
