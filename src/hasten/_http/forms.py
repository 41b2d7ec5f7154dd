"""Forms: urlencoded and multipart bodies, parsed as they stream in, within the app's limits.

Multipart is parsed by ``multipart`` (defnull's streaming parser: sans-io, strict limits, and
about 3x faster than python-multipart on fields). Every limit is a setting: ``max_body_size``
for the whole body, ``max_form_parts``, ``max_form_field_size`` for a field that is not a
file, ``max_file_size`` for a file; uploads stay in memory up to ``form_spool_size`` and move
to a temporary file (unnamed on disk) past it. A form over one of Starlette's and FastAPI's
limits (``form_limits``: 1,000 fields, 1,000 files, a field's size) or a malformed one is a
``MultiPartException``, a 400 in Starlette's words; over one of hasten's own (parts, a file's
size, the body's) a 413 that names its setting.
"""

from __future__ import annotations

import codecs
import dataclasses
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import multipart

from hasten._http.datastructures import Headers, ImmutableMultiDict, parse_query
from hasten._http.errors import HTTPError
from hasten._http.uploads import UploadFile, spooled_file

__all__ = [
    "FORM_MEDIA_TYPES",
    "FormData",
    "FormLimits",
    "MultiPartException",
    "multipart_form",
    "read_form",
    "urlencoded_form",
]


class FormSource(Protocol):
    """What a form is read from: a request (``Request``), by its content type and body."""

    def _header(self, name: str) -> str | None: ...

    async def body(self) -> bytes: ...

    def stream(self) -> AsyncIterator[bytes]: ...


FORM_MEDIA_TYPES = ("application/x-www-form-urlencoded", "multipart/form-data")
DEFAULT_MAX_FIELDS = DEFAULT_MAX_FILES = 1000  # Starlette's, so FastAPI's
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


class MultiPartException(HTTPError):
    """A malformed form, or one over a limit of Starlette's (``starlette.formparsers``'
    exception, by its name): a 400 whose text is ``message``."""

    def __init__(self, message: str) -> None:
        super().__init__(400, message)
        self.message = message

    def __str__(self) -> str:
        return self.message


async def read_form(request: FormSource, limits: FormLimits) -> FormData:
    """The request's form, urlencoded or multipart; none without a body; any other body is
    a 415."""
    header = request._header("content-type") or ""
    media_type, _, options = header.partition(";")
    media_type = media_type.strip().lower()
    if media_type == "application/x-www-form-urlencoded":
        return urlencoded_form(await request.body(), limits)
    if media_type == "multipart/form-data":
        return await multipart_form(options, request.stream(), limits)
    if not media_type and not await request.body():
        return FormData([])  # no body at all (a GET): an empty form, as Starlette's
    raise HTTPError(
        415,
        "Expected a form body (Content-Type: multipart/form-data or "
        f"application/x-www-form-urlencoded), got {media_type or 'none'!r}",
    )


def _multipart_options(options: str) -> tuple[str, str]:
    """The body's boundary, and the charset its parts' text is in where a part does not say
    (its own ``charset``, else UTF-8; one Python does not know is read as latin-1)."""
    boundary = None
    charset = "utf-8"
    for option in options.split(";"):
        name, _, value = option.partition("=")
        name = name.strip().lower()
        value = value.strip().strip('"')
        if name == "boundary" and value:
            boundary = value
        elif name == "charset" and value:
            charset = _known_charset(value)
    if boundary is None:
        raise MultiPartException("Missing boundary in multipart.")
    return boundary, charset


def _known_charset(name: str) -> str:
    try:
        return codecs.lookup(name).name
    except LookupError:
        return "latin-1"


def urlencoded_form(body: bytes, limits: FormLimits) -> FormData:
    """An urlencoded body's form."""
    try:
        text = body.decode()
    except UnicodeDecodeError:
        raise HTTPError(400, "Malformed form body: not UTF-8") from None
    pairs = parse_query(text)
    if len(pairs) > limits.max_fields:
        raise _too_many("fields", limits.max_fields)
    if len(pairs) > limits.max_parts:
        raise _too_many_parts(limits)
    limit = limits.max_field_size
    for name, value in pairs:
        if len(name) + len(value) > limit:
            raise MultiPartException(f"Field exceeded maximum size of {_size(limit)}.")
    return FormData(list(pairs))


def _size(limit: int) -> str:
    """A limit as Starlette says it (``10KB``), or in bytes where that is not exact."""
    return f"{limit // 1024}KB" if limit % 1024 == 0 else f"{limit} bytes"


