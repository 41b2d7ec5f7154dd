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
from collections.abc import Mapping
from email.utils import formatdate, parsedate_to_datetime
from typing import TYPE_CHECKING
from urllib.parse import quote

from hasten._flow.transport import Outbound, Sent
from hasten._http.background import BackgroundTask
from hasten._http.responses import Response
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
    file is in it). Several ranges in one request are answered with the whole file (200), as
    RFC 9110 allows. ``filename`` adds a ``Content-Disposition`` (RFC 6266, with RFC 5987
    encoding for names that are not ASCII).
    """

    __slots__ = ("path", "stat_result")

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
        stat = self.stat_result or await submit(request.context.threads, os.stat, self.path)
        sent = self._hand_over(outbound, request, stat)
        if sent is not None:
            await sent

    def _hand_over(self, outbound: Outbound, request: Request, stat: os.stat_result) -> Sent:
        size = stat.st_size
        status = self.status
        method = request.method
        head = method == "HEAD"
        headers = self.wire_headers.copy()
        etag = _add_validators(headers, stat)
        if status == 200 and method in ("GET", "HEAD"):
            decided = _decide(request.headers, etag, int(stat.st_mtime), size, head)
            if decided is not None:
                status, extra, span = decided
                headers.extend(extra)
                if span is not None:
                    start, end = span
                    headers = frame(status, headers, end - start)
                    return outbound.response_file_range(status, headers, self.path, start, end)
                return outbound.response_bytes(status, frame(status, headers, 0), b"")
        headers = frame(status, headers, size)
        if head or not allows_body(status) or size == 0:
            return outbound.response_bytes(status, headers, b"")
        return outbound.response_file(status, headers, self.path)


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


def _add_validators(headers: HeaderList, stat: os.stat_result) -> str:
    """Add Accept-Ranges, ETag and Last-Modified where the headers lack them; the ETag."""
    present = {name for name, _ in headers}
    if "accept-ranges" not in present:
        headers.append(("accept-ranges", "bytes"))
    if "last-modified" not in present:
        headers.append(("last-modified", http_date(int(stat.st_mtime))))
    if "etag" in present:
        for name, value in headers:
            if name == "etag":
                return value
    # The ETag of nginx: modification time and size, in hex; strong, as both identify a version.
    etag = f'"{stat.st_mtime_ns // 1000:x}-{stat.st_size:x}"'
    headers.append(("etag", etag))
    return etag


Decision = tuple[int, HeaderList, tuple[int, int] | None]


def _decide(asked: Headers, etag: str, mtime: int, size: int, head: bool) -> Decision | None:
    """What the request's conditional and range headers make of a 200 to a GET or HEAD (RFC
    9110 §13.2.2): (status, extra headers, byte span to send), or None for the whole file."""
    status = _preconditions(asked, etag, mtime)
    if status is not None:
        return status, [], None
    wanted = asked.get("range")
    if wanted is None or head or not _if_range_holds(asked.get("if-range"), etag, mtime):
        return None
    span = _single_range(wanted, size)
    if span is None:
        return None  # malformed, or several ranges: the whole file
    if span == (0, 0):
        return 416, [("content-range", f"bytes */{size}")], None
    start, end = span
    return 206, [("content-range", f"bytes {start}-{end - 1}/{size}")], span


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
    if if_range.startswith(('"', "W/")):
        return if_range == etag  # strong comparison only
    return _timestamp(if_range) == mtime


def _single_range(header: str, size: int) -> tuple[int, int] | None:
    """The span [start, end) of a single ``bytes=`` range; (0, 0) when it is unsatisfiable;
    None when the header is malformed or asks for several ranges (then it is ignored)."""
    unit, _, spec = header.partition("=")
    if unit.strip().lower() != "bytes" or "," in spec:
        return None
    first, dash, last = spec.strip().partition("-")
    if not dash or not _is_position(first) or not _is_position(last):
        return None
    if first == "":
        if last == "":
            return None
        length = _position(last)
        if length == 0 or size == 0:
            return 0, 0
        return max(size - length, 0), size
    if last and _before(last, first):
        return None  # last-pos before first-pos: invalid, ignored
    start = _position(first)
    if start >= size:
        return 0, 0
    return start, min(_position(last) + 1, size) if last else size


# A byte position past any file: what a position of more than 18 digits stands for, so that
# a 5,000-digit one costs no int() (which refuses strings past 4,300 digits).
_PAST_ANY_FILE = 10**18


def _is_position(text: str) -> bool:
    """Empty, or ASCII digits only (``str.isdigit`` takes other scripts' digits too)."""
    return text == "" or (text.isascii() and text.isdigit())


def _position(digits: str) -> int:
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 18 else _PAST_ANY_FILE


def _before(digits: str, other: str) -> bool:
    """Whether the number ``digits`` is less than ``other`` (both any length, unconverted)."""
    left, right = digits.lstrip("0"), other.lstrip("0")
    return (len(left), left) < (len(right), right)
