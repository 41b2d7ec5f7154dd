"""Request: what a handler sees of an HTTP request, whichever protocol carried it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Awaitable
from typing import TYPE_CHECKING, Any

import msgspec

from .connection import Connection, PathParams
from .decoding import decode_json
from .errors import HTTPError

if TYPE_CHECKING:
    from .app import App
    from .forms import FormData

__all__ = ["Request"]

_json_decode = msgspec.json.decode


class Request(Connection):
    """An HTTP request. The body is read once: ``body()`` keeps it, ``stream()`` does not.

    The protocol adapters subclass it to say where headers, the client address and the body
    come from; nothing else knows which protocol served the request.
    """

    __slots__ = ("_body", "_body_limit", "_form", "_streamed", "method")

    def __init__(
        self,
        app: App,
        method: str,
        path: str,
        query_string: str,
        path_params: PathParams,
        *,
        body_limit: int,
    ) -> None:
        super().__init__(app, path, query_string, path_params)
        self.method = method
        self._body_limit = body_limit
        self._body: bytes | None = None
        self._streamed = False
        self._form: FormData | None = None

    # The protocol adapters implement these.
    def _read_whole(self) -> Awaitable[bytes] | None:
        """The reading of a Content-Length body in one call, where the server allows it;
        None: read it in chunks."""
        return None

    def _body_chunks(self) -> AsyncIterable[bytes]:
        raise NotImplementedError

    def _client_disconnect(self) -> Awaitable[None]:
        """Done when the client has gone away."""
        raise NotImplementedError

    async def is_disconnected(self) -> bool:
        """Whether the client has gone away, so that a long handler can stop early.

        It looks without waiting; a departure the server has only just seen may show on the
        next call.
        """
        watch = self.disconnected()
        if not watch.done():
            await asyncio.sleep(0)  # let a departure already known reach the loop
        if watch.done():
            return True
        watch.cancel()
        return False

    def disconnected(self) -> asyncio.Future[None]:
        """A future done when the client has gone away; cancel it when no longer needed."""
        return asyncio.ensure_future(self._client_disconnect())

    @property
    def content_type(self) -> str:
        """The media type of the body, without parameters, lower-cased ('' when absent)."""
        value = self._header("content-type")
        return value.partition(";")[0].strip().lower() if value else ""

    async def body(self) -> bytes:
        """The whole body. Over ``max_body_size`` it raises a 413, before or while reading."""
        if self._body is None:
            self._start_reading()
            # perf: a Content-Length body comes in one read where the adapter can, without
            # the async generators of stream() (the usual JSON body).
            reading = self._read_whole() if self._allowed_length() is not None else None
            whole = await reading if reading is not None else None
            if whole is None:
                chunks = [chunk async for chunk in self._limited_chunks()]
                whole = chunks[0] if len(chunks) == 1 else b"".join(chunks)
            self._body = whole
        return self._body

    async def stream(self) -> AsyncIterator[bytes]:
        """The body in chunks as they arrive, held to ``max_body_size``; not kept."""
        if self._body is not None:
            yield self._body
            return
        self._start_reading()
        reading = self._read_whole() if self._allowed_length() is not None else None
        if reading is not None:
            yield await reading
            return
        async for chunk in self._limited_chunks():
            yield chunk

    async def _chunks(self) -> AsyncIterator[bytes]:
        """The body in chunks as the server hands them over, never in one read (a form
        streams through its parser), held to ``max_body_size``; not kept."""
        if self._body is not None:
            yield self._body
            return
        self._start_reading()
        self._allowed_length()
        async for chunk in self._limited_chunks():
            yield chunk

    async def form(self) -> FormData:
        """The body as a form (urlencoded or multipart), parsed once within the app's form
        limits; files are ``UploadFile``s."""
        if self._form is None:
            from .forms import read_form

            form = self._form = await read_form(self, self.app.settings)
            if form.has_files:  # closed once the response is sent
                from .dependencies import Cleanup

                if self._cleanup is None:
                    self._cleanup = Cleanup(None)
                self._cleanup.form = form
        return self._form

    async def json(self) -> Any:
        """The body decoded as JSON; malformed JSON, or JSON nested past ``max_json_depth``,
        is a 400."""
        body = await self.body()
        try:
            return decode_json(_json_decode, body, self.app.settings.max_json_depth)
        except msgspec.ValidationError as exc:  # an integer past msgspec's range
            raise HTTPError(400, f"Malformed JSON body: {exc}") from None

    def _start_reading(self) -> None:
        # The server hands a body over once: a second read would get nothing, or fail.
        if self._streamed:
            raise RuntimeError(
                "The request body was already read by request.stream(), which does not keep "
                "it: read it with request.body() instead, or only once with stream()."
            )
        self._streamed = True

    async def _limited_chunks(self) -> AsyncIterator[bytes]:
        limit = self._body_limit
        received = 0
        async for chunk in self._body_chunks():
            received += len(chunk)
            if received > limit:
                raise HTTPError(413, f"Request body exceeds the limit of {limit} bytes")
            yield chunk

    def _allowed_length(self) -> int | None:
        """The Content-Length, if any; over ``max_body_size`` it is a 413 before any read."""
        value = self._header("content-length")
        if value is None:
            return None
        if not (value.isascii() and value.isdigit()):
            raise HTTPError(400, f"Invalid Content-Length header: {value!r}")
        declared = int(value)
        if declared > self._body_limit:
            raise HTTPError(
                413,
                f"Request body of {declared} bytes exceeds the limit of {self._body_limit} bytes",
            )
        return declared

    def __repr__(self) -> str:
        return f"<Request {self.method} {self.path}>"
