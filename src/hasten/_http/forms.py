"""Forms: urlencoded and multipart bodies, parsed as they stream in, within the app's limits.

Multipart is parsed by ``multipart`` (defnull's streaming parser: sans-io, strict limits, and
about 3x faster than python-multipart on fields). Every limit is a setting and every refusal
names it: ``max_body_size`` for the whole body, ``max_form_parts``, ``max_form_field_size``
for a field that is not a file, ``max_file_size`` for a file; uploads stay in memory up to
``form_spool_size`` and move to a temporary file (unnamed on disk) past it. A form over one of
FastAPI's limits (``form_limits``: fields, files, a field's size) is a 400, as FastAPI answers
it; over one of hasten's own (parts, a file's size, the body's) a 413.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import multipart

from hasten._http.datastructures import Headers, ImmutableMultiDict, parse_query
from hasten._http.errors import HTTPError
from hasten._http.uploads import UploadFile, spooled_file

__all__ = ["FORM_MEDIA_TYPES", "FormData", "FormLimits", "read_form"]


class FormSource(Protocol):
    """What a form is read from: a request (``Request``), by its content type and body."""

    def _header(self, name: str) -> str | None: ...

    async def body(self) -> bytes: ...

    def stream(self) -> AsyncIterator[bytes]: ...


FORM_MEDIA_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
FormValue = str | UploadFile


class FormData(ImmutableMultiDict[FormValue]):
    """A parsed form: ``form["name"]`` is the last value given (Starlette's rule),
    ``form.get_all("name")`` every one; a file is an UploadFile, any other field a str."""

    __slots__ = ()

    @property
    def has_files(self) -> bool:
        return any(isinstance(value, UploadFile) for _, value in self._pairs)

    async def close(self) -> None:
        """Close every uploaded file."""
        for _, value in self._pairs:
            if isinstance(value, UploadFile):
                await value.close()


async def read_form(request: FormSource, limits: FormLimits) -> FormData:
    """The request's form, urlencoded or multipart; none without a body; any other body is
    a 415."""
    header = request._header("content-type") or ""
    media_type, _, options = header.partition(";")
    media_type = media_type.strip().lower()
    if media_type == "application/x-www-form-urlencoded":
        return _urlencoded(await request.body(), limits)
    if media_type == "multipart/form-data":
        boundary = _boundary(options)
        return await _multipart(request, boundary, limits)
    if not media_type and not await request.body():
        return FormData([])  # no body at all (a GET): an empty form, as Starlette's
    raise HTTPError(
        415,
        "Expected a form body (Content-Type: multipart/form-data or "
        f"application/x-www-form-urlencoded), got {media_type or 'none'!r}",
    )


def _boundary(options: str) -> str:
    for option in options.split(";"):
        name, _, value = option.partition("=")
        if name.strip().lower() == "boundary":
            value = value.strip().strip('"')
            if value:
                return value
    raise HTTPError(400, "Malformed multipart body: the Content-Type has no boundary")


def _urlencoded(body: bytes, limits: FormLimits) -> FormData:
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise HTTPError(400, "Malformed form body: not UTF-8") from None
    pairs = parse_query(text)
    if len(pairs) > limits.max_parts:
        raise _too_many_parts(limits)
    if limits.max_fields is not None and len(pairs) > limits.max_fields:
        raise _too_many("fields", limits.max_fields)
    limit = limits.max_field_size
    for name, value in pairs:
        if len(value) > limit:
            raise _field_too_large(name, limits)
    return FormData(list(pairs))


def _too_many_parts(limits: FormLimits) -> HTTPError:
    return HTTPError(413, f"The form has more than {limits.max_parts} parts (max_form_parts)")


def _too_many(kind: str, limit: int) -> HTTPError:
    return HTTPError(400, f"The form has more than {limit} {kind} (form_limits max_{kind})")


def _field_too_large(name: str, limits: FormLimits) -> HTTPError:
    return HTTPError(
        400,
        f"Form field {name!r} exceeds {limits.max_field_size} bytes (max_form_field_size)",
    )


def _file_too_large(name: str, limits: FormLimits) -> HTTPError:
    return HTTPError(413, f"File {name!r} exceeds {limits.max_file_size} bytes (max_file_size)")


async def _multipart(request: FormSource, boundary: str, limits: FormLimits) -> FormData:
    # Part headers are read as latin-1, which takes any byte: a name or filename is then
    # decoded as UTF-8 where it is that, else kept as latin-1 (Starlette's rule), so that a
    # client's non-UTF-8 filename is taken, not refused.
    parser = multipart.PushMultipartParser(
        boundary, max_segment_count=limits.max_parts, header_charset="latin-1"
    )
    pairs: list[tuple[str, FormValue]] = []
    part = _Part(limits)
    try:
        await _parse(request, parser, part, pairs, limits)
    except BaseException:
        await FormData(pairs).close()
        part.discard()
        raise
    return FormData(pairs)


async def _parse(
    request: FormSource,
    parser: Any,
    part: _Part,
    pairs: list[tuple[str, FormValue]],
    limits: FormLimits,
) -> None:
    try:
        empty = True
        async for chunk in request.stream():
            empty = empty and not chunk
            for event in parser.parse(chunk):
                part.take(event, pairs)
        if empty:  # no body at all: an empty form, as Starlette reads it (its values missing)
            return
        for event in parser.parse(b""):
            part.take(event, pairs)
    except multipart.ParserLimitReached as exc:
        # The parser counts parts as they start: with max_parts of them finished, the limit
        # reached is theirs (its message's words are not relied on).
        if part.finished >= limits.max_parts:
            raise _too_many_parts(limits) from None
        raise HTTPError(413, f"Malformed multipart body: {_reason(exc)}") from None
    except multipart.MultipartError as exc:
        raise HTTPError(400, f"Malformed multipart body: {_reason(exc)}") from None


def _reason(exc: multipart.MultipartError) -> str:
    """The parser's own message: its first argument (a later one may be the Python error
    behind it, whose text is not the client's business)."""
    first = exc.args[0] if exc.args else None
    return first if isinstance(first, str) else type(exc).__name__


def _text(header_value: str) -> str:
    """A part's name or filename, read as latin-1: UTF-8 where its bytes are that."""
    if header_value.isascii():
        return header_value
    try:
        return header_value.encode("latin-1").decode()
    except UnicodeError:
        return header_value


class _Part:
    """The part being received: a field's bytes (held to ``max_form_field_size``) or a
    file's (spooled, held to ``max_file_size``)."""

    __slots__ = ("_chunks", "_counts", "_file", "_limits", "_received", "_segment")

    def __init__(self, limits: FormLimits) -> None:
        self._limits = limits
        self._counts = {"fields": 0, "files": 0}  # for form_limits' max_fields, max_files
        self._segment: Any = None
        self._chunks: list[bytes] = []
        self._file: UploadFile | None = None
        self._received = 0

    @property
    def finished(self) -> int:
        """How many parts have been received whole."""
        return self._counts["fields"] + self._counts["files"]

    def take(self, event: Any, pairs: list[tuple[str, FormValue]]) -> None:
        if isinstance(event, multipart.MultipartSegment):
            self._start(event)
        elif event is None:
            self._finish(pairs)
        else:
            self._received += len(event)
            if self._file is not None:
                if self._received > self._limits.max_file_size:
                    raise _file_too_large(self._segment.filename, self._limits)
                self._file.file.write(event)
            else:
                if self._received > self._limits.max_field_size:
                    raise _field_too_large(self._segment.name, self._limits)
                self._chunks.append(event)

    def _start(self, segment: Any) -> None:
        if not segment.name:
            raise HTTPError(400, "Malformed multipart body: a part has no name")
        segment.name = _text(segment.name)
        if segment.filename is not None:
            segment.filename = _text(segment.filename)
        self._segment = segment
        self._received = 0
        self._chunks = []
        declared = segment.header("Content-Length")
        limit = (
            self._limits.max_file_size
            if segment.filename is not None
            else self._limits.max_field_size
        )
        if declared is not None and declared.isdigit() and int(declared) > limit:
            if segment.filename is not None:
                raise _file_too_large(segment.filename, self._limits)
            raise _field_too_large(segment.name, self._limits)
        if segment.filename is not None:
            headers = Headers([(name.lower(), value) for name, value in segment.headerlist])
            self._file = UploadFile(
                spooled_file(self._limits.spool_size),
                size=0,
                filename=segment.filename,
                headers=headers,
            )
        else:
            self._file = None

    def _finish(self, pairs: list[tuple[str, FormValue]]) -> None:
        segment = self._segment
        kind = "files" if self._file is not None else "fields"
        self._counts[kind] += 1
        limit = getattr(self._limits, f"max_{kind}")
        if limit is not None and self._counts[kind] > limit:
            raise _too_many(kind, limit)
        if self._file is not None:
            self._file.size = self._received
            self._file.file.seek(0)
            pairs.append((segment.name, self._file))
            self._file = None
            return
        data = b"".join(self._chunks)
        try:
            text = data.decode(segment.charset or "utf-8")
        except (UnicodeDecodeError, LookupError):
            raise HTTPError(
                400, f"Malformed multipart body: field {segment.name!r} is not text"
            ) from None
        pairs.append((segment.name, text))

    def discard(self) -> None:
        if self._file is not None:
            self._file.file.close()
            self._file = None


@dataclass(frozen=True, slots=True)
class FormLimits:
    """How large a form may be (each an App setting of the same name; ``max_fields`` and
    ``max_files`` are FastAPI's ``form_limits``, which bound each kind of part within
    ``max_parts``)."""

    max_parts: int
    max_field_size: int
    max_file_size: int
    spool_size: int
    max_fields: int | None = None
    max_files: int | None = None

    def given(self, limits: Mapping[str, Any]) -> FormLimits:
        """These limits with FastAPI's ``form_limits`` keys over them."""
        changes = {key: value for key, value in limits.items() if key != "max_part_size"}
        if "max_part_size" in limits:
            changes["max_field_size"] = limits["max_part_size"]
        return dataclasses.replace(self, **changes) if changes else self
