"""What errors answer: the JSON (or plain-text) response each HTTPError and unhandled exception
turns into, and the exception handlers an app may call, replace or add to (FastAPI's).

The exceptions themselves are in ``hasten._http.errors``, below everything that raises them."""

from __future__ import annotations

import functools
import inspect
import traceback
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeAlias

from hasten._http.errors import (
    HTTPError,
    RequestValidationError,
    WebSocketRequestValidationError,
    report_unhandled,
)
from hasten._http.jsonable import jsonable_encoder
from hasten._http.requests import Request
from hasten._http.responses import JSONResponse, PlainTextResponse, Response
from hasten._http.uploads import UploadFile
from hasten._http.wire import allows_body
from hasten._running.threads import submit

__all__ = [
    "ExceptionHandler",
    "ExceptionHandlers",
    "error_response",
    "http_error_handler",
    "http_exception_handler",
    "plain_text_error_response",
    "request_validation_error_handler",
    "request_validation_exception_handler",
    "server_error_response",
    "websocket_request_validation_exception_handler",
]


# ``handler(request, exc) -> Response``, sync or async: what ``app.exception_handler`` takes.
# Called ``handler(websocket, exc)`` for an exception a WebSocket's handler raised, as
# Starlette calls it.
ExceptionHandler: TypeAlias = "Callable[[Request, Any], Response | Awaitable[Response]]"


def error_response(exc: HTTPError) -> Response:
    """The JSON ``{"detail": ...}`` response for an HTTPError (a status that has no body, as
    204 or 304, gets none), as FastAPI's."""

    if not allows_body(exc.status):
        return Response(b"", exc.status, exc.headers)
    if isinstance(exc, RequestValidationError):
        # A body that is not UTF-8 is echoed with U+FFFD for what is not: FastAPI's encoder
        # raises on it, and the client's bad bytes become a 500. A file sent where a field is
        # asked for is echoed as its name, size and headers (FastAPI's has its insides too).
        lenient = {**_LENIENT_BYTES, UploadFile: _uploaded}
        detail = jsonable_encoder(exc.errors(), custom_encoder=lenient)
        return JSONResponse({"detail": detail}, 422, exc.headers)
    return JSONResponse({"detail": exc.detail}, exc.status, exc.headers)


def plain_text_error_response(request: Any, exc: HTTPError) -> Response:
    """Starlette's answer to an HTTPException: its detail in plain text (a Starlette app's
    default; FastAPI's, and so hasten's App's, is ``error_response``'s JSON)."""
    if not allows_body(exc.status):
        return Response(b"", exc.status, exc.headers)
    return PlainTextResponse(str(exc.detail), exc.status, exc.headers)


_LENIENT_BYTES: dict[Any, Callable[[Any], Any]] = {
    bytes: lambda value: value.decode(errors="replace")
}


def _uploaded(file: Any) -> dict[str, Any]:
    return {"filename": file.filename, "size": file.size, "headers": dict(file.headers)}


def server_error_response(exc: BaseException, debug: bool) -> Response:
    """A 500: ``Internal Server Error`` as plain text, as Starlette's ServerErrorMiddleware
    answers; in debug mode, JSON that names the exception and carries its traceback."""

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


def _on_thread(handler: ExceptionHandler) -> ExceptionHandler:
    """An app's plain ``def`` handler, run on the app's threads as Starlette runs it: it may
    block, or call back into the loop with ``anyio.from_thread.run``."""
    if inspect.iscoroutinefunction(handler) or inspect.iscoroutinefunction(
        getattr(handler, "__call__", None)  # noqa: B004 - an object whose call is async
    ):
        return handler
    if handler in (http_error_handler, plain_text_error_response):
        return handler  # hasten's own, which only make a response: on the loop

    @functools.wraps(handler)
    async def on_thread(connection: Any, exc: Any) -> Response:
        result = await submit(connection.context.threads, handler, connection, exc)
        if inspect.isawaitable(result):  # a partial of an async callable, a sync decorator's
            result = await result
        response: Response = result
        return response

    return on_thread


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
        for key, given in handlers.items():
            handler = _on_thread(given)
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
