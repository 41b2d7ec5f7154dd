"""A small load generator for the fault tests: keep-alive connections, each sending one GET
after the other until a deadline, every answer's status and latency recorded."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

__all__ = ["Answer", "Load", "percentile", "run_load"]


@dataclass(frozen=True)
class Answer:
    status: int  # 0: the connection failed or closed without an answer
    seconds: float
    body: bytes
    at: float  # when it was answered, from the start of the load


@dataclass
class Load:
    start: float  # time.monotonic() when the load began
    answers: list[Answer] = field(default_factory=list)

    def statuses(self) -> dict[int, int]:
        counts: dict[int, int] = {}
        for answer in self.answers:
            counts[answer.status] = counts.get(answer.status, 0) + 1
        return counts

    def latencies(self, status: int) -> list[float]:
        return sorted(answer.seconds for answer in self.answers if answer.status == status)


def percentile(values: list[float], fraction: float) -> float:
    return values[min(len(values) - 1, int(len(values) * fraction))]


async def _one(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[int, bytes]:
    writer.write(request)
    await writer.drain()
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    return status, await reader.readexactly(length)


async def _client(
    port: int, path: str, deadline: float, start: float, load: Load, pause: float
) -> None:
    request = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    connection: tuple[asyncio.StreamReader, asyncio.StreamWriter] | None = None
    while time.monotonic() < deadline:
        sent = time.monotonic()
        try:
            if connection is None:
                connection = await asyncio.wait_for(asyncio.open_connection("127.0.0.1", port), 5)
            status, body = await asyncio.wait_for(_one(*connection, request), 10)
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError):
            status, body = 0, b""
            if connection is not None:
                connection[1].close()
            connection = None
            await asyncio.sleep(0.01)
        now = time.monotonic()
        load.answers.append(Answer(status, now - sent, body, now - start))
        if status == 503:
            await asyncio.sleep(pause)
    if connection is not None:
        connection[1].close()


async def _run(port: int, path: str, clients: int, seconds: float, pause: float) -> Load:
    start = time.monotonic()
    load = Load(start)
    deadline = start + seconds
    await asyncio.gather(
        *(_client(port, path, deadline, start, load, pause) for _ in range(clients))
    )
    return load


def run_load(
    port: int, path: str, clients: int, seconds: float, pause_after_503: float = 0.0
) -> Load:
    """``clients`` connections sending GET ``path`` for ``seconds``; every answer. A client
    refused with 503 waits ``pause_after_503`` seconds before it sends again."""
    return asyncio.run(_run(port, path, clients, seconds, pause_after_503))
