"""HTTPError and the other exceptions a failed request raises (FastAPI's and Starlette's names);
the responses they turn into are in ``hasten._http.error_responses``."""

from __future__ import annotations

import http
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, TypedDict, overload

__all__ = [
    "SWALLOWED",
    "DependencyScopeError",
    "EndpointContext",
    "FastAPIDeprecationWarning",
    "FastAPIError",
    "HTTPError",
    "HTTPException",
    "InvalidParameter",
    "PydanticV1NotSupportedError",
    "RequestValidationError",
    "ResponseValidationError",
    "StarletteDeprecationWarning",
    "ValidationException",
    "WebSocketException",
    "WebSocketRequestValidationError",
    "one_status",
    "report_unhandled",
    "unhandled_exceptions",
    "unhandled_listener",
]


# The exceptions the app did not handle while serving a TestClient's request (each became a
# 500, a closed WebSocket or a failed startup), which the TestClient raises in the test as
# Starlette's does; None outside a TestClient, so servers pay nothing for it.
unhandled_exceptions: ContextVar[list[BaseException] | None] = ContextVar(
    "hasten_unhandled_exceptions", default=None
)


# Who else hears of such an exception: the telemetry of the request being served, where it
# is on (hasten._observing.tracing logs it); None otherwise.
unhandled_listener: ContextVar[Callable[[BaseException], None] | None] = ContextVar(
    "hasten_unhandled_listener", default=None
)


def report_unhandled(exc: BaseException) -> None:
    """Hand ``exc``, which the app did not handle, to the TestClient serving it, if one is,
    and to the request's telemetry, if it is on."""
    found = unhandled_exceptions.get()
    if found is not None:
        found.append(exc)
    listener = unhandled_listener.get()
    if listener is not None:
        listener(exc)


def one_status(status: int | None, status_code: int | None, default: int | None) -> int:
    """``status``, or ``status_code`` (FastAPI's name for it), or else ``default``: not both."""
    if status_code is None:
        if status is None:
            if default is None:
                raise TypeError("Missing the status (or status_code)")
            return default
        return status
    if status is not None:
        raise TypeError(f"Give status= or status_code=, not both ({status} and {status_code})")
    return status_code


class HTTPError(Exception):
    """Raise from a handler to answer with ``status`` and a JSON ``{"detail": ...}`` body.

    FastAPI's ``HTTPException(status_code=404, detail=...)`` is this class: ``status_code=``
    is another name for ``status``, and ``exc.status_code`` for ``exc.status``.
    """

    @overload
    def __init__(
        self, status: int, detail: Any = None, headers: Mapping[str, str] | None = None
    ) -> None: ...

    @overload
    def __init__(
        self, *, status_code: int, detail: Any = None, headers: Mapping[str, str] | None = None
    ) -> None: ...

    def __init__(
        self,
        status: int | None = None,
        detail: Any = None,
        headers: Mapping[str, str] | None = None,
        *,
        status_code: int | None = None,
    ) -> None:
        status = one_status(status, status_code, None)
        if detail is None:
            detail = http.HTTPStatus(status).phrase
        super().__init__(status, detail)
        self.status = status
        self.detail = detail
        self.headers = dict(headers) if headers else None

    @property
    def status_code(self) -> int:
        """``status``, by FastAPI's name."""
        return self.status

    def __repr__(self) -> str:
        return f"HTTPError({self.status}, {self.detail!r})"


# FastAPI's and Starlette's name: the same class, so a handler for either catches both.
HTTPException = HTTPError


class FastAPIError(RuntimeError):
    """An app is put together wrongly (FastAPI's name, for what it raises at registration)."""


class DependencyScopeError(FastAPIError):
    """A dependency's scope cannot hold what it depends on (FastAPI's name)."""


class PydanticV1NotSupportedError(FastAPIError, TypeError):
    """A route takes or sends a pydantic v1 model (``pydantic.v1``): hasten validates pydantic
    v2 models only, as FastAPI does (FastAPI's name; a TypeError too)."""


class InvalidParameter(TypeError, AssertionError):
    """A parameter declared as FastAPI refuses it (a list in the path, a default inside
    ``Annotated``, ``Depends`` given twice): refused at registration, with FastAPI's words
    (FastAPI asserts it: an AssertionError too)."""


