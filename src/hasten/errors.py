"""HTTPError and the JSON error responses every failure turns into."""

from __future__ import annotations

import functools
import http
import traceback
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict, overload

if TYPE_CHECKING:
    from hasten.requests import Request
    from hasten.responses import Response

__all__ = [
    "SWALLOWED",
    "DependencyScopeError",
    "EndpointContext",
    "ExceptionHandler",
    "ExceptionHandlers",
    "FastAPIDeprecationWarning",
    "FastAPIError",
    "HTTPError",
    "HTTPException",
    "PydanticV1NotSupportedError",
    "RequestValidationError",
    "ResponseValidationError",
    "ValidationException",
    "WebSocketException",
    "WebSocketRequestValidationError",
    "error_response",
    "http_error_handler",
    "http_exception_handler",
    "one_status",
    "report_unhandled",
    "request_validation_error_handler",
    "request_validation_exception_handler",
    "server_error_response",
    "unhandled_exceptions",
    "unhandled_listener",
    "websocket_request_validation_exception_handler",
]

# ``handler(request, exc) -> Response``, sync or async: what ``app.exception_handler`` takes.
# Called ``handler(websocket, exc)`` for an exception a WebSocket's handler raised, as
# Starlette calls it.
ExceptionHandler: TypeAlias = "Callable[[Request, Any], Response | Awaitable[Response]]"

# The exceptions the app did not handle while serving a TestClient's request (each became a
# 500, a closed WebSocket or a failed startup), which the TestClient raises in the test as
# Starlette's does; None outside a TestClient, so servers pay nothing for it.
unhandled_exceptions: ContextVar[list[BaseException] | None] = ContextVar(
    "hasten_unhandled_exceptions", default=None
)


# Who else hears of such an exception: the telemetry of the request being served, where it
# is on (hasten.tracing logs it); None otherwise.
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


def error_response(exc: HTTPError) -> Response:
    """The JSON ``{"detail": ...}`` response for an HTTPError (a status that has no body, as
    204 or 304, gets none), as FastAPI's."""
    from hasten.responses import JSONResponse, Response
    from hasten.wire import allows_body

    if not allows_body(exc.status):
        return Response(b"", exc.status, exc.headers)
    if isinstance(exc, RequestValidationError):
        from hasten.encoders import jsonable_encoder
        from hasten.uploads import UploadFile

        # A body that is not UTF-8 is echoed with U+FFFD for what is not: FastAPI's encoder
        # raises on it, and the client's bad bytes become a 500. A file sent where a field is
        # asked for is echoed as its name, size and headers (FastAPI's has its insides too).
        lenient = {**_LENIENT_BYTES, UploadFile: _uploaded}
        detail = jsonable_encoder(exc.errors(), custom_encoder=lenient)
        return JSONResponse({"detail": detail}, 422, exc.headers)
    return JSONResponse({"detail": exc.detail}, exc.status, exc.headers)


_LENIENT_BYTES: dict[Any, Callable[[Any], Any]] = {
    bytes: lambda value: value.decode(errors="replace")
}


def _uploaded(file: Any) -> dict[str, Any]:
    return {"filename": file.filename, "size": file.size, "headers": dict(file.headers)}


def server_error_response(exc: BaseException, debug: bool) -> Response:
    """A 500: ``Internal Server Error`` as plain text, as Starlette's ServerErrorMiddleware
    answers; in debug mode, JSON that names the exception and carries its traceback."""
    from hasten.responses import JSONResponse, PlainTextResponse

    if not debug:
        return PlainTextResponse("Internal Server Error", 500)
    trace = traceback.format_exception(type(exc), exc, exc.__traceback__)
    return JSONResponse(
        {"detail": "Internal Server Error", "exception": repr(exc), "traceback": trace}, 500
    )


def http_error_handler(request: Request, exc: HTTPError) -> Response:
    """The default handler of HTTPError (and of a RequestValidationError): ``{"detail": ...}``;
    an app's own handler may call it to keep the default for some errors."""
    return error_response(exc)


request_validation_error_handler = http_error_handler


async def http_exception_handler(request: Request, exc: HTTPError) -> Response:
    """FastAPI's default handler of HTTPException (``fastapi.exception_handlers``), to call
    from an app's own."""
    return error_response(exc)


async def request_validation_exception_handler(
    request: Request, exc: RequestValidationError
) -> Response:
    """FastAPI's default handler of RequestValidationError: 422 ``{"detail": [...]}``."""
    return error_response(exc)


async def websocket_request_validation_exception_handler(
    websocket: Any, exc: WebSocketRequestValidationError
) -> None:
    """FastAPI's default handler of a WebSocket's failed values: close with 1008."""
    from hasten.encoders import jsonable_encoder

    await websocket.close(code=1008, reason=str(jsonable_encoder(exc.errors())))


def _still_raised(handler: ExceptionHandler) -> ExceptionHandler:
    """``handler`` as Starlette's handler of last resort (the one for ``Exception`` or 500,
    which also answers an exception nothing else handles): it answers, and the exception is
    still raised in a TestClient's test, as Starlette's ServerErrorMiddleware raises it."""

    @functools.wraps(handler)
    def answer(request: Request, exc: Any) -> Response | Awaitable[Response]:
        report_unhandled(exc)
        return handler(request, exc)

    return answer


class ExceptionHandlers:
    """An app's exception handlers, by class (the most specific along the exception's MRO
    wins) and by HTTP status (for HTTPError), frozen at startup."""

    __slots__ = ("_by_class", "_by_status", "_found")

    def __init__(self, handlers: Mapping[type[BaseException] | int, ExceptionHandler]) -> None:
        self._by_class: dict[type[BaseException], ExceptionHandler] = {
            HTTPError: http_error_handler,
            RequestValidationError: request_validation_error_handler,
        }
        self._by_status: dict[int, ExceptionHandler] = {}
        for key, handler in handlers.items():
            if isinstance(key, int):
                self._by_status[key] = handler
            else:
                self._by_class[key] = handler
            if key in (Exception, 500):  # Starlette's ServerErrorMiddleware handler
                self._by_class[Exception] = _still_raised(handler)
        self._found: dict[type[BaseException], ExceptionHandler | None] = {}

    def for_websocket(self, exc: BaseException) -> ExceptionHandler | None:
        """The app's own handler for an exception a WebSocket handler raised, by class:
        not the defaults for HTTP responses, nor one for ``Exception`` or 500 (Starlette's
        ServerErrorMiddleware handles HTTP only)."""
        for cls in type(exc).__mro__:
            if cls is Exception:
                return None
            found = self._by_class.get(cls)
            if found is not None:
                defaults = (http_error_handler, request_validation_error_handler)
                return None if found in defaults else found
        return None

    def lookup(self, exc: BaseException) -> ExceptionHandler | None:
        """The handler for ``exc``, or None (a logged 500)."""
        if self._by_status and isinstance(exc, HTTPError):
            handler = self._by_status.get(exc.status)
            if handler is not None:
                return handler
        kind = type(exc)
        try:
            return self._found[kind]
        except KeyError:
            pass
        found = None
        for cls in kind.__mro__:
            found = self._by_class.get(cls)
            if found is not None:
                break
        self._found[kind] = found
        return found
