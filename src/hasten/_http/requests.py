"""Request: what a handler sees of an HTTP request, whichever protocol carried it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Coroutine, Generator
from time import monotonic
from typing import TYPE_CHECKING, Any

import anyio
import msgspec

from hasten._flow.body_wait import Cancellable, Unswept
from hasten._http.connection import Connection
from hasten._http.errors import HTTPError
from hasten._http.json_in import decode_json
from hasten._http.scopes import ConnectionScope, Receive

if TYPE_CHECKING:
    from hasten._flow.context import ServeContext
    from hasten._flow.transport import Inbound, StreamWriter
    from hasten._http.forms import FormData

__all__ = ["ClientDisconnected", "FormReading", "HTTPConnection", "Request"]

_json_decode = msgspec.json.decode
# Starlette's name for what a request and a WebSocket share (a dependency that takes either).
HTTPConnection = Connection


class ClientDisconnected(HTTPError):
    """The client went away while its body was being read."""

    def __init__(self) -> None:
        super().__init__(400, "Client disconnected while sending the body")


def _incomplete(received: int, declared: int) -> HTTPError:
    return HTTPError(400, f"Request body incomplete: {received} of its {declared} bytes arrived")


def _too_large(limit: int) -> HTTPError:
    return HTTPError(413, f"Request body exceeds the limit of {limit} bytes")


class Request(Connection):
    """An HTTP request. The body is read once: ``body()`` keeps it, ``stream()`` does not.

    Its body comes through the ``Inbound`` the adapter gives it (Granian's protocol object,
    or the ASGI adapter's channel over ``receive``). The adapters subclass it to say where the
    method, headers and client address are in their server's scope.
    """

    _channel: Inbound
    # ``_body``, the whole body once read, is set only then, as Starlette's: a subclass may
    # test ``hasattr(self, "_body")`` or set it to stand for the body.
    _body: bytes
    _streamed = False
    _form: FormData | None = None
    # What the server raises when the client has gone mid-body (the adapters say).
    _gone: tuple[type[BaseException], ...] = ()
    # Whether the server may hand over both a Content-Length and a Transfer-Encoding.
    _may_have_both_lengths = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # A protocol adapter's subclass says where the request's parts are (_query_string);
        # a subclass that says neither that nor how it is made is an app's, made as
        # Starlette's: ``GzipRequest(request.scope, request.receive)``.
        if cls._query_string is Connection._query_string and "__init__" not in cls.__dict__:
            cls.__new__ = _view_of  # type: ignore[assignment]  # set for app subclasses only
            cls.__init__ = _made_as_view  # type: ignore[assignment]

    @property
    def receive(self) -> Receive:
        """The body as ASGI ``receive`` hands it over (Starlette's ``request.receive``)."""
        return Receive(self)

    def _chunks_from_server(self) -> AsyncIterator[bytes]:
        """The body's chunks as the server hands them over."""
        return aiter(self._channel)

    async def is_disconnected(self) -> bool:
        """Whether the client has gone away, so that a long handler can stop early.

        It looks without waiting; a departure the server has only just seen may show on the
        next call.
        """
        if not self.context.on_asyncio:
            return await _gone_already(self._channel)
        watch = self.disconnected()
        # A departure already known reaches the watch in two steps of the loop: the listener
        # takes the server's message, then the watch (shielding the listener) is told.
        for _ in range(2):
            if watch.done():
                return True
            await asyncio.sleep(0)
        if watch.done():
            return True
        watch.cancel()
        return False

    def disconnected(self) -> asyncio.Future[None]:
        """A future done when the client has gone away; cancel it when no longer needed
        (on asyncio's loop: see ``watch_disconnect`` for any)."""
        return asyncio.ensure_future(self._channel.client_disconnect())

    def _cut_short(self) -> None:
        """A stop's cut ends this request (hasten._serve.stopping): a stream it began is
        left unended where the protocol lets the server drop the connection (ASGI), so that
        the client sees the body cut short. (Granian's RSGI ends it as if it were whole.)"""

    def _paced(self, writer: StreamWriter) -> StreamWriter:
        """``writer``, held back while its client lags: an adapter whose server does not
        push back (Granian's RSGI) wraps it; ASGI servers' ``send`` waits by itself."""
        return writer

    @property
    def content_type(self) -> str:
        """The media type of the body, without parameters, lower-cased ('' when absent)."""
        value = self._header("content-type")
        return value.partition(";")[0].strip().lower() if value else ""

    async def body(self) -> bytes:
        """The whole body. Over ``max_body_size`` it raises a 413, before or while reading;
        a body that does not arrive whole is a 400, one that takes past ``body_timeout`` a
        408."""
        body: bytes | None = getattr(self, "_body", None)
        if body is None:
            if self._streamed:  # perf: ``_start_reading`` written out, a frame less
                raise _read_already()
            self._streamed = True
            declared = self._allowed_length()
            if declared is not None:
                # perf: a Content-Length body comes in one read (a future, which the body
                # timeout may cancel), without the async generators of stream() nor a
                # coroutine of its own: the usual JSON body.
                reading = self._channel()
                wait = self.context.body_wait
                wait.enter(reading, monotonic())
                try:
                    body = await reading
                except asyncio.CancelledError:
                    timeout = wait.timed_out(reading)
                    if timeout is None:
                        raise
                    raise timeout from None
                except self._gone:
                    raise ClientDisconnected from None
                finally:
                    wait.leave(reading)
                if len(body) != declared:
                    limit = self.context.body_limit
                    if len(body) > limit:  # more than its Content-Length said, and too much
                        raise _too_large(limit)
                    raise _incomplete(len(body), declared)
                self._body = body
            else:
                chunks = [chunk async for chunk in self._limited_chunks(None)]
                body = self._body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        return body

    async def stream(self) -> AsyncIterator[bytes]:
        """The body in chunks as the server hands them over, held to ``max_body_size``; not
        kept (a form streams through its parser this way)."""
        body: bytes | None = getattr(self, "_body", None)
        if body is not None:
            yield body
            return
        self._start_reading()
        async for chunk in self._limited_chunks(self._allowed_length()):
            yield chunk

    def form(
        self,
        *,
        max_files: int | None = None,
        max_fields: int | None = None,
        max_part_size: int | None = None,
    ) -> FormReading:
        """The body as a form (urlencoded or multipart), parsed once within the app's form
        limits (those given here over them, as Starlette's keywords); files are
        ``UploadFile``s, closed once the response is sent. Awaited (``await
        request.form()``) or entered (``async with request.form() as form``, which closes the
        files at its end), as Starlette's."""
        given = {"max_files": max_files, "max_fields": max_fields, "max_part_size": max_part_size}
        limits = {key: value for key, value in given.items() if value is not None}
        return FormReading(self._read_form(limits))

    async def _read_form(self, limits: dict[str, int]) -> FormData:
        if self._form is None:
            from hasten._http.forms import read_form

            form_limits = self.context.form.given(limits) if limits else self.context.form
            form = self._form = await read_form(self, form_limits)
            if form.has_files:
                from hasten._http.connection import cleanup_of

                cleanup_of(self).form = form
        return self._form

    async def send_push_promise(self, path: str) -> None:
        """Push ``path`` to the client where the server offers it (an ASGI server's
        ``http.response.push``); RSGI offers no push: nothing."""

    async def send_early_hints(self, link: str, /, *links: str) -> None:
        """A 103 Early Hints response with these ``Link`` values where the server offers it
        (an ASGI server's ``http.response.early_hint``); RSGI offers none: nothing."""

    async def close(self) -> None:
        """Close the files of the form read, now (Starlette's; they are closed once the
        response is sent in any case)."""
        if self._form is not None:
            await self._form.close()

    async def json(self) -> Any:
        """The body decoded as JSON; malformed JSON, or JSON nested past ``max_json_depth``,
        is a 400."""
        body = await self.body()
        try:
            return decode_json(_json_decode, body, self.context)
        except msgspec.ValidationError as exc:  # an integer past msgspec's range
            raise HTTPError(400, f"Malformed JSON body: {exc}") from None

    def enter_route(self, context: ServeContext) -> None:
        """Serve the rest of this request within a route's own limits (``context``): a body
        a middleware read before the route was known is held to them too, as FastAPI holds
        it (a route's smaller ``max_body_size`` let it through)."""
        self.context = context
        body: bytes | None = getattr(self, "_body", None)
        if body is not None and len(body) > context.body_limit:
            raise _too_large(context.body_limit)

    def _start_reading(self) -> None:
        # The server hands a body over once: a second read would get nothing, or fail.
        if self._streamed:
            raise _read_already()
        self._streamed = True

    async def _limited_chunks(self, declared: int | None) -> AsyncIterator[bytes]:
        limit = self.context.body_limit
        received = 0
        wait = self.context.body_wait
        since = monotonic()
        chunks = self._chunks_from_server()
        while True:
            # Each wait for bytes, not the consumer's work between them, is out of flight.
            task: Cancellable | None
            try:
                task = asyncio.current_task()
            except RuntimeError:  # another event loop than asyncio's (trio): no sweeper
                task = Unswept()
            assert task is not None  # a body is read on the loop, by a task
            wait.enter(task, since)
            try:
                chunk = await anext(chunks)
            except StopAsyncIteration:
                break
            except asyncio.CancelledError:
                timeout = wait.timed_out(task)
                if timeout is None:
                    raise
                raise timeout from None
            except self._gone:
                raise ClientDisconnected from None
            finally:
                wait.leave(task)
            received += len(chunk)
            if received > limit:
                # The server's chunks, left unread, are closed now rather than by the loop
                # that made them, which may have ended when they are collected (trio's).
                close = getattr(chunks, "aclose", None)
                if close is not None:
                    await close()
                raise _too_large(limit)
            yield chunk
        if declared is not None and received != declared:
            raise _incomplete(received, declared)

    def _allowed_length(self) -> int | None:
        """The Content-Length, if any; over ``max_body_size`` it is a 413 before any read."""
        value = self._header("content-length")
        if value is None:
            return None
        if self._may_have_both_lengths and self._header("transfer-encoding") is not None:
            # RFC 9112 §6.1: a smuggling attempt, or a broken client; refused, and the
            # connection closed after, as uvicorn with httptools does (h11 takes the chunked
            # body; Granian drops the Content-Length before the app sees it, and closes).
            raise HTTPError(
                400,
                "The request has both Content-Length and Transfer-Encoding",
                {"connection": "close"},
            )
        if not (value.isascii() and value.isdigit()):
            raise HTTPError(400, f"Invalid Content-Length header: {value!r}")
        declared = int(value)
        limit = self.context.body_limit
        if declared > limit:
            raise HTTPError(
                413, f"Request body of {declared} bytes exceeds the limit of {limit} bytes"
            )
        return declared

    def __repr__(self) -> str:
        return f"<Request {self.method} {self.path}>"


class FormReading:
    """What ``request.form()`` gives: awaited, the form; entered (``async with``), the form,
    its files closed at the end, as Starlette's."""

    __slots__ = ("_form", "_reading")

    def __init__(self, reading: Coroutine[Any, Any, FormData]) -> None:
        self._reading = reading
        self._form: FormData | None = None

    def __await__(self) -> Generator[Any, None, FormData]:
        return self._reading.__await__()

    async def __aenter__(self) -> FormData:
        self._form = await self._reading
        return self._form

    async def __aexit__(self, *exc_info: object) -> None:
        if self._form is not None:
            await self._form.close()


# An app's Request subclass combined with the adapter class of each request it views.
_views: dict[tuple[type[Request], type[Request]], type[Request]] = {}


def _view_of(cls: type[Request], scope: Any, receive: Any = None, send: Any = None) -> Request:
    """``cls(request.scope, request.receive)``: ``cls`` over the same request, as Starlette's
    Request made from a scope shares its state. It shares the request's attributes (its body,
    once read, its path parameters, what runs after its response)."""
    if not isinstance(scope, ConnectionScope) or not isinstance(scope.connection, Request):
        raise TypeError(
            f"{cls.__name__}(scope, receive) takes a hasten request's scope "
            f"(request.scope), not {type(scope).__name__}"
        )
    request = scope.connection
    adapter = type(request)
    kind = adapter if issubclass(adapter, cls) else _views.get((cls, adapter))
    if kind is None:
        names = {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        kind = _views[cls, adapter] = type(cls.__name__, (cls, adapter), names)
    view = object.__new__(kind)
    view.__dict__ = request.__dict__
    return view


def _made_as_view(self: Request, scope: Any, receive: Any = None, send: Any = None) -> None:
    """``_view_of`` made it whole."""


async def _gone_already(channel: Inbound) -> bool:
    """Whether the client of ``channel`` has gone, on another event loop than asyncio's:
    what the server has already handed over is read (a body's messages kept), nothing is
    waited for."""
    with anyio.CancelScope() as scope:
        scope.cancel()
        await channel.client_disconnect()
        return True
    return False


def _read_already() -> RuntimeError:
    return RuntimeError(
        "The request body was already read by request.stream(), which does not keep it: read "
        "it with request.body() instead, or only once with stream()."
    )