def _too_many_parts(limits: FormLimits) -> HTTPError:
    return HTTPError(413, f"The form has more than {limits.max_parts} parts (max_form_parts)")


def _too_many(kind: str, limit: int) -> MultiPartException:
    return MultiPartException(f"Too many {kind}. Maximum number of {kind} is {limit}.")


def _field_too_large(limits: FormLimits) -> MultiPartException:
    return MultiPartException(f"Part exceeded maximum size of {_size(limits.max_field_size)}.")


def _file_too_large(name: str, limits: FormLimits) -> HTTPError:
    return HTTPError(413, f"File {name!r} exceeds {limits.max_file_size} bytes (max_file_size)")


async def multipart_form(
    options: str, chunks: AsyncIterator[bytes], limits: FormLimits
) -> FormData:
    """A multipart body's form, parsed as its ``chunks`` come; ``options``: what follows
    the media type in its Content-Type (the boundary, a charset)."""
    boundary, charset = _multipart_options(options)
    # Part headers are read as latin-1, which takes any byte: a name or filename is then
    # decoded as UTF-8 where it is that, else kept as latin-1 (Starlette's rule), so that a
    # client's non-UTF-8 filename is taken, not refused. Parts are counted by _Part, which
    # knows a file from a field.
    parser = multipart.PushMultipartParser(boundary, header_charset="latin-1")
    pairs: list[tuple[str, FormValue]] = []
    part = _Part(limits, charset)
    try:
        await _parse(chunks, parser, part, pairs)
    except BaseException:
        await FormData(pairs).close()
        part.discard()
        raise
    return FormData(pairs)


async def _parse(
    chunks: AsyncIterator[bytes], parser: Any, part: _Part, pairs: list[tuple[str, FormValue]]
) -> None:
    try:
        empty = True
        async for chunk in chunks:
            empty = empty and not chunk
            for event in parser.parse(chunk):
                part.take(event, pairs)
        if empty:  # no body at all: an empty form, as Starlette reads it (its values missing)
            return
        for event in parser.parse(b""):
            part.take(event, pairs)
    except multipart.MultipartError as exc:  # its limits on a part's headers among them
        # Starlette's words, and the parser's reason after them (Starlette gives none).
        raise MultiPartException(f"Invalid multipart data: {_reason(exc)}") from None


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

    __slots__ = ("_charset", "_chunks", "_counts", "_file", "_limits", "_received", "_segment")

    def __init__(self, limits: FormLimits, charset: str) -> None:
        self._limits = limits
        self._charset = charset  # the body's, for a field whose part names none
        self._counts = {"fields": 0, "files": 0}  # for form_limits' max_fields, max_files
        self._segment: Any = None
        self._chunks: list[bytes] = []
        self._file: UploadFile | None = None
        self._received = 0

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
                    raise _field_too_large(self._limits)
                self._chunks.append(event)

    def _start(self, segment: Any) -> None:
        if not segment.name:
            raise MultiPartException(
                'The Content-Disposition header field "name" must be provided.'
            )
        # Counted as it starts, files apart from fields (Starlette's order of refusals),
        # then against hasten's bound on both.
        kind = "files" if segment.filename is not None else "fields"
        count = self._counts[kind] = self._counts[kind] + 1
        limit: int = getattr(self._limits, f"max_{kind}")
        if count > limit:
            raise _too_many(kind, limit)
        if self._counts["fields"] + self._counts["files"] > self._limits.max_parts:
            raise _too_many_parts(self._limits)
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
            raise _field_too_large(self._limits)
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
        if self._file is not None:
            self._file.size = self._received
            self._file.file.seek(0)
            pairs.append((segment.name, self._file))
            self._file = None
            return
        data = b"".join(self._chunks)
        try:
            text = data.decode(segment.charset or self._charset)
        except (UnicodeError, LookupError):  # punycode's errors are UnicodeError's own
            text = data.decode("latin-1")  # any bytes, kept: Starlette's rule
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
    max_fields: int = DEFAULT_MAX_FIELDS
    max_files: int = DEFAULT_MAX_FILES

    def given(self, limits: Mapping[str, Any]) -> FormLimits:
        """These limits with FastAPI's ``form_limits`` keys over them. Given both
        ``max_fields`` and ``max_files``, a form may have as many parts as they add up to."""
        changes = {key: value for key, value in limits.items() if key != "max_part_size"}
        if "max_part_size" in limits:
            changes["max_field_size"] = limits["max_part_size"]
        if "max_fields" in changes and "max_files" in changes:
            changes["max_parts"] = max(self.max_parts, changes["max_fields"] + changes["max_files"])
        return dataclasses.replace(self, **changes) if changes else self