# FastAPI's words when a ``yield`` dependency swallows the exception a request failed with.
SWALLOWED = (
    "Response not awaited. There's a high chance that the application code is raising an "
    "exception and a dependency with yield has a block with a bare except, or a block with "
    "except Exception, and is not raising the exception again. Read more about it in the "
    "docs: https://fastapi.tiangolo.com/tutorial/dependencies/dependencies-with-yield/"
    "#dependencies-with-yield-and-except"
)


class FastAPIDeprecationWarning(UserWarning):
    """A FastAPI keyword hasten takes but that FastAPI deprecated (``regex=``, ...)."""


class StarletteDeprecationWarning(UserWarning):
    """Starlette's warning for what it deprecated (served as
    ``starlette.exceptions.StarletteDeprecationWarning``)."""


class EndpointContext(TypedDict, total=False):
    """Where a validation error arose, as FastAPI names it: the handler's ``function``,
    ``file`` and ``line``, and its route's ``path`` (``"GET /users/{id}"``)."""

    function: str
    path: str
    file: str
    line: int


class ValidationException(Exception):
    """Values failed validation: ``errors()`` lists them, each ``{"type", "loc", "msg",
    "input"[, "ctx"]}`` with ``loc`` a tuple, as FastAPI's; ``str()`` names them and the
    endpoint they arose in (``endpoint_ctx``, given by the app when it is not given here)."""

    def __init__(
        self, errors: Sequence[Any], *, endpoint_ctx: EndpointContext | None = None
    ) -> None:
        Exception.__init__(self, errors)
        self._errors = errors
        self.endpoint_ctx = endpoint_ctx

    def errors(self) -> Sequence[Any]:
        return self._errors

    @property
    def endpoint_function(self) -> str | None:
        return (self.endpoint_ctx or {}).get("function")

    @property
    def endpoint_path(self) -> str | None:
        return (self.endpoint_ctx or {}).get("path")

    @property
    def endpoint_file(self) -> str | None:
        return (self.endpoint_ctx or {}).get("file")

    @property
    def endpoint_line(self) -> int | None:
        return (self.endpoint_ctx or {}).get("line")

    def __str__(self) -> str:
        count = len(self._errors)
        lines = [f"{count} validation error{'s' if count != 1 else ''}:"]
        lines.extend(f"  {error}" for error in self._errors)
        function, path = self.endpoint_function, self.endpoint_path
        if self.endpoint_file and self.endpoint_line and function:
            lines.append(f'  File "{self.endpoint_file}", line {self.endpoint_line}, in {function}')
            if path:
                lines.append(f"    {path}")
        elif path:
            lines.append(f"  Endpoint: {path}")
        return "\n".join(lines)


class RequestValidationError(ValidationException, HTTPError):
    """A 422: one entry per request value that failed, each naming where (``loc``), why
    (``msg``, ``type``) and what was given (``input``); ``body`` is the request's decoded
    body. The default handler answers ``{"detail": [...]}``, as FastAPI's."""

    def __init__(
        self,
        errors: Sequence[Any],
        *,
        body: Any = None,
        endpoint_ctx: EndpointContext | None = None,
    ) -> None:
        HTTPError.__init__(self, 422, errors)
        self._errors = errors
        self.body = body
        self.endpoint_ctx = endpoint_ctx


class WebSocketRequestValidationError(ValidationException):
    """A WebSocket handler's values failed: the socket is closed with 1008."""


class ResponseValidationError(ValidationException):
    """A handler's result does not fit its response model: a 500, logged."""

    def __init__(
        self,
        errors: Sequence[Any],
        *,
        body: Any = None,
        endpoint_ctx: EndpointContext | None = None,
    ) -> None:
        super().__init__(errors, endpoint_ctx=endpoint_ctx)
        self.body = body


class WebSocketException(Exception):
    """Raise from a WebSocket handler to close the socket with ``code`` and ``reason``."""

    def __init__(self, code: int, reason: str | None = None) -> None:
        super().__init__(code, reason)
        self.code = code
        self.reason = reason or ""

    def __repr__(self) -> str:
        return f"WebSocketException(code={self.code!r}, reason={self.reason!r})"


def validation_error(loc: tuple[str | int, ...], msg: str, kind: str) -> dict[str, Any]:
    """One entry of a 422's ``detail`` list, in FastAPI's shape."""
    return {"type": kind, "loc": loc, "msg": msg, "input": None}
