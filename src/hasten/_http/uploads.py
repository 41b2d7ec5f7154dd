"""UploadFile: a file of a multipart request, held in memory while small, on disk past that."""

from __future__ import annotations

import tempfile
from typing import IO, Any

from hasten._http.datastructures import Headers
from hasten._running.threads import submit

__all__ = ["UploadFile"]


class UploadFile:
    """A file sent in a multipart form, as Starlette's: ``await file.read()``, ``.filename``,
    ``.content_type``, ``.size``, ``.headers``, ``await file.seek(0)``, ``await file.close()``.

    Its bytes are in ``file``, a ``SpooledTemporaryFile`` that moves to disk past the app's
    ``form_spool_size``; once on disk, reads and writes run on a thread, off the event loop.
    """

    __slots__ = ("file", "filename", "headers", "size")

    def __init__(
        self,
        file: IO[bytes],
        *,
        size: int | None = None,
        filename: str | None = None,
        headers: Headers | None = None,
    ) -> None:
        self.file = file
        self.size = size
        self.filename = filename
        self.headers = headers if headers is not None else Headers([])

    @property
    def content_type(self) -> str | None:
        return self.headers.get("content-type")

    @property
    def _in_memory(self) -> bool:
        rolled: bool = getattr(self.file, "_rolled", True)
        return not rolled

    async def read(self, size: int = -1) -> bytes:
        if self._in_memory:
            return self.file.read(size)
        data: bytes = await submit(None, self.file.read, size)
        return data

    async def write(self, data: bytes) -> None:
        if self.size is not None:
            self.size += len(data)
        if self._in_memory:
            self.file.write(data)
        else:
            await submit(None, self.file.write, data)

    async def seek(self, offset: int) -> None:
        if self._in_memory:
            self.file.seek(offset)
        else:
            await submit(None, self.file.seek, offset)

    async def close(self) -> None:
        if self._in_memory:
            self.file.close()
        else:
            await submit(None, self.file.close)

    def __repr__(self) -> str:
        return (
            f"UploadFile(filename={self.filename!r}, size={self.size!r}, headers={self.headers!r})"
        )

    # As FastAPI's: a field of a pydantic model may be an UploadFile (a form model's file).
    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: Any) -> Any:
        from pydantic_core import core_schema

        return core_schema.with_info_plain_validator_function(_upload_file)

    @classmethod
    def __get_pydantic_json_schema__(cls, schema: Any, handler: Any) -> dict[str, Any]:
        return {"type": "string", "contentMediaType": "application/octet-stream"}


def _upload_file(value: Any, _: Any) -> UploadFile:
    if not isinstance(value, UploadFile):
        raise ValueError(f"Expected UploadFile, received: {type(value)}")
    return value


def spooled_file(spool_size: int) -> tempfile.SpooledTemporaryFile[bytes]:
    """A file that stays in memory up to ``spool_size`` bytes, then moves to disk."""
    return tempfile.SpooledTemporaryFile(max_size=spool_size, mode="w+b")
