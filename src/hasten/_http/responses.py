"""Response kinds, each sending itself through an Outbound transport: a whole body, or a
stream.

Files are in ``files.py``, Server-Sent Events in ``sse.py``; all send themselves the same way:
``await response.send(outbound, request)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import warnings
from collections.abc import (
    AsyncIterable,
    Awaitable,
    Callable,
    Coroutine,
    Iterable,
    Iterator,
    Mapping,
)
from concurrent.futures import Executor
from datetime import datetime
from email.utils import format_datetime
from http.cookies import SimpleCookie
from typing import TYPE_CHECKING, Any, ClassVar, Literal
from urllib.parse import quote

import anyio
import msgspec

from hasten._flow.transport import CLIENT_GONE, Outbound, StreamWriter
from hasten._http.background import BackgroundTask
from hasten._http.datastructures import MutableHeaders, check_header
from hasten._http.errors import one_status
from hasten._http.json_out import refuse_non_finite
from hasten._http.wire import BODY_STATUSES, HeaderList, allows_body, frame
from hasten._running.concurrency import iterate_in_threadpool
from hasten._running.event_loop import Sleep, until
from hasten._running.threads import submit

if TYPE_CHECKING:
    from hasten._http.requests import Request

__all__ = [
    "HTMLResponse",
    "JSONResponse",
    "ORJSONResponse",
    "PlainTextResponse",
    "RedirectResponse",
    "Response",
    "StreamingResponse",
    "UJSONResponse",
]


_content_type_lists: dict[str | None, HeaderList] = {None: []}


async def _sent_by_its_call(self: Response, outbound: Outbound, request: Request) -> None:
    await request.call_asgi(self, "", [], outbound)


def sender(response: Response) -> Callable[[Outbound, Request], Awaitable[None]]:
    """How hasten sends ``response`` over a connection: its ``send``; for a class that sends
    itself (its own ``__call__``), its nearest base's, which that ``__call__`` reaches
    through ``super().__call__``."""
    for cls in type(response).__mro__:
        send = cls.__dict__.get("send")
        if send is not None and send is not _sent_by_its_call:
            return send.__get__(response)  # type: ignore[no-any-return]
    raise AssertionError("Response defines send")


def content_type_headers(media_type: str | None) -> HeaderList:
    """The shared, never-mutated header list of a response that only has a content type."""
    # perf: built once per media type; the common response allocates no header list at all.
    cached = _content_type_lists.get(media_type)
    if cached is None:
        assert media_type is not None
        check_header("content-type", media_type)
        value = media_type
        if media_type.startswith("text/") and "charset" not in media_type:
            value = f"{media_type}; charset=utf-8"
        cached = _content_type_lists[media_type] = [("content-type", value)]
    return cached


class Response:
    """An HTTP response: ``Response("<p>hi</p>", 202, {"x-id": "1"}, "text/html")``.

    ``content`` is rendered to bytes by ``render`` (bytes as they are, a ``str`` as UTF-8,
    defaulting to ``text/plain``); a subclass sets ``media_type`` and ``render`` for its kind,
    as Starlette's do. ``status`` defaults to 200; ``status_code=`` (Starlette's name) is the
    same, and so is ``response.status_code``. ``background`` runs after the response is sent.
    """

    __slots__ = ("_headers", "_media_type", "background", "body", "status", "wire_headers")

    def __init__(
        self,
        content: Any = None,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
        background: BackgroundTask | None = None,
        *,
        status_code: int | None = None,
    ) -> None:
        if status_code is not None:
            status = one_status(status, status_code, 200)
        elif status is None:
            status = 200
        if media_type is None:
            media_type = declared_media_type(type(self))
            if media_type is None and isinstance(content, str):
                media_type = "text/plain"
        self.body = self.render(content)
        self.status = status
        self._media_type = media_type
        self.background = background
        self._headers: MutableHeaders | None = None
        # What goes on the wire, as (name, value) text: shared and never mutated until
        # ``headers`` copies it.
        self.wire_headers = content_type_headers(media_type)
        if headers:
            response_headers = self.headers
            for name, value in headers.items():
                response_headers[name] = value

    def render(self, content: Any) -> bytes:
        """``content`` as the body's bytes: None is empty, a ``str`` is sent as UTF-8."""
        if content is None:
            return b""
        if isinstance(content, bytes | bytearray | memoryview):
            return bytes(content)
        if isinstance(content, str):
            return content.encode()
        raise TypeError(
            f"{type(self).__name__} sends bytes or str, not {type(content).__name__}: "
            "use JSONResponse for other values"
        )

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A response class written for Starlette that sends itself (its own ASGI __call__,
        # as sse-starlette's EventSourceResponse) is sent by calling it, over the request's
        # ASGI connection; every other response is sent by hasten (perf: decided per class).
        if "__call__" in cls.__dict__ and "send" not in cls.__dict__:
            cls.send = _sent_by_its_call  # type: ignore[method-assign]

    @property
    def media_type(self) -> str | None:
        """The body's media type, as given (the content type header may add a charset)."""
        return self._media_type

    @media_type.setter
    def media_type(self, value: str | None) -> None:
        self._media_type = value

    def init_headers(self, headers: Mapping[str, str] | None = None) -> None:
        """The headers anew: the content type of ``media_type``, then ``headers`` (Starlette's
        step, called by response classes written for it)."""
        self._headers = None
        self.wire_headers = list(content_type_headers(self._media_type))
        for name, value in (headers or {}).items():
            self.headers.append(name, value)

    @property
    def status_code(self) -> int:
        """``status``, by Starlette's name."""
        return self.status

    @status_code.setter
    def status_code(self, value: int) -> None:
        self.status = value

    @property
    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        """The headers as Starlette's ``raw_headers`` has them, (name, value) in latin-1 bytes: a
        copy, read by code written for Starlette; change headers through ``headers``."""
        return [
            (name.encode("latin-1"), value.encode("latin-1")) for name, value in self.wire_headers
        ]

    @raw_headers.setter
    def raw_headers(self, value: list[tuple[bytes, bytes]]) -> None:
        self._headers = MutableHeaders([])
        self.wire_headers = self._headers._items
        for name, text in value:  # each checked as it is set
            self._headers.append(name.decode("latin-1"), text.decode("latin-1"))

    @property
    def headers(self) -> MutableHeaders:
        """The response headers, content type included; changes go out on the wire."""
        headers = self._headers
        if headers is None:
            # perf: ``MutableHeaders(list(self.wire_headers))`` without its __init__ frame.
            headers = self._headers = _new(MutableHeaders)
            headers._items = self.wire_headers = list(self.wire_headers)
            headers._lookup = None
        return headers

    def set_cookie(  # noqa: PLR0917 - Starlette's signature, positional arguments included
        self,
        key: str,
        value: str = "",
        max_age: int | None = None,
        expires: datetime | str | int | None = None,
        path: str | None = "/",
        domain: str | None = None,
        secure: bool = False,
        httponly: bool = False,
        samesite: Literal["lax", "strict", "none"] | None = "lax",
        partitioned: bool = False,
    ) -> None:
        """Add a ``Set-Cookie`` header, as Starlette's ``set_cookie``: ``expires`` is a date,
        or seconds from now."""
        if samesite is not None and samesite.lower() not in {"lax", "strict", "none"}:
            raise ValueError(f"samesite must be 'lax', 'strict' or 'none', not {samesite!r}")
        cookie: SimpleCookie = SimpleCookie()
        cookie[key] = value  # quoted by the standard library where the value needs it
        morsel = cookie[key]
        if max_age is not None:
            morsel["max-age"] = max_age
        if expires is not None:  # an int: the standard library makes it a date from now
            morsel["expires"] = (
                format_datetime(expires, usegmt=True) if isinstance(expires, datetime) else expires
            )
        for attribute, given in (("path", path), ("domain", domain), ("samesite", samesite)):
            if given is not None:
                morsel[attribute] = given
        if secure:
            morsel["secure"] = True
        if httponly:
            morsel["httponly"] = True
        header = morsel.OutputString()
        # http.cookies knows Partitioned only from Python 3.14 on.
        self.headers.append("set-cookie", f"{header}; Partitioned" if partitioned else header)

    def delete_cookie(  # noqa: PLR0917 - Starlette's signature
        self,
        key: str,
        path: str = "/",
        domain: str | None = None,
        secure: bool = False,
        httponly: bool = False,
        samesite: Literal["lax", "strict", "none"] | None = "lax",
        partitioned: bool = False,
    ) -> None:
        """Tell the client to forget cookie ``key`` (expired now, empty); a partitioned
        cookie (CHIPS) is forgotten by a ``Partitioned`` one."""
        self.set_cookie(
            key,
            "",
            0,
            0,
            path,
            domain,
            secure=secure,
            httponly=httponly,
            samesite=samesite,
            partitioned=partitioned,
        )

    async def send(self, outbound: Outbound, request: Request) -> None:
        """Send this response to ``request`` (a HEAD gets the headers only; a file reads its
        conditional and range headers, a stream watches for the client leaving)."""
        sent = self.send_whole(outbound, request)
        if sent is not None:
            await sent

    # How a response is sent over an ASGI scope: the ASGI adapter, which sits above this
    # layer, registers it when it is imported (with the App, always).
    sent_over_asgi: ClassVar[Callable[[Response, Any, Any, Any], Awaitable[None]] | None] = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Send this response over ASGI, then run its background task: a Response is an ASGI
        app, as Starlette's (``await response(scope, receive, send)`` in an ASGI
        middleware)."""
        sent_over_asgi = Response.sent_over_asgi
        if sent_over_asgi is None:  # hasten.app not imported: nothing could have served it
            raise RuntimeError("A Response is sent over ASGI once hasten's App is imported")
        await sent_over_asgi(self, scope, receive, send)

    def send_whole(self, outbound: Outbound, request: Request) -> Awaitable[None] | None:
        """``send`` of a whole body, as a plain call: what is left to await, if anything (the
        serve step calls it for every class that keeps this ``send``, see SEND_WHOLE)."""
        status = self.status
        head = request.method == "HEAD"
        if not head and status in BODY_STATUSES:
            headers = self.wire_headers
            if self._headers is None:
                # perf: the common response goes out as built; the server adds Content-Length.
                return outbound.response_bytes(status, headers, self.body)
            # perf: ``frame``'s usual case (headers changed, by a middleware say, without a
            # length of their own) without its calls; tests/http/test_wire.py holds them equal.
            for name, _ in headers:
                if name == "content-length":
                    break
            else:
                length = ("content-length", str(len(self.body)))
                return outbound.response_bytes(status, [*headers, length], self.body)
        body = self.body
        # A HEAD answered with an empty body by hand keeps the Content-Length it gave.
        headers = frame(status, self.wire_headers, len(body) if body or not head else None)
        if head or not allows_body(status):
            body = b""
        return outbound.response_bytes(status, headers, body)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.status} {self.media_type} {len(self.body)} bytes>"


# What the serve step looks for to call ``send_whole`` itself (``type(response).send``).
SEND_WHOLE = Response.send


def declared_media_type(cls: type[Response]) -> str | None:
    """The ``media_type`` a subclass declares as a class attribute (Starlette's way); the
    base class's is the property, which declares none."""
    declared = cls.media_type
    return declared if isinstance(declared, str) else None


_new = object.__new__


def build_response(body: bytes, status: int, media_type: str) -> Response:
    """``Response(body, status, None, media_type)`` for a handler's rendered result."""
    # perf: skips __init__'s argument handling: a third of a Response's cost.
    response: Response = _new(Response)
    response.body = body
    response.status = status
    response._media_type = media_type
    response.background = None
    response._headers = None
    # perf: the list is made once per media type; a dict lookup finds it after that.
    response.wire_headers = _content_type_lists.get(media_type) or content_type_headers(media_type)
    return response


_json_encode = msgspec.json.encode


class JSONResponse(Response):
    """``content`` encoded as JSON (msgspec: dicts, lists, Structs, dataclasses, ...)."""

    __slots__ = ()
    media_type = "application/json"  # Starlette's class attribute

    def render(self, content: Any) -> bytes:
        # Starlette's refuses a NaN or an infinity (json.dumps, allow_nan=False): so does this.
        return refuse_non_finite(_json_encode(content), content)


class ORJSONResponse(JSONResponse):
    """``content`` encoded as JSON by orjson (FastAPI's; orjson must be installed).
    Deprecated, as in FastAPI: a handler's result is encoded by msgspec, faster."""

    __slots__ = ()

    def render(self, content: Any) -> bytes:
        _deprecated_encoder("ORJSONResponse")
        import orjson

        return orjson.dumps(content, option=orjson.OPT_NON_STR_KEYS | orjson.OPT_SERIALIZE_NUMPY)


class UJSONResponse(JSONResponse):
    """``content`` encoded as JSON by ujson (FastAPI's; ujson must be installed).
    Deprecated, as in FastAPI: a handler's result is encoded by msgspec, faster."""

    __slots__ = ()

    def render(self, content: Any) -> bytes:
        _deprecated_encoder("UJSONResponse")
        import ujson

        return ujson.dumps(content, ensure_ascii=False).encode()


def _deprecated_encoder(name: str) -> None:
    """FastAPI 0.165's warning, made when such a response is (``render`` is called by
    ``__init__``, whose caller is named)."""
    from hasten._http.errors import FastAPIDeprecationWarning

    warnings.warn(
        f"{name} is deprecated: a handler's result, given a return type or a response model, "
        "is encoded to JSON bytes by msgspec, which is faster and needs no response class "
        "(JSONResponse, or none at all)",
        FastAPIDeprecationWarning,
        stacklevel=4,
    )


class PlainTextResponse(Response):
    """Text sent as ``text/plain; charset=utf-8``."""

    __slots__ = ()
    media_type = "text/plain"


class HTMLResponse(Response):
    """HTML sent as ``text/html; charset=utf-8``."""

    __slots__ = ()
    media_type = "text/html"


class RedirectResponse(Response):
    """A redirect to ``url`` (307 by default, which keeps the method and body)."""

    __slots__ = ()

    def __init__(
        self,
        url: str,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        background: BackgroundTask | None = None,
        *,
        status_code: int | None = None,
    ) -> None:
        status = one_status(status, status_code, 307)
        # Starlette's quoting: what is not safe in a URL is percent-encoded, nothing else.
        location = quote(str(url), safe=":/%#?=@[]!$&'()*+,;")
        super().__init__(b"", status, {**(headers or {}), "location": location}, None, background)


Chunks = AsyncIterable[bytes | str] | Iterable[bytes | str]


class StreamingResponse(Response):
    """A body sent as ``content`` yields it, chunk by chunk (bytes, or str sent as UTF-8).

    ``content`` is an async iterable, or a sync one (a plain generator) that then runs on the
    app's thread pool, never on the event loop. Each chunk is handed to the server before the
    next is asked for; when the client goes away the stream stops and ``content`` is closed
    (a generator's ``finally`` runs). Its length is not known in advance: the server frames it
    (chunked on HTTP/1.1).
    """

    __slots__ = ("content",)

    def __init__(
        self,
        content: Chunks,
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        media_type: str | None = None,
        background: BackgroundTask | None = None,
        *,
        status_code: int | None = None,
    ) -> None:
        super().__init__(b"", status, headers, media_type, background, status_code=status_code)
        self.content = content

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.status} {self.media_type}>"

    @property
    def body_iterator(self) -> AsyncIterable[Any]:
        """The content as an async iterable, a sync one read on the thread pool (Starlette's
        name: a middleware may read it, or set another in its place)."""
        content = self.content
        return content if isinstance(content, AsyncIterable) else iterate_in_threadpool(content)

    @body_iterator.setter
    def body_iterator(self, content: Chunks) -> None:
        self.content = content

    async def send(self, outbound: Outbound, request: Request) -> None:
        status = self.status
        writer = request._paced(
            outbound.response_stream(status, frame(status, self.wire_headers, None))
        )
        content = self.content
        chunks = (
            content
            if isinstance(content, AsyncIterable)
            else InThreads(content, request.context.threads)
        )
        try:
            if request.method == "HEAD" or not allows_body(status):
                return
            step = asyncio.sleep if request.context.on_asyncio else anyio.sleep
            await until_disconnect(self.pump(chunks, writer, step), request)
        finally:
            await close_chunks(chunks)

    async def pump(
        self, chunks: AsyncIterable[Any], writer: StreamWriter, step: Sleep = asyncio.sleep
    ) -> None:
        """Send every chunk: what runs until the content ends or the client leaves (``step``:
        the running loop's sleep)."""
        try:
            async for chunk in chunks:
                await writer.send_bytes(chunk.encode() if isinstance(chunk, str) else chunk)
                # A source that never awaits, sent to a writer that never waits, would hold
                # the loop (nothing else runs, not even a cancellation): one step per chunk.
                await step(0)
        except CLIENT_GONE:
            return  # the client left between two chunks: the stream ends here


