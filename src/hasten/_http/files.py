"""FileResponse: a file sent by the server itself where it can, with the validators and the
conditional and range requests of RFC 9110.

Under Granian RSGI the file goes out through ``response_file`` / ``response_file_range``
(Granian reads it on its own threads); under ASGI through ``http.response.pathsend`` where the
server offers it, else in chunks read on the app's thread pool. The response always carries
its Content-Length, so no server needs to fall back to chunked encoding.
"""

from __future__ import annotations

import functools
import mimetypes
import os
import stat
from collections.abc import Mapping
from email.utils import formatdate, parsedate_to_datetime
from typing import TYPE_CHECKING
from urllib.parse import quote

from hasten._flow.transport import Outbound, Sent
from hasten._http.background import BackgroundTask
from hasten._http.ranges import (
    MAX_RANGES,
    ByteRanges,
    MalformedRange,
    Spans,
    Unsatisfiable,
    requested_spans,
)
from hasten._http.responses import PlainTextResponse, Response, StreamingResponse
from hasten._http.wire import HeaderList, allows_body, frame
from hasten._running.threads import submit

if TYPE_CHECKING:
    from hasten._http.datastructures import Headers
    from hasten._http.requests import Request

__all__ = ["FileResponse", "content_disposition"]


class FileResponse(Response):
    """The file at ``path``: ``FileResponse("report.pdf", filename="Report 2024.pdf")``.

    Sends ``ETag``, ``Last-Modified`` and ``Accept-Ranges: bytes``, and answers the request's
    ``If-None-Match`` / ``If-Modified-Since`` with 304, ``If-Match`` / ``If-Unmodified-Since``
    with 412, and a single ``Range`` with 206 (``If-Range`` respected; 416 when nothing of the
    file is in it). Several ranges in one request are answered with ``multipart/byteranges``
    (overlapping ones merged; more than ``max_ranges``, or covering more than half the file,
    get the whole file), a malformed Range with 400, as Starlette answers them; another unit
    than bytes is ignored (RFC 9110). ``filename`` adds a ``Content-Disposition`` (RFC
    6266, with RFC 5987 encoding for names that are not ASCII).
    """

    __slots__ = ("path", "stat_result")

    # How much of the file hasten reads at a time where it reads it itself (the parts of a
    # multi-range body), and how many ranges one request may ask (more: the whole file); a
    # subclass may set its own, as Starlette's.
    chunk_size = 64 * 1024
    max_ranges = MAX_RANGES

    def __init__(  # noqa: PLR0917 - Starlette's signature, positional arguments included
        self,
        path: str | os.PathLike[str],
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
        background: BackgroundTask | None = None,
        filename: str | None = None,
        stat_result: os.stat_result | None = None,
        *,
        status_code: int | None = None,
        content_disposition_type: str = "attachment",
    ) -> None:
        self.path = os.fspath(path)
        if media_type is None:
            media_type = guess_media_type(os.path.basename(filename or self.path))
        super().__init__(b"", status, headers, media_type, background, status_code=status_code)
        self.stat_result = stat_result
        if filename is not None:
            self.headers["content-disposition"] = content_disposition(
                content_disposition_type, filename
            )

    def __repr__(self) -> str:
        return f"<FileResponse {self.status} {self.media_type} {self.path!r}>"

    async def send(self, outbound: Outbound, request: Request) -> None:
        # The file's status comes from the disk: asked on a thread, not on the event loop.
        info = self.stat_result or await submit(request.context.threads, _regular_file, self.path)
        headers = self.wire_headers.copy()
        etag = _add_validators(headers, info)
        spans = None
        method = request.method.upper()  # as Starlette reads it: a scope may say "get"
        if self.status == 200 and method in ("GET", "HEAD"):
            try:
                decided = _decide(
                    request.headers, etag, int(info.st_mtime), info.st_size, self.max_ranges
                )
            except MalformedRange as error:
                await PlainTextResponse(str(error), 400).send(outbound, request)
                return
            except Unsatisfiable:
                decided = 416
                headers.append(("content-range", f"bytes */{info.st_size}"))
            if isinstance(decided, int):
                sent = outbound.response_bytes(decided, frame(decided, headers, 0), b"")
                if sent is not None:
                    await sent
                return
            spans = decided
        if spans is not None and len(spans) > 1:
            await self._send_parts(outbound, request, headers, spans, info.st_size)
            return
        sent = self._hand_over(outbound, method == "HEAD", headers, info.st_size, spans)
        if sent is not None:
            await sent

    def _hand_over(
        self, outbound: Outbound, head: bool, headers: HeaderList, size: int, spans: Spans | None
    ) -> Sent:
        """The whole file, or one span of it (206)."""
        if spans is not None:
            start, end = spans[0]
            headers.append(("content-range", f"bytes {start}-{end - 1}/{size}"))
            headers = frame(206, headers, end - start)
            if head:
                return outbound.response_bytes(206, headers, b"")
            return outbound.response_file_range(206, headers, self.path, start, end)
        status = self.status
        headers = frame(status, headers, size)
        if head or not allows_body(status) or size == 0:
            return outbound.response_bytes(status, headers, b"")
        return outbound.response_file(status, headers, self.path)

    async def _send_parts(
        self, outbound: Outbound, request: Request, headers: HeaderList, spans: Spans, size: int
    ) -> None:
        """Several spans: one ``multipart/byteranges`` body of known length, read on the
        thread pool ``chunk_size`` bytes at a time, stopped when the client leaves."""
        kept = [item for item in headers if item[0] != "content-type"]
        content_type = next(
            (value for name, value in headers if name == "content-type"), "application/octet-stream"
        )
        parts = ByteRanges(self.path, spans, size, content_type)
        stream = StreamingResponse(parts.chunks(self.chunk_size), 206)
        headers = [*kept, ("content-type", parts.media_type)]
        stream.wire_headers = frame(206, headers, parts.length)
        await stream.send(outbound, request)


