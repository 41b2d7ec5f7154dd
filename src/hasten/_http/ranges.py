"""Byte ranges of a file (RFC 9110 §14): the ``Range`` header read as Starlette reads it, and
several ranges sent as one ``multipart/byteranges`` body.

What a FastAPI app answers is kept: a header without ``=``, or that names no range or a
range ending before it starts, is a 400 with Starlette's words; ranges that all start past
the file are a 416; positions that are not numbers are ignored. Where RFC 9110 says more, it
is followed: a unit other than bytes is ignored (§14.2: a server MUST), and so is a range
past the file among others that are not (§14.1.1). More than ``MAX_RANGES`` ranges, or
several that cover more than half the file, get the whole file: a client cannot make hasten
read most of a large file through Python where the server would send it itself. Overlapping
ranges are merged, so a body is never more than the file and one part header per range.
"""

from __future__ import annotations

from collections.abc import Iterator
from secrets import token_hex

__all__ = [
    "MAX_RANGES",
    "ByteRanges",
    "MalformedRange",
    "Spans",
    "Unsatisfiable",
    "requested_spans",
]

MAX_RANGES = 100

Span = tuple[int, int]  # [start, end) in bytes
Spans = list[Span]


class MalformedRange(ValueError):
    """A Range header that cannot be read: a 400 with this text."""


class Unsatisfiable(ValueError):
    """A range that starts past the end of the file: a 416."""


def requested_spans(header: str, size: int, max_ranges: int = MAX_RANGES) -> Spans:
    """The spans ``header`` asks of a file of ``size`` bytes, sorted and merged when there
    are several; empty when the Range is to be ignored (then the whole file is sent)."""
    unit, equals, spec = header.partition("=")
    if not equals:
        raise MalformedRange("Malformed range header.")
    if unit.strip().lower() != "bytes" or spec.count(",") >= max_ranges:
        return []
    spans = [span for part in spec.split(",") if (span := _span(part, size)) is not None]
    if not spans:
        raise MalformedRange("Range header: range must be requested")
    spans = [span for span in spans if span[0] < size]
    if not spans:
        raise Unsatisfiable
    if any(start >= end for start, end in spans):
        raise MalformedRange("Range header: start must be less than end")
    if len(spans) == 1:
        return spans
    spans.sort()
    merged = [spans[0]]
    for start, end in spans[1:]:
        last_start, last_end = merged[-1]
        if start <= last_end:
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    if len(merged) > 1 and sum(end - start for start, end in merged) > size // 2:
        return []
    return merged


def _span(part: str, size: int) -> Span | None:
    """One ``first-last`` of the header as a span; None for what is ignored (no dash, no
    number, a position that is not ASCII digits)."""
    first, dash, last = part.partition("-")
    first, last = first.strip(), last.strip()
    if not dash or not (first or last) or not _is_position(first) or not _is_position(last):
        return None
    if not first:
        return max(size - _position(last), 0), size
    end = _position(last) + 1 if last else size
    return _position(first), min(end, size)


# A byte position past any file: what a position of more than 18 digits stands for, so that
# a 5,000-digit one costs no int() (which refuses strings past 4,300 digits).
_PAST_ANY_FILE = 10**18


def _is_position(text: str) -> bool:
    """Empty, or ASCII digits only (``str.isdigit`` takes other scripts' digits too)."""
    return text == "" or (text.isascii() and text.isdigit())


def _position(digits: str) -> int:
    significant = digits.lstrip("0")
    return int(significant or "0") if len(significant) <= 18 else _PAST_ANY_FILE


class ByteRanges:
    """Several spans of a file as one ``multipart/byteranges`` body: its content type, its
    length (known before a byte is read) and its chunks, read ``chunk_size`` at a time."""

    __slots__ = ("boundary", "parts", "path")

    def __init__(self, path: str, spans: Spans, size: int, content_type: str) -> None:
        self.path = path
        # 13 random bytes: the entropy of the boundaries browsers choose.
        self.boundary = token_hex(13)
        self.parts = [
            (
                f"--{self.boundary}\r\nContent-Type: {content_type}\r\n"
                f"Content-Range: bytes {start}-{end - 1}/{size}\r\n\r\n".encode("latin-1"),
                start,
                end,
            )
            for start, end in spans
        ]

    @property
    def media_type(self) -> str:
        return f"multipart/byteranges; boundary={self.boundary}"

    @property
    def length(self) -> int:
        # Each part: its head, its bytes and a CRLF; then the closing ``--boundary--``.
        parts = sum(len(head) + end - start + 2 for head, start, end in self.parts)
        return parts + len(self.boundary) + 4

    def chunks(self, chunk_size: int) -> Iterator[bytes]:
        """The body, part by part (a generator: run it on a thread, it reads the file)."""
        with open(self.path, "rb") as file:
            for head, start, end in self.parts:
                yield head
                file.seek(start)
                left = end - start
                while left > 0:
                    chunk = file.read(min(chunk_size, left))
                    if not chunk:
                        raise RuntimeError(f"File at path {self.path} is shorter than expected.")
                    left -= len(chunk)
                    yield chunk
                yield b"\r\n"
        yield f"--{self.boundary}--".encode("latin-1")