async def until_disconnect(work: Coroutine[Any, Any, None], request: Request) -> None:
    """Run ``work`` until it ends or the client of ``request`` goes away, whichever comes
    first; after it, nothing of ``work`` is left running. Its own exceptions propagate."""
    if not request.context.on_asyncio:  # another event loop than asyncio's (trio)
        await until(work, request._channel.client_disconnect)
        return
    try:
        task = asyncio.ensure_future(work)
    except BaseException:  # no asyncio loop runs (a scope made by hand, on trio)
        work.close()  # never to run: closed, not left to warn when collected
        raise
    gone = request.disconnected()
    try:
        await asyncio.wait((task, gone), return_when=asyncio.FIRST_COMPLETED)
    finally:
        gone.cancel()
        task.cancel()  # nothing when it is done
        # Cancelled: the client left, or the serve step itself was cancelled.
        with contextlib.suppress(asyncio.CancelledError):
            await task


_DONE = object()


class InThreads:
    """A sync iterable iterated on a thread pool, one ``next()`` per chunk, as an async one.

    Closing it closes the iterable on the pool too; a ``next()`` still running when it is
    closed (it cannot be interrupted) closes the generator as soon as it returns.
    """

    __slots__ = ("_closing", "_iterator", "_lock", "_running", "_source", "_threads")

    def __init__(self, source: Iterable[Any], pool: Executor | None) -> None:
        self._source = source
        self._iterator: Iterator[Any] | None = None
        self._threads = pool
        self._lock = threading.Lock()
        self._running = self._closing = False

    def __aiter__(self) -> InThreads:
        return self

    async def __anext__(self) -> Any:
        if self._iterator is None:
            self._iterator = iter(self._source)
        chunk = await submit(self._threads, self._step, self._iterator)
        if chunk is _DONE:
            raise StopAsyncIteration
        return chunk

    def _step(self, iterator: Iterator[Any]) -> Any:
        with self._lock:
            self._running = True
        try:
            return next(iterator, _DONE)
        finally:
            with self._lock:
                self._running = False
                close_now = self._closing
            if close_now:
                self._close()

    async def aclose(self) -> None:
        with self._lock:
            self._closing = True
            running = self._running
        if not running:
            await submit(self._threads, self._close)

    def _close(self) -> None:
        close = getattr(self._source, "close", None)
        if close is not None:
            close()


async def close_chunks(content: Any) -> None:
    """Close a generator whether or not it ran, so its cleanup is never left pending."""
    aclose = getattr(content, "aclose", None)
    if aclose is not None:
        await aclose()
        return
    close = getattr(content, "close", None)
    if close is not None:
        close()
