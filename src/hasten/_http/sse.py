"""Server-Sent Events: ``EventSourceResponse`` streams ``ServerSentEvent`` values, with
keep-alive pings while the source is quiet.

The names are sse-starlette's (and what a browser's ``EventSource`` consumes), so code moving
from Starlette keeps them. A reconnecting browser sends the last id it saw as
``Last-Event-ID``: take it as ``last_event_id: str | None = Header(None)``.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from hasten._flow.transport import CLIENT_GONE, StreamWriter
from hasten._http.jsonable import untyped_json
from hasten._http.responses import StreamingResponse
from hasten._running.event_loop import Sleep, loop_clock, until

__all__ = ["DEFAULT_PING_SECONDS", "EventSourceResponse", "ServerSentEvent", "format_sse_event"]

DEFAULT_PING_SECONDS = 15.0
PING = b": ping\n\n"
_LINE_BREAKS = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    """One event: ``data`` (sent as JSON, a ``str`` too, as FastAPI's) or ``raw_data`` (a
    ``str`` sent as it is, one ``data:`` line per line), and the optional ``event`` name,
    ``id``, ``retry`` (milliseconds the browser waits before reconnecting) and ``comment``."""

    data: Any = None
    event: str | None = None
    id: str | None = None
    retry: int | None = None
    comment: str | None = None
    raw_data: str | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        # FastAPI's words for each refusal.
        if self.id is not None and "\0" in self.id:
            raise ValueError("SSE 'id' must not contain null characters")
        for name in ("event", "id"):
            value = getattr(self, name)
            if value is not None and ("\n" in value or "\r" in value):
                raise ValueError(f"SSE '{name}' must be a single line")
        if self.data is not None and self.raw_data is not None:
            raise ValueError(
                "Cannot set both 'data' and 'raw_data' on the same ServerSentEvent. Use 'data' "
                "for JSON-serialized payloads or 'raw_data' for pre-formatted strings."
            )
        if self.retry is not None and (not isinstance(self.retry, int) or self.retry < 0):
            raise ValueError(f"retry must be a whole number of milliseconds, got {self.retry!r}")

    def encode(self) -> bytes:
        """The event as it goes on the wire, ending with its blank line. ``data`` is written
        as FastAPI writes it: a pydantic model by its ``model_dump_json()``, anything else as
        an undeclared value (see ``encoders.untyped_json``)."""
        data = self.raw_data
        if self.data is not None:
            dump = getattr(self.data, "model_dump_json", None)
            data = dump() if dump is not None else untyped_json(self.data)
        return format_sse_event(
            data_str=data, event=self.event, id=self.id, retry=self.retry, comment=self.comment
        )


def format_sse_event(
    *,
    data_str: str | None = None,
    event: str | None = None,
    id: str | None = None,
    retry: int | None = None,
    comment: str | None = None,
) -> bytes:
    """An event on the wire from its fields, its data already a string (FastAPI's name):
    comment lines, ``event``, one ``data:`` line per line of ``data_str``, ``id``, ``retry``,
    then the blank line that ends it."""
    lines: list[str] = []
    if comment is not None:
        lines.extend(f": {line}" for line in _LINE_BREAKS.split(comment))
    if event is not None:
        lines.append(f"event: {event}")
    if data_str is not None:
        lines.extend(f"data: {line}" for line in _LINE_BREAKS.split(data_str))
    if id is not None:
        lines.append(f"id: {id}")
    if retry is not None:
        lines.append(f"retry: {retry}")
    lines.append("\n")
    return "\n".join(lines).encode()


def encode_event(item: Any) -> bytes:
    """A value a source yields, as an event: a ServerSentEvent as it is, bytes as they are
    (already encoded), a str as its ``raw_data``, anything else as its ``data``."""
    if isinstance(item, ServerSentEvent):
        return item.encode()
    if isinstance(item, bytes):
        return item
    if isinstance(item, str):
        return ServerSentEvent(raw_data=item).encode()
    return ServerSentEvent(item).encode()


class EventSourceResponse(StreamingResponse):
    """A ``text/event-stream`` of the events ``content`` yields (async or sync iterable of
    ServerSentEvent, str, or JSON values). Every ``ping`` seconds without an event it sends a
    comment line, so proxies and browsers keep the connection open (None: no pings).
    """

    __slots__ = ("ping",)

    def __init__(
        self,
        content: AsyncIterable[Any] | Iterable[Any],
        status: int | None = None,
        headers: Mapping[str, str] | None = None,
        ping: float | None = DEFAULT_PING_SECONDS,
        *,
        status_code: int | None = None,
    ) -> None:
        super().__init__(content, status, headers, "text/event-stream", status_code=status_code)
        if ping is not None and ping <= 0:
            raise ValueError(f"ping must be a positive number of seconds, or None; got {ping}")
        self.ping = ping
        response_headers = self.headers
        response_headers.setdefault("cache-control", "no-cache")
        response_headers.setdefault("x-accel-buffering", "no")  # nginx: do not buffer

    async def pump(
        self, chunks: AsyncIterable[Any], writer: StreamWriter, step: Sleep = asyncio.sleep
    ) -> None:
        now = loop_clock()
        if self.ping is None:
            await self._events(chunks, writer, None, step, now)
            return
        last = [now()]
        ping = self.ping
        if step is not asyncio.sleep:  # another event loop than asyncio's (trio)
            events = self._events(chunks, writer, last, step, now)
            await until(events, lambda: self._pings(writer, last, ping, step, now))
            return
        pinger = asyncio.ensure_future(self._pings(writer, last, ping, step, now))
        try:
            await self._events(chunks, writer, last, step, now)
        finally:
            pinger.cancel()

    async def _events(
        self,
        chunks: AsyncIterable[Any],
        writer: StreamWriter,
        last: list[float] | None,
        step: Sleep,
        now: Callable[[], float],
    ) -> None:
        try:
            async for item in chunks:
                await writer.send_bytes(encode_event(item))
                if last is not None:
                    last[0] = now()
                await step(0)  # as StreamingResponse.pump: the loop is not held
        except CLIENT_GONE:
            return

    @staticmethod
    async def _pings(
        writer: StreamWriter, last: list[float], every: float, step: Sleep, now: Callable[[], float]
    ) -> None:
        while True:
            await step(max(last[0] + every - now(), 0.0))
            if now() - last[0] >= every:
                try:
                    await writer.send_bytes(PING)
                except CLIENT_GONE:
                    return
                last[0] = now()
