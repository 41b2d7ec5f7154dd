"""``fastapi.sse``, served by hasten: its public names, as hasten's objects."""

from __future__ import annotations

from hasten.responses import StreamingResponse
from hasten.sse import EventSourceResponse, ServerSentEvent, format_sse_event

__all__ = ["EventSourceResponse", "ServerSentEvent", "StreamingResponse", "format_sse_event"]
