"""Starlette's exception middleware, as ASGI middleware for code that builds its own stack:
``ExceptionMiddleware`` answers an HTTPException (and what ``handlers`` name) raised inside
it, ``ServerErrorMiddleware`` any other exception, with a 500 (a traceback page when
``debug``). A hasten app does both itself; these wrap any ASGI app."""

from __future__ import annotations

import html
import inspect
import traceback
from collections.abc import Callable, Mapping
from typing import Any

from hasten._flow.contracts import ASGIApp, Message, Receive, Scope, Send
from hasten._http.errors import HTTPException, WebSocketException
from hasten._http.requests import Request
from hasten._http.responses import HTMLResponse, PlainTextResponse, Response
from hasten._http.websockets import WebSocket
from hasten._http.wire import allows_body
from hasten._running.concurrency import run_in_threadpool

__all__ = ["ExceptionMiddleware", "ServerErrorMiddleware"]


class ExceptionMiddleware:
    """Answer the exceptions ``handlers`` name (by class or status code) and every
    HTTPException, raised before the response started."""

    def __init__(
        self,
        app: ASGIApp,
        handlers: Mapping[Any, Callable[..., Any]] | None = None,
        debug: bool = False,
    ) -> None:
        self.app = app
        self.debug = debug
        self._status_handlers: dict[int, Callable[..., Any]] = {}
        self._exception_handlers: dict[type[BaseException], Callable[..., Any]] = {
            HTTPException: self.http_exception,
            WebSocketException: self.websocket_exception,
        }
        for key, handler in (handlers or {}).items():
            self.add_exception_handler(key, handler)

    def add_exception_handler(
        self, exc_class_or_status_code: int | type[BaseException], handler: Callable[..., Any]
    ) -> None:
        if isinstance(exc_class_or_status_code, int):
            self._status_handlers[exc_class_or_status_code] = handler
        else:
            self._exception_handlers[exc_class_or_status_code] = handler

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        started = False

        async def noting_start(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, noting_start)
        except Exception as exc:
            handler = self._handler_of(exc)
            if handler is None or started:
                raise
            await _answer(handler, exc, scope, receive, send)

    def _handler_of(self, exc: Exception) -> Callable[..., Any] | None:
        if isinstance(exc, HTTPException) and exc.status_code in self._status_handlers:
            return self._status_handlers[exc.status_code]
        for kind in type(exc).__mro__:
            if kind in self._exception_handlers:
                return self._exception_handlers[kind]
        return None

    async def http_exception(self, request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        if not allows_body(exc.status_code):
            return Response(status_code=exc.status_code, headers=exc.headers)
        return PlainTextResponse(str(exc.detail), status_code=exc.status_code, headers=exc.headers)

    async def websocket_exception(self, websocket: Any, exc: Exception) -> None:
        assert isinstance(exc, WebSocketException)
        await websocket.close(code=exc.code, reason=exc.reason)


class ServerErrorMiddleware:
    """Answer any exception with a 500 (``handler``'s, or a plain one; a traceback page when
    ``debug``), then raise it on to the server, as Starlette's does."""

    def __init__(
        self, app: ASGIApp, handler: Callable[..., Any] | None = None, debug: bool = False
    ) -> None:
        self.app, self.handler, self.debug = app, handler, debug

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def noting_start(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, noting_start)
        except Exception as exc:
            if not started:
                if self.debug:
                    request = Request(scope, receive=receive)
                    await self.debug_response(request, exc)(scope, receive, send)
                elif self.handler is not None:
                    await _answer(self.handler, exc, scope, receive, send)
                else:
                    request = Request(scope, receive=receive)
                    await self.error_response(request, exc)(scope, receive, send)
            raise

    def error_response(self, request: Request, exc: Exception) -> Response:
        return PlainTextResponse("Internal Server Error", status_code=500)

    def debug_response(self, request: Request, exc: Exception) -> Response:
        """The traceback: a page for a browser (its Accept names HTML), else plain text."""
        trace = "".join(traceback.format_exception(exc))
        if "text/html" not in request.headers.get("accept", ""):
            return PlainTextResponse(trace, status_code=500)
        page = f"<html><body><h1>500 Server Error</h1><pre>{html.escape(trace)}</pre></body></html>"
        return HTMLResponse(page, status_code=500)


async def _answer(
    handler: Callable[..., Any], exc: Exception, scope: Scope, receive: Receive, send: Send
) -> None:
    """Send what ``handler(connection, exc)`` answers (a WebSocket's handler answers itself)."""
    if scope["type"] == "websocket":
        await handler(WebSocket(scope, receive=receive, send=send), exc)
        return
    request = Request(scope, receive=receive)
    if inspect.iscoroutinefunction(handler):
        response = await handler(request, exc)
    else:
        response = await run_in_threadpool(handler, request, exc)
    if response is not None:
        await response(scope, receive, send)
