"""Request: what a handler sees of an HTTP request, whichever protocol carried it."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterable, AsyncIterator, Awaitable
from time import monotonic
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

from .body_wait import BodyWait, Cancellable
from .connection import Connection, PathParams
from .decoding import decode_json
from .errors import HTTPError
from .overload import InFlight

if TYPE_CHECKING:
    from .app import App
    from .forms import FormData
    from .transport import StreamWriter

__all__ = ["ClientDisconnected", "Request"]

_json_decode = msgspec.json.decode
# A Request made outside the serve step (a test's, or one before any startup) holds no
# in-flight slot: its reads are counted here, where nothing looks.
_UNSERVED = BodyWait(InFlight(1), None)


class Reading(Cancellable, Awaitable[bytes], Protocol):
    """The server's future for a whole body."""


class ClientDisconnected(HTTPError):
    """The client went away while its body was being read."""

    def __init__(self) -> None:
        super().__init__(400, "Client disconnected while sending the body")


def _incomplete(received: int, declared: int) -> HTTPError:
    return HTTPError(400, f"Request body incomplete: {received} of its {declared} bytes arrived")


class Request(Connection):
    """An HTTP request. The body is read once: ``body()`` keeps it, ``stream()`` does not.

    The protocol adapters subclass it to say where headers, the client address and the body
    come from; nothing else knows which protocol served the request.
    """

    __slots__ = ("_body", "_body_limit", "_form", "_streamed", "method")

    # What the server raises when the client has gone mid-body (the adapters say).
    _gone: tuple[type[BaseException], ...] = ()

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
    def _read_whole(self) -> Reading | None:
        """The reading of a Content-Length body in one call, where the server allows it (a
        future: the body timeout cancels it); None: read it in chunks."""
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
        if self._body is None:
            self._start_reading()
            declared = self._allowed_length()
            # perf: a Content-Length body comes in one read where the adapter can, without
            # the async generators of stream() (the usual JSON body).
            reading = self._read_whole() if declared is not None else None
            if reading is not None:
                assert declared is not None
                # perf: _whole's steps, inline: no coroutine, no call to enter or leave
                # (the usual JSON body, benchmarks/overhead.py)
                wait = self._wait()
                reads = wait.reads
                reads[reading] = monotonic()
                try:
                    whole = await reading
                except asyncio.CancelledError:
                    timeout = wait.timed_out(reading)
                    if timeout is None:
                        raise
                    raise timeout from None
                except self._gone:
                    raise ClientDisconnected from None
                finally:
                    del reads[reading]
                    if wait.out:
                        wait.back(reading)
                if len(whole) != declared:
                    raise _incomplete(len(whole), declared)
                self._body = whole
            else:
                chunks = [chunk async for chunk in self._limited_chunks(declared)]
                self._body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
        return self._body

    async def stream(self) -> AsyncIterator[bytes]:
        """The body in chunks as they arrive, held to ``max_body_size``; not kept."""
        if self._body is not None:
            yield self._body
            return
        self._start_reading()
        declared = self._allowed_length()
        reading = self._read_whole() if declared is not None else None
        if reading is not None:
            assert declared is not None
            yield await self._whole(reading, declared)
            return
        async for chunk in self._limited_chunks(declared):
            yield chunk

    async def _chunks(self) -> AsyncIterator[bytes]:
        """The body in chunks as the server hands them over, never in one read (a form
        streams through its parser), held to ``max_body_size``; not kept."""
        if self._body is not None:
            yield self._body
            return
        self._start_reading()
        async for chunk in self._limited_chunks(self._allowed_length()):
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
            return decode_json(_json_decode, body, self.app.settings)
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

    async def _whole(self, reading: Reading, declared: int) -> bytes:
        wait = self._wait()
        wait.enter(reading, monotonic())
        try:
            whole = await reading
        except asyncio.CancelledError:
            timeout = wait.timed_out(reading)
            if timeout is None:
                raise
            raise timeout from None
        except self._gone:
            raise ClientDisconnected from None
        finally:
            wait.leave(reading)
        if len(whole) != declared:
            raise _incomplete(len(whole), declared)
        return whole

    async def _limited_chunks(self, declared: int | None) -> AsyncIterator[bytes]:
        limit = self._body_limit
        received = 0
        wait = self._wait()
        since = monotonic()
        chunks = aiter(self._body_chunks())
        while True:
            # Each wait for bytes, not the consumer's work between them, is out of flight.
            task = asyncio.current_task()
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
                raise HTTPError(413, f"Request body exceeds the limit of {limit} bytes")
            yield chunk
        if declared is not None and received != declared:
            raise _incomplete(received, declared)

    def _wait(self) -> BodyWait:
        runtime = self.app.runtime
        return runtime.body_wait if runtime is not None else _UNSERVED

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
