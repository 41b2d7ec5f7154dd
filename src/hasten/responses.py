"""Response kinds, each sending itself through a Transport: a whole body, a stream, a file."""

from __future__ import annotations

import mimetypes
import os
from collections.abc import AsyncIterable, Iterable, Mapping
from typing import Any

import msgspec

from .datastructures import MutableHeaders
from .transport import Sending, Transport
from .wire import HeaderList, allows_body, frame

__all__ = [
    "FileResponse",
    "HTMLResponse",
    "JSONResponse",
    "PlainTextResponse",
    "RedirectResponse",
    "Response",
    "StreamingResponse",
]

_content_type_lists: dict[str | None, HeaderList] = {None: []}


def content_type_headers(media_type: str | None) -> HeaderList:
    """The shared, never-mutated header list of a response that only has a content type."""
    # perf: built once per media type; the common response allocates no header list at all.
    cached = _content_type_lists.get(media_type)
    if cached is None:
        assert media_type is not None
        value = media_type
        if media_type.startswith("text/") and "charset" not in media_type:
            value = f"{media_type}; charset=utf-8"
        cached = _content_type_lists[media_type] = [("content-type", value)]
    return cached


class Response:
    """An HTTP response: ``Response(b"body", status=202, media_type="text/plain", headers={...})``.

    A ``str`` body is sent as UTF-8 and defaults to ``text/plain``.
    """

    __slots__ = ("_headers", "body", "media_type", "raw_headers", "status")

    def __init__(
        self,
        body: bytes | str = b"",
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
    ) -> None:
        if isinstance(body, str):
            body = body.encode()
            if media_type is None:
                media_type = "text/plain"
        self.body = body
        self.status = status
        self.media_type = media_type
        self._headers: MutableHeaders | None = None
        # What goes on the wire: shared and never mutated until ``headers`` copies it.
        self.raw_headers = content_type_headers(media_type)
        if headers:
            response_headers = self.headers
            for name, value in headers.items():
                response_headers[name] = value

    @property
    def headers(self) -> MutableHeaders:
        """The response headers, content type included; changes go out on the wire."""
        if self._headers is None:
            self._headers = MutableHeaders(list(self.raw_headers))
            self.raw_headers = self._headers._items
        return self._headers

    def send(self, transport: Transport, head: bool) -> Sending:
        """Send this response; ``head``: the request was HEAD, so headers only."""
        status = self.status
        if self._headers is None and not head and allows_body(status):
            # perf: the common response goes out as built; the server adds Content-Length.
            return transport.response_bytes(status, self.raw_headers, self.body)
        body = self.body
        # A HEAD answered with an empty body by hand keeps the Content-Length it gave.
        headers = frame(status, self.raw_headers, len(body) if body or not head else None)
        if head or not allows_body(status):
            body = b""
        return transport.response_bytes(status, headers, body)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.status} {self.media_type} {len(self.body)} bytes>"


_new = object.__new__


def build_response(body: bytes, status: int, media_type: str) -> Response:
    """``Response(body, status, None, media_type)`` for a handler's rendered result."""
    # perf: skips __init__'s argument handling: a third of a Response's cost.
    response: Response = _new(Response)
    response.body = body
    response.status = status
    response.media_type = media_type
    response._headers = None
    response.raw_headers = content_type_headers(media_type)
    return response


_json_encode = msgspec.json.encode


class JSONResponse(Response):
    """``content`` encoded as JSON (msgspec: dicts, lists, Structs, dataclasses, ...)."""

    __slots__ = ()

    def __init__(
        self, content: Any, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(_json_encode(content), status, headers, "application/json")


class PlainTextResponse(Response):
    """Text sent as ``text/plain; charset=utf-8``."""

    __slots__ = ()

    def __init__(
        self, content: str, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(content, status, headers, "text/plain")


class HTMLResponse(Response):
    """HTML sent as ``text/html; charset=utf-8``."""

    __slots__ = ()

    def __init__(
        self, content: str, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(content, status, headers, "text/html")


class RedirectResponse(Response):
    """A redirect to ``location`` (307 by default, which keeps the method and body)."""

    __slots__ = ()

    def __init__(
        self, location: str, status: int = 307, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(b"", status, {**(headers or {}), "location": location})


Chunks = AsyncIterable[bytes | str] | Iterable[bytes | str]


class StreamingResponse(Response):
    """A body sent as ``content`` yields it, chunk by chunk (bytes, or str sent as UTF-8).

    Its length is not known in advance: the server frames it (chunked on HTTP/1.1).
    """

    __slots__ = ("content",)

    def __init__(
        self,
        content: Chunks,
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
    ) -> None:
        super().__init__(b"", status, headers, media_type)
        self.content = content

    def __repr__(self) -> str:
        return f"<StreamingResponse {self.status} {self.media_type}>"

    async def send(self, transport: Transport, head: bool) -> None:
        status = self.status
        writer = transport.response_stream(status, frame(status, self.raw_headers, None))
        content = self.content
        try:
            if head or not allows_body(status):
                return
            if isinstance(content, AsyncIterable):
                async for chunk in content:
                    await writer.send_bytes(chunk.encode() if isinstance(chunk, str) else chunk)
            else:
                for chunk in content:
                    await writer.send_bytes(chunk.encode() if isinstance(chunk, str) else chunk)
        finally:
            await _close(content)


async def _close(content: Chunks) -> None:
    """Close a generator whether or not it ran, so its cleanup is never left pending."""
    aclose = getattr(content, "aclose", None)
    if aclose is not None:
        await aclose()
        return
    close = getattr(content, "close", None)
    if close is not None:
        close()


class FileResponse(Response):
    """The file at ``path``; under Granian the server sends it from its own threads."""

    __slots__ = ("path",)

    def __init__(
        self,
        path: str | os.PathLike[str],
        status: int = 200,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
    ) -> None:
        self.path = os.fspath(path)
        if media_type is None:
            media_type = mimetypes.guess_type(self.path)[0] or "application/octet-stream"
        super().__init__(b"", status, headers, media_type)

    def __repr__(self) -> str:
        return f"<FileResponse {self.status} {self.media_type} {self.path!r}>"

    def send(self, transport: Transport, head: bool) -> Sending:
        status = self.status
        headers = frame(status, self.raw_headers, os.stat(self.path).st_size)
        if head or not allows_body(status):
            return transport.response_bytes(status, headers, b"")
        return transport.response_file(status, headers, self.path)
