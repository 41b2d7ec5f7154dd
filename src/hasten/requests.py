"""Request: what a handler sees of an HTTP request, whichever protocol carried it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

import msgspec

from .datastructures import Address, Headers, QueryParams
from .errors import HTTPError

if TYPE_CHECKING:
    from .app import App

__all__ = ["Request"]

_json_decode = msgspec.json.decode


class Request:
    """An HTTP request. Headers, query, cookies and body are parsed on first use, then cached.

    The protocol adapters subclass it to say where headers, the client address and the body
    come from; nothing else knows which protocol served the request.
    """

    __slots__ = (
        "_body",
        "_cookies",
        "_headers",
        "_query",
        "app",
        "method",
        "path",
        "path_params",
        "query_string",
    )

    # perf: the adapters set these slots directly instead of calling this (~0.15 us a request).
    def __init__(self, app: App, method: str, path: str, query_string: str) -> None:
        self.app = app
        self.method = method
        self.path = path
        self.query_string = query_string
        self.path_params: dict[str, Any] = {}
        self._headers: Headers | None = None
        self._query: QueryParams | None = None
        self._cookies: dict[str, str] | None = None
        self._body: bytes | None = None

    # The protocol adapters implement these four.
    def _raw_headers(self) -> list[tuple[str, str]]:
        raise NotImplementedError

    def _body_chunks(self) -> AsyncIterator[bytes]:
        raise NotImplementedError

    @property
    def client(self) -> Address | None:
        """The peer's address, when the server knows it."""
        raise NotImplementedError

    @property
    def scheme(self) -> str:
        """``http`` or ``https``."""
        raise NotImplementedError

    @property
    def headers(self) -> Headers:
        """The request headers, looked up case-insensitively."""
        if self._headers is None:
            self._headers = Headers(self._raw_headers())
        return self._headers

    @property
    def query(self) -> QueryParams:
        """The parsed query string."""
        if self._query is None:
            self._query = QueryParams.from_string(self.query_string)
        return self._query

    @property
    def cookies(self) -> dict[str, str]:
        """Cookies from the ``Cookie`` header."""
        if self._cookies is None:
            self._cookies = _parse_cookies(self.headers.get_all("cookie"))
        return self._cookies

    @property
    def content_type(self) -> str:
        """The media type of the body, without parameters, lower-cased ('' when absent)."""
        value = self.headers.get("content-type", "")
        return value.partition(";")[0].strip().lower()

    @property
    def url(self) -> str:
        """The full URL as the client asked for it."""
        host = self.headers.get("host", "")
        query = f"?{self.query_string}" if self.query_string else ""
        return f"{self.scheme}://{host}{self.path}{query}"

    async def body(self) -> bytes:
        """The whole body. Over ``max_body_size`` it raises a 413, before or while reading."""
        if self._body is None:
            # perf: a Content-Length body comes in one read where the adapter can, without
            # the async generators of stream() (the usual JSON body).
            whole = await self._read_whole() if self._allowed_length() is not None else None
            if whole is None:
                chunks = [chunk async for chunk in self._limited_chunks()]
                whole = chunks[0] if len(chunks) == 1 else b"".join(chunks)
            self._body = whole
        return self._body

    async def stream(self) -> AsyncIterator[bytes]:
        """The body in chunks as they arrive, held to ``max_body_size``."""
        if self._body is not None:
            yield self._body
            return
        if self._allowed_length() is not None:
            whole = await self._read_whole()
            if whole is not None:
                yield whole
                return
        async for chunk in self._limited_chunks():
            yield chunk

    async def _read_whole(self) -> bytes | None:
        """The adapters may read a Content-Length body in one call; None means they cannot."""
        return None

    async def _limited_chunks(self) -> AsyncIterator[bytes]:
        limit = self.app.settings.max_body_size
        received = 0
        async for chunk in self._body_chunks():
            received += len(chunk)
            if received > limit:
                raise HTTPError(413, f"Request body exceeds the limit of {limit} bytes")
            yield chunk

    def _allowed_length(self) -> int | None:
        """The Content-Length, if any; over ``max_body_size`` it is a 413 before any read."""
        declared = self._declared_length()
        limit = self.app.settings.max_body_size
        if declared is not None and declared > limit:
            raise HTTPError(
                413, f"Request body of {declared} bytes exceeds the limit of {limit} bytes"
            )
        return declared

    async def json(self) -> Any:
        """The body decoded as JSON; malformed JSON is a 400."""
        try:
            return _json_decode(await self.body())
        except msgspec.DecodeError as exc:
            raise HTTPError(400, f"Malformed JSON body: {exc}") from None

    def _declared_length(self) -> int | None:
        value = self.headers.get("content-length")
        if value is None:
            return None
        if not value.isdigit():
            raise HTTPError(400, f"Invalid Content-Length header: {value!r}")
        return int(value)

    def __repr__(self) -> str:
        return f"<Request {self.method} {self.path}>"


def _parse_cookies(headers: list[str]) -> dict[str, str]:
    cookies: dict[str, str] = {}
    for header in headers:
        for part in header.split(";"):
            name, sep, value = part.partition("=")
            name = name.strip()
            if sep and name:
                cookies[name] = value.strip().strip('"')
    return cookies
