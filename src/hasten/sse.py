"""Server-Sent Events: ``EventSourceResponse`` streams ``ServerSentEvent`` values, with
keep-alive pings while the source is quiet.

The public names; the code is in ``hasten._http.sse``."""

from hasten._http.sse import (
    DEFAULT_PING_SECONDS,
    EventSourceResponse,
    ServerSentEvent,
    format_sse_event,
)

__all__ = [
    "DEFAULT_PING_SECONDS",
    "EventSourceResponse",
    "ServerSentEvent",
    "format_sse_event",
]
