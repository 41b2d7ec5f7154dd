"""An Outbound that records what a response sends, for unit tests of the send step, and the
Request such a response answers."""

from __future__ import annotations

import asyncio
import types
from dataclasses import dataclass, field

from hasten._flow.context import UNSERVED
from hasten._http.wire import HeaderList
from hasten._serve.protocols.rsgi import RSGIRequest
from hasten.requests import Request


@dataclass
class Sent:
    kind: str
    status: int
    headers: HeaderList
    body: bytes = b""
    file: tuple[str, int, int | None] | None = None


@dataclass
class RecordingTransport:
    """Granian's response calls, recorded: the last response sent is ``sent``."""

    sent: Sent | None = None
    chunks: list[bytes] = field(default_factory=list)
    gone: asyncio.Event | None = None  # set it to play a client that leaves

    async def client_disconnect(self) -> None:
        if self.gone is None:
            self.gone = asyncio.Event()
        await self.gone.wait()

    def response_bytes(self, status: int, headers: HeaderList, body: bytes) -> None:
        self.sent = Sent("bytes", status, headers, body)

    def response_stream(self, status: int, headers: HeaderList) -> RecordingTransport:
        self.sent = Sent("stream", status, headers)
        return self

    async def send_bytes(self, data: bytes) -> None:
        assert self.sent is not None
        self.chunks.append(data)
        self.sent.body += data

    def response_file(self, status: int, headers: HeaderList, file: str) -> None:
        self.sent = Sent("file", status, headers, file=(file, 0, None))

    def response_file_range(
        self, status: int, headers: HeaderList, file: str, start: int, end: int
    ) -> None:
        self.sent = Sent("file", status, headers, file=(file, start, end))


def request_for(
    transport: RecordingTransport, method: str = "GET", headers: dict[str, str] | None = None
) -> Request:
    """A Request, as Granian's scope would give it, whose client is ``transport``'s."""
    scope = types.SimpleNamespace(
        proto="http",
        method=method,
        path="/",
        query_string="",
        headers=headers or {},
        client="127.0.0.1:50000",
        server="127.0.0.1:8000",
        scheme="http",
    )
    return RSGIRequest(UNSERVED, None, scope, transport, method, "/")
