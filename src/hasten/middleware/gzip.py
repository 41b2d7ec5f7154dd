"""GZipMiddleware: responses compressed for clients that accept gzip, streams included."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterable, AsyncIterator, Sequence
from typing import Any

from ..files import FileResponse
from ..mounts import MountResponse
from ..requests import Request
from ..responses import InThreads, Response, StreamingResponse, close_chunks
from ..types import CallNext
from ..wire import allows_body
from .headers import add_vary

__all__ = ["GZipMiddleware"]

_GZIP = 31  # zlib's wbits for a gzip container


class GZipMiddleware:
    """Compress responses of ``minimum_size`` bytes or more (streams always) for clients that
    send ``Accept-Encoding: gzip``, with ``Vary: Accept-Encoding``.

    Left as they are: responses already encoded, files (their ranges and ETags describe the
    file; under RSGI the server sends them itself), mounted apps' responses, statuses without
    a body, and ``exclude_content_types`` (Server-Sent Events by default, as in Starlette: a
    proxy or browser may hold compressed events back). A stream is flushed chunk by chunk, so
    each chunk reaches the client when it is produced.
    """

    def __init__(
        self,
        minimum_size: int = 500,
        compresslevel: int = 9,
        exclude_content_types: Sequence[str] = ("text/event-stream",),
    ) -> None:
        self.minimum_size = minimum_size
        self.compresslevel = compresslevel
        self.exclude_content_types = tuple(exclude_content_types)

    async def __call__(self, request: Request, call_next: CallNext) -> Response:
        response = await call_next(request)
        if not self._compressible(response):
            return response
        streaming = isinstance(response, StreamingResponse)
        if not streaming and len(response.body) < self.minimum_size:
            return response
        headers = response.headers
        add_vary(headers, "Accept-Encoding")
        if "gzip" not in request.headers.get("accept-encoding", "").lower():
            return response
        headers["content-encoding"] = "gzip"
        if isinstance(response, StreamingResponse):
            if "content-length" in headers:
                del headers["content-length"]
            content = response.content
            source = (
                content
                if isinstance(content, AsyncIterable)
                else InThreads(content, request.context.threads)
            )
            response.content = _compressed(source, self.compresslevel)
        else:
            compressor = zlib.compressobj(self.compresslevel, zlib.DEFLATED, _GZIP)
            response.body = compressor.compress(response.body) + compressor.flush()
        return response

    def _compressible(self, response: Response) -> bool:
        if isinstance(response, FileResponse | MountResponse) or not allows_body(response.status):
            return False
        raw = response.raw_headers
        for name, value in raw:
            if name == "content-encoding":
                return False
            if name == "content-type" and value.startswith(self.exclude_content_types):
                return False
        return True


async def _compressed(source: AsyncIterable[Any], level: int) -> AsyncIterator[bytes]:
    compressor = zlib.compressobj(level, zlib.DEFLATED, _GZIP)
    try:
        async for chunk in source:
            data = chunk.encode() if isinstance(chunk, str) else chunk
            out = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
            if out:
                yield out
        yield compressor.flush()
    finally:
        await close_chunks(source)
