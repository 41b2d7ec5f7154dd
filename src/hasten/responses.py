"""Response and its kinds: bytes or text with a status, headers and a media type."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

from .datastructures import MutableHeaders

__all__ = ["JSONResponse", "RedirectResponse", "Response"]

_HeaderList = list[tuple[str, str]]
_content_type_lists: dict[str | None, _HeaderList] = {None: []}


def _content_type_list(media_type: str | None) -> _HeaderList:
    """The shared, never-mutated header list for a response that only has a content type."""
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
        # What the adapters send: shared and never mutated until ``headers`` copies it.
        self.raw_headers = _content_type_list(media_type)
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

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.status} {self.media_type} {len(self.body)} bytes>"


_json_encode = msgspec.json.encode
_new = object.__new__


def build_response(body: bytes, status: int, media_type: str) -> Response:
    """``Response(body, status, None, media_type)`` for a handler's rendered result."""
    # perf: skips __init__'s argument handling: a third of a Response's cost.
    response: Response = _new(Response)
    response.body = body
    response.status = status
    response.media_type = media_type
    response._headers = None
    response.raw_headers = _content_type_list(media_type)
    return response


class JSONResponse(Response):
    """``content`` encoded as JSON (msgspec: dicts, lists, Structs, dataclasses, ...)."""

    __slots__ = ()

    def __init__(
        self, content: Any, status: int = 200, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(_json_encode(content), status, headers, "application/json")


class RedirectResponse(Response):
    """A redirect to ``location`` (307 by default, which keeps the method and body)."""

    __slots__ = ()

    def __init__(
        self, location: str, status: int = 307, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(b"", status, {**(headers or {}), "location": location})
