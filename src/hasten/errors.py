"""HTTPError and the JSON error responses every failure turns into."""

from __future__ import annotations

import http
import traceback
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .responses import Response

__all__ = ["HTTPError", "ValidationFailure", "error_response", "server_error_response"]


class HTTPError(Exception):
    """Raise from a handler to answer with ``status`` and a JSON ``{"detail": ...}`` body."""

    def __init__(
        self,
        status: int,
        detail: Any = None,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        if detail is None:
            detail = http.HTTPStatus(status).phrase
        super().__init__(status, detail)
        self.status = status
        self.detail = detail
        self.headers = dict(headers) if headers else None

    def __repr__(self) -> str:
        return f"HTTPError({self.status}, {self.detail!r})"


class ValidationFailure(HTTPError):
    """A 422: one entry per parameter that failed, each naming where (``loc``) and why (``msg``)."""

    def __init__(self, errors: list[dict[str, Any]]) -> None:
        super().__init__(422, errors)
        self.errors = errors


def validation_error(loc: tuple[str | int, ...], msg: str, kind: str) -> dict[str, Any]:
    """One entry of a 422's ``detail`` list, shaped as FastAPI's so clients can reuse parsers."""
    return {"loc": list(loc), "msg": msg, "type": kind}


def error_response(exc: HTTPError) -> Response:
    """The JSON ``{"detail": ...}`` response for an HTTPError."""
    from .responses import JSONResponse

    return JSONResponse({"detail": exc.detail}, exc.status, exc.headers)


def server_error_response(exc: BaseException, debug: bool) -> Response:
    """A 500 that names the exception and carries its traceback only in debug mode."""
    from .responses import JSONResponse

    if not debug:
        return JSONResponse({"detail": "Internal Server Error"}, 500)
    trace = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return JSONResponse(
        {"detail": "Internal Server Error", "exception": repr(exc), "traceback": trace}, 500
    )