def _regular_file(path: str) -> os.stat_result:
    """The status of the file at ``path``; a RuntimeError (a 500) when there is none."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise RuntimeError(f"File at path {path} does not exist.") from None
    if not stat.S_ISREG(info.st_mode):
        raise RuntimeError(f"File at path {path} is not a file.")
    return info


@functools.lru_cache(maxsize=1024)
def guess_media_type(name: str) -> str:
    """The media type of a file by its name; octet-stream when unknown."""
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


def content_disposition(kind: str, filename: str) -> str:
    """``attachment; filename="..."``, with ``filename*`` (RFC 5987) for a name beyond
    printable ASCII (a control character, CR and LF among them, is ``_`` in the first)."""
    ascii_name = filename.encode("ascii", "replace").decode("ascii").replace("?", "_")
    if not ascii_name.isprintable():
        ascii_name = "".join(c if c.isprintable() else "_" for c in ascii_name)
    quoted = ascii_name.replace("\\", "\\\\").replace('"', '\\"')
    value = f'{kind}; filename="{quoted}"'
    if ascii_name != filename:
        value += f"; filename*=UTF-8''{quote(filename, safe='')}"
    return value


@functools.lru_cache(maxsize=4096)
def http_date(seconds: int) -> str:
    """An HTTP date (RFC 9110 §5.6.7); cached, as a file's stays the same while it does."""
    return formatdate(seconds, usegmt=True)


def _add_validators(headers: HeaderList, info: os.stat_result) -> str:
    """Add Accept-Ranges, ETag and Last-Modified where the headers lack them; the ETag."""
    present = {name for name, _ in headers}
    if "accept-ranges" not in present:
        headers.append(("accept-ranges", "bytes"))
    if "last-modified" not in present:
        headers.append(("last-modified", http_date(int(info.st_mtime))))
    if "etag" in present:
        for name, value in headers:
            if name == "etag":
                return value
    # The ETag of nginx: modification time and size, in hex; strong, as both identify a version.
    etag = f'"{info.st_mtime_ns // 1000:x}-{info.st_size:x}"'
    headers.append(("etag", etag))
    return etag


def _decide(
    asked: Headers, etag: str, mtime: int, size: int, max_ranges: int
) -> int | Spans | None:
    """What the request's conditional and range headers make of a 200 to a GET or HEAD (RFC
    9110 §13.2.2): a status to answer with no body (304, 412), the spans to send, or None
    for the whole file. Raises ``MalformedRange`` (400) and ``Unsatisfiable`` (416)."""
    status = _preconditions(asked, etag, mtime)
    if status is not None:
        return status
    wanted = asked.get("range")
    if wanted is None or not _if_range_holds(asked.get("if-range"), etag, mtime):
        return None
    return requested_spans(wanted, size, max_ranges) or None


def _preconditions(asked: Headers, etag: str, mtime: int) -> int | None:
    """412 or 304 when a precondition says so, in RFC 9110's order; None otherwise."""
    if_match = asked.get("if-match")
    if if_match is not None:
        if not _etag_matches(if_match, etag, weak=False):
            return 412
    else:
        since = _timestamp(asked.get("if-unmodified-since"))
        if since is not None and mtime > since:
            return 412
    if_none_match = asked.get("if-none-match")
    if if_none_match is not None:
        return 304 if _etag_matches(if_none_match, etag, weak=True) else None
    since = _timestamp(asked.get("if-modified-since"))
    if since is not None and mtime <= since:
        return 304
    return None


def _etag_matches(header: str, etag: str, *, weak: bool) -> bool:
    if header.strip() == "*":
        return True
    for candidate in header.split(","):
        tag = candidate.strip()
        if tag.startswith("W/"):
            if not weak:
                continue
            tag = tag[2:]
        if tag == etag:
            return True
    return False


def _timestamp(value: str | None) -> int | None:
    if not value:
        return None
    try:
        return int(parsedate_to_datetime(value).timestamp())
    except (TypeError, ValueError, IndexError, OverflowError):  # a year of 10 digits: Overflow
        return None  # an invalid date is ignored (RFC 9110 §13.1.3)


def _if_range_holds(if_range: str | None, etag: str, mtime: int) -> bool:
    """Whether a Range may be honoured: no If-Range, or one naming this very version."""
    if if_range is None:
        return True
    if_range = if_range.strip()
    if if_range.startswith("W/"):
        return False  # a weak validator never allows a range (strong comparison only)
    if if_range.startswith('"'):
        return if_range == etag
    return _timestamp(if_range) == mtime
