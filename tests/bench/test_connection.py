"""The built-in client's HTTP/1.1 reading, against canned responses from a loopback socket."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from hasten.bench.connection import FAILURES, Connection, ProtocolError

GET = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
Exchange = Callable[[Connection], Awaitable[object]]


async def against(answers: list[bytes], use: Exchange, close_after: bool = False) -> object:
    """Serve ``answers`` one per request on a loopback port; run ``use`` on a connection."""

    handlers: list[asyncio.Task[Any]] = []

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        handlers.append(task)
        try:
            for answer in answers:
                await reader.readuntil(b"\r\n\r\n")
                writer.write(answer)
                await writer.drain()
            if not close_after:
                await reader.read()  # until the client closes
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    connection = await Connection.open("127.0.0.1", port)
    try:
        return await use(connection)
    finally:
        connection.close()
        server.close()
        await asyncio.gather(*handlers, return_exceptions=True)
        await server.wait_closed()


def exchange_all(answers: list[bytes], close_after: bool = False) -> object:
    async def use(connection: Connection) -> list[tuple[int, bool]]:
        results = []
        for _ in answers:
            results.append((await connection.exchange(GET), connection.reusable))
        return results

    return asyncio.run(against(answers, use, close_after))


def test_content_length_and_chunked_bodies_keep_the_connection() -> None:
    answers = [
        b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
        b"HTTP/1.1 404 Not Found\r\ntransfer-encoding: chunked\r\n\r\n"
        b"3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nx-trailer: 1\r\n\r\n",
        b"HTTP/1.1 204 No Content\r\n\r\n",
        b"HTTP/1.1 201 Created\r\ncontent-length:0\r\n\r\n",
    ]
    assert exchange_all(answers) == [(200, True), (404, True), (204, True), (201, True)]


def test_connection_close_and_unframed_bodies_end_the_connection() -> None:
    assert exchange_all(
        [b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\nx"]
    ) == [(200, False)]
    assert exchange_all([b"HTTP/1.0 200 OK\r\n\r\nuntil the end"], close_after=True) == [
        (200, False)
    ]


def test_a_head_response_has_no_body() -> None:
    async def use(connection: Connection) -> int:
        return await connection.exchange(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")

    answer = b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n"
    assert asyncio.run(against([answer], use)) == 200


@pytest.mark.parametrize(
    "answer",
    [
        b"SSH-2.0-OpenSSH\r\n\r\n",
        b"HTTP/1.1 abc\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nab",
    ],
)
def test_garbage_and_short_bodies_are_failures(answer: bytes) -> None:
    with pytest.raises(FAILURES):
        exchange_all([answer], close_after=True)


def test_protocol_error_is_a_failure() -> None:
    assert issubclass(ProtocolError, FAILURES)
