"""GZipMiddleware: responses compressed for clients that accept gzip, streams included."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterable, AsyncIterator, Callable, Sequence
from concurrent.futures import Executor
from typing import Any

from hasten._flow.contracts import CallNext
from hasten._http.files import FileResponse
from hasten._http.requests import Request
from hasten._http.responses import InThreads, Response, StreamingResponse, close_chunks
from hasten._http.wire import allows_body
from hasten._running.threads import submit
from hasten._serve.chain import ChainMiddleware, keeps_its_call
from hasten._serve.mounts import MountResponse
from hasten.middleware.headers import add_vary

__all__ = ["GZipMiddleware", "accepts_gzip"]

_GZIP = 31  # zlib's wbits for a gzip container
# Compressing takes 30-50 ms a MiB at level 9: past this size a body (or a stream's chunk) is
# compressed on the app's thread pool, where zlib lets go of the GIL, not on the event loop.
OFFLOAD_SIZE = 64 * 1024
# Media types that are compressed already: gzip would spend CPU to make them no smaller.
COMPRESSED_TYPES = (
    "image/png",
    "image/jpeg",
    "image/gif",
    "image/webp",
    "image/avif",
    "video/",
    "audio/mpeg",
    "audio/ogg",
    "audio/aac",
    "font/woff",
    "application/zip",
    "application/gzip",
    "application/x-gzip",
    "application/zstd",
    "application/x-7z-compressed",
    "application/x-bzip2",
    "application/x-xz",
    "application/x-rar-compressed",
)


@keeps_its_call
class GZipMiddleware(ChainMiddleware):
    """Compress responses of ``minimum_size`` bytes or more (streams always) for clients that
    send ``Accept-Encoding: gzip``, with ``Vary: Accept-Encoding``.

    Left as they are: responses already encoded, files (their ranges and ETags describe the
    file; under RSGI the server sends them itself), mounted apps' responses, statuses without
    a body, media types that are compressed already (images, video, archives: unlike
    Starlette, which spends CPU on them for nothing), and ``exclude_content_types``
    (Server-Sent Events by default, as in Starlette: a proxy or browser may hold compressed
    events back). A stream is flushed chunk by chunk, so each chunk reaches the client when it
    is produced. A body or chunk of 64 KiB or more is compressed on the thread pool.
    """

    def __init__(
        self,
        minimum_size: int = 500,
        compresslevel: int = 9,
        exclude_content_types: Sequence[str] = ("text/event-stream",),
    ) -> None:
        self.minimum_size = minimum_size
        self.compresslevel = compresslevel
        self.exclude_content_types = (*exclude_content_types, *COMPRESSED_TYPES)

    async def __call__(self, request: Request, call_next: CallNext) -> Response:
        response = await call_next(request)
        if not self._compressible(response):
            return response
        streaming = isinstance(response, StreamingResponse)
        if not streaming and len(response.body) < self.minimum_size:
            return response
        headers = response.headers
        add_vary(headers, "Accept-Encoding")
        if not accepts_gzip(request.headers.get("accept-encoding", "")):
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
            response.content = _compressed(source, self.compresslevel, request.context.threads)
        else:
            compressor = zlib.compressobj(self.compresslevel, zlib.DEFLATED, _GZIP)
            response.body = await _run(_whole, compressor, response.body, request.context.threads)
        return response

    def _compressible(self, response: Response) -> bool:
        if isinstance(response, FileResponse | MountResponse) or not allows_body(response.status):
            return False
        raw = response.wire_headers
        for name, value in raw:
            if name == "content-encoding":
                return False
            if name == "content-type" and value.startswith(self.exclude_content_types):
                return False
        return True


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an ``Accept-Encoding`` value asks for gzip: ``gzip`` (or ``x-gzip``) listed
    with a weight above 0 (RFC 9110, 12.5.3). Starlette looks for the word anywhere, and so
    compresses for a client that refused gzip (``gzip;q=0``), which then cannot read the
    body; ``*`` alone is left uncompressed, as Starlette leaves it (identity is always
    acceptable).
    """
    lowered = accept_encoding.lower()
    if "gzip" not in lowered:
        return False
    for item in lowered.split(","):
        coding, _, parameters = item.partition(";")
        if coding.strip() in ("gzip", "x-gzip"):
            return _weight(parameters) > 0
    return False


def _weight(parameters: str) -> float:
    """The ``q`` of a coding's parameters: 1 when absent, 0 when it is not a number."""
    for parameter in parameters.split(";"):
        name, _, value = parameter.partition("=")
        if name.strip() == "q":
            try:
                return float(value.strip())
            except ValueError:
                return 0.0
    return 1.0


async def _compressed(
    source: AsyncIterable[Any], level: int, pool: Executor | None
) -> AsyncIterator[bytes]:
    compressor = zlib.compressobj(level, zlib.DEFLATED, _GZIP)
    try:
        async for chunk in source:
            data = chunk.encode() if isinstance(chunk, str) else chunk
            out = await _run(_flushed, compressor, data, pool)
            if out:
                yield out
        yield compressor.flush()
    finally:
        await close_chunks(source)


def _whole(compressor: Any, data: bytes) -> bytes:
    return bytes(compressor.compress(data) + compressor.flush())


def _flushed(compressor: Any, data: bytes) -> bytes:
    return bytes(compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH))


async def _run(
    step: Callable[[Any, bytes], bytes], compressor: Any, data: bytes, pool: Executor | None
) -> bytes:
    """``step(compressor, data)``: on the loop when it is quick, else on ``pool``."""
    if len(data) < OFFLOAD_SIZE:
        return step(compressor, data)
    compressed: bytes = await submit(pool, step, compressor, data)
    return compressed
