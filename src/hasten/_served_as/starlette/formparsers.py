"""``starlette.formparsers``, served by hasten: Starlette's two parsers by their signatures,
over hasten's own (``hasten._http.forms``, which ``request.form()`` uses), and the exception
a malformed form or one over a limit raises."""

from __future__ import annotations

import enum
import sys
import warnings
from collections.abc import AsyncIterator
from typing import Any, ClassVar

from hasten._http.datastructures import Headers
from hasten._http.forms import (
    DEFAULT_MAX_FIELDS,
    DEFAULT_MAX_FILES,
    FormData,
    FormLimits,
    MultiPartException,
    multipart_form,
    urlencoded_form,
)
from hasten.errors import StarletteDeprecationWarning

__all__ = ["FormMessage", "FormParser", "MultiPartException", "MultiPartParser"]

MAX_PART_SIZE = 1024 * 1024  # a field's bytes, as Starlette bounds them


class _DeprecatedOnUse(enum.EnumMeta):
    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        warnings.warn(
            "`FormMessage` is deprecated and will be removed in a future version.",
            StarletteDeprecationWarning,
            stacklevel=2,
        )
        return super().__call__(*args, **kwargs)


class FormMessage(enum.Enum, metaclass=_DeprecatedOnUse):
    """The events of Starlette's old parser callbacks: deprecated there, unused here."""

    FIELD_START = 1
    FIELD_NAME = 2
    FIELD_DATA = 3
    FIELD_END = 4
    END = 5


def _bound(limit: float) -> int:
    return sys.maxsize if limit == float("inf") else int(limit)


def _limits(max_fields: float, max_files: float, max_part_size: int, spool: int) -> FormLimits:
    # Starlette bounds neither the parts all told nor a file's size: its parsers do not.
    return FormLimits(
        max_parts=sys.maxsize,
        max_field_size=max_part_size,
        max_file_size=sys.maxsize,
        spool_size=spool,
        max_fields=_bound(max_fields),
        max_files=_bound(max_files),
    )


class FormParser:
    """An urlencoded body's form, from its ``stream`` of chunks."""

    def __init__(
        self,
        headers: Headers,
        stream: AsyncIterator[bytes],
        *,
        max_fields: float = DEFAULT_MAX_FIELDS,
        max_part_size: int = MAX_PART_SIZE,
    ) -> None:
        self.headers = headers
        self.stream = stream
        self.max_fields = max_fields
        self.max_part_size = max_part_size

    async def parse(self) -> FormData:
        body = b"".join([chunk async for chunk in self.stream])
        limits = _limits(self.max_fields, DEFAULT_MAX_FILES, self.max_part_size, 0)
        return urlencoded_form(body, limits)


class MultiPartParser:
    """A multipart body's form, parsed as its ``stream`` of chunks comes, by the boundary and
    charset its ``headers``' Content-Type gives."""

    spool_max_size: ClassVar[int] = 1024 * 1024
    """An uploaded file's bytes kept in memory; past them it moves to a temporary file."""

    def __init__(
        self,
        headers: Headers,
        stream: AsyncIterator[bytes],
        *,
        max_files: float = DEFAULT_MAX_FILES,
        max_fields: float = DEFAULT_MAX_FIELDS,
        max_part_size: int = MAX_PART_SIZE,
    ) -> None:
        self.headers = headers
        self.stream = stream
        self.max_files = max_files
        self.max_fields = max_fields
        self.max_part_size = max_part_size

    async def parse(self) -> FormData:
        _, _, options = self.headers.get("content-type", "").partition(";")
        limits = _limits(self.max_fields, self.max_files, self.max_part_size, self.spool_max_size)
        return await multipart_form(options, self.stream, limits)
