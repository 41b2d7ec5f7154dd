"""``starlette.middleware.gzip``, served by hasten: Starlette's GZip middleware over ASGI.

Starlette's class wraps an ASGI app (``GZipMiddleware(app, minimum_size=...)``), which
hasten's own ``GZipMiddleware`` (``hasten.middleware``, ``fastapi.middleware.gzip``) does not:
it runs in hasten's chain, on hasten's responses, without ASGI. Code that imports Starlette's
gets this one, with Starlette's behaviour (what it leaves alone, ``Vary`` for a client that
did not ask for gzip) but for ``Accept-Encoding``'s weights, read as hasten reads them. Under
RSGI an app that adds it serves over the ASGI bridge."""

from __future__ import annotations

import zlib
from typing import Any

from hasten.concurrency import run_in_threadpool
from hasten.datastructures import Headers, MutableHeaders
from hasten.middleware.gzip import accepts_gzip
from hasten.middleware.headers import add_vary
from hasten.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "DEFAULT_EXCLUDED_CONTENT_TYPES",
    "GZipMiddleware",
    "GZipResponder",
    "Headers",
    "IdentityResponder",
    "MutableHeaders",
]

# Media types whose bodies are compressed already, or must not be held back (events, gRPC).
DEFAULT_EXCLUDED_CONTENT_TYPES = (
    "application/grpc",
    "application/gzip",
    "application/x-gzip",
    "application/zip",
    "audio/*",
    "font/woff",
    "font/woff2",
    "image/avif",
    "image/gif",
    "image/jpeg",
    "image/png",
    "image/webp",
    "text/event-stream",
    "video/*",
)
_GZIP = 31  # zlib's wbits for a gzip container


class GZipMiddleware:
    """Compress ``app``'s responses of ``minimum_size`` bytes or more, and its streams, for
    clients whose ``Accept-Encoding`` names gzip."""

    def __init__(
        self,
        app: ASGIApp,
        minimum_size: int = 500,
        compresslevel: int = 9,
        thread_minimum_size: int = 128 * 1024,
        *,
        exclude_content_types: tuple[str, ...] = DEFAULT_EXCLUDED_CONTENT_TYPES,
    ) -> None:
        self.app = app
        self.minimum_size = minimum_size
        self.compresslevel = compresslevel
        self.thread_minimum_size = thread_minimum_size
        self.exclude_content_types = exclude_content_types

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        responder: IdentityResponder
        # Weights read as hasten's own middleware reads them: not for "gzip;q=0" (Starlette
        # compresses for any value that holds the word, which such a client cannot read).
        if accepts_gzip(Headers(scope=scope).get("accept-encoding", "")):
            responder = GZipResponder(
                self.app,
                self.minimum_size,
                self.compresslevel,
                thread_minimum_size=self.thread_minimum_size,
                exclude_content_types=self.exclude_content_types,
            )
        else:
            responder = IdentityResponder(
                self.app, self.minimum_size, exclude_content_types=self.exclude_content_types
            )
        await responder(scope, receive, send)


class IdentityResponder:
    """Sends ``app``'s response as it is, with ``Vary: Accept-Encoding`` where it would have
    been compressed for a client that asked."""

    content_encoding = ""

    def __init__(
        self,
        app: ASGIApp,
        minimum_size: int,
        *,
        exclude_content_types: tuple[str, ...] = DEFAULT_EXCLUDED_CONTENT_TYPES,
    ) -> None:
        self.app = app
        self.minimum_size = minimum_size
        self.exclude_content_types = frozenset(_media_type(item) for item in exclude_content_types)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.app(scope, receive, _Sending(self, send).send)

    async def compress(self, body: bytes, *, more_body: bool) -> bytes:
        """The body as sent (the next part of it, for a stream)."""
        return body

    def left_alone(self, start: Message) -> bool:
        """Whether the response is sent as it is: encoded already, a range, or excluded."""
        headers = Headers(raw=start.get("headers", []))
        media_type = _media_type(headers.get("content-type", ""))
        kinds = {media_type, media_type.partition("/")[0] + "/*"}
        if media_type.startswith("application/grpc+"):
            kinds.add("application/grpc")
        return (
            "content-encoding" in headers
            or start["status"] == 206
            or not kinds.isdisjoint(self.exclude_content_types)
        )


class GZipResponder(IdentityResponder):
    """Sends ``app``'s response gzip-compressed (see ``IdentityResponder`` for what is not)."""

    content_encoding = "gzip"

    def __init__(
        self,
        app: ASGIApp,
        minimum_size: int,
        compresslevel: int = 9,
        *,
        thread_minimum_size: int = 128 * 1024,
        exclude_content_types: tuple[str, ...] = DEFAULT_EXCLUDED_CONTENT_TYPES,
    ) -> None:
        super().__init__(app, minimum_size, exclude_content_types=exclude_content_types)
        self.compresslevel = compresslevel
        self.thread_minimum_size = thread_minimum_size
        self._compressor: Any = None

    async def compress(self, body: bytes, *, more_body: bool) -> bytes:
        if self._compressor is None:
            self._compressor = zlib.compressobj(self.compresslevel, zlib.DEFLATED, _GZIP)
        if len(body) >= self.thread_minimum_size:  # 30-50 ms a MiB: not on the event loop
            return await run_in_threadpool(self._compressed, body, more_body)
        return self._compressed(body, more_body)

    def _compressed(self, body: bytes, more_body: bool) -> bytes:
        data: bytes = self._compressor.compress(body)
        end: bytes = self._compressor.flush(zlib.Z_SYNC_FLUSH if more_body else zlib.Z_FINISH)
        return data + end


class _Sending:
    """One response's way out through a responder: the start held until the first body says
    whether (and how) it is compressed."""

    def __init__(self, responder: IdentityResponder, send: Send) -> None:
        self.responder = responder
        self.downstream = send
        self.start: Message | None = None
        self.as_is = False
        self.started = False

    async def send(self, message: Message) -> None:
        kind = message["type"]
        if kind == "http.response.start":
            self.start = message
            self.as_is = self.responder.left_alone(message)
            if self.as_is:
                await self.downstream(message)
            return
        if self.as_is or self.start is None or kind not in _BODIES:
            await self.downstream(message)
            return
        if kind == "http.response.pathsend":  # the server sends the file: as it is
            await self._send_start()
            await self.downstream(message)
            return
        body, more = message.get("body", b""), message.get("more_body", False)
        if self.started:
            await self.downstream(
                {**message, "body": await self.responder.compress(body, more_body=more)}
            )
            return
        self.started = True
        if len(body) < self.responder.minimum_size and not more:
            await self._send_start()
            await self.downstream(message)
            return
        compressed = await self.responder.compress(body, more_body=more)
        headers = MutableHeaders(raw=list(self.start.get("headers", [])))
        add_vary(headers, "Accept-Encoding")
        if self.responder.content_encoding:
            headers["content-encoding"] = self.responder.content_encoding
            if more or self.start.get("trailers", False):
                if "content-length" in headers:
                    del headers["content-length"]
            else:
                headers["content-length"] = str(len(compressed))
            message = {**message, "body": compressed}
        self.start = {**self.start, "headers": headers.raw}
        await self._send_start()
        await self.downstream(message)

    async def _send_start(self) -> None:
        assert self.start is not None
        await self.downstream(self.start)


_BODIES = frozenset({"http.response.body", "http.response.pathsend"})


def _media_type(content_type: str) -> str:
    return content_type.partition(";")[0].strip().lower()
