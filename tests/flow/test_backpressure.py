"""hasten._flow.backpressure: a stream held to what its client's TCP connection has taken, for a
server that queues without bound (Granian RSGI). Here the "server" is a queue drained into a
real loopback socket, as Granian drains its channel; tests/servers/e2e and tests/servers/hostile
run Granian."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from hasten._flow.backpressure import AHEAD, _find_socket, _written, paced

CHUNK = b"x" * 65536


@pytest.fixture
def connection() -> Iterator[tuple[socket.socket, socket.socket]]:
    """(server side, client side) of a loopback TCP connection, small buffers."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        client = socket.create_connection(listener.getsockname())
        client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        server, _ = listener.accept()
    with server, client:
        yield server, client


def test_the_connection_is_found_by_its_client_address(
    connection: tuple[socket.socket, socket.socket],
) -> None:
    server, client = connection
    host, port = client.getsockname()
    assert _find_socket((host, port), server.getsockname()[1]) == server.fileno()
    assert _find_socket((host, port + 1), server.getsockname()[1]) is None


def test_written_counts_what_reached_the_kernel(
    connection: tuple[socket.socket, socket.socket],
) -> None:
    server, client = connection
    peer = client.getsockname()
    before = _written(server.fileno(), peer)
    server.sendall(b"y" * 1000)
    assert before is not None
    assert _written(server.fileno(), peer) == before + 1000
    assert _written(server.fileno(), ("127.0.0.1", 1)) is None  # not that connection


class QueueingServer:
    """Granian's RSGI stream, in small: ``send_bytes`` queues and returns at once, and a task
    drains the queue into the socket as fast as the client takes it."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.queue: asyncio.Queue[bytes] = asyncio.Queue()
        self.queued = 0
        sock.setblocking(False)
        self.drainer = asyncio.ensure_future(self._drain())

    async def send_bytes(self, data: bytes) -> None:
        self.queued += len(data)
        self.queue.put_nowait(data)

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            data = await self.queue.get()
            await loop.sock_sendall(self.sock, data)
            self.queued -= len(data)


def test_a_stream_waits_while_its_client_reads_nothing_then_resumes(
    connection: tuple[socket.socket, socket.socket],
) -> None:
    server, client = connection
    host, port = client.getsockname()

    async def scenario() -> tuple[int, int, int]:
        queueing = QueueingServer(server)
        writer = paced(queueing, f"{host}:{port}", f"127.0.0.1:{server.getsockname()[1]}")
        sent = 0

        async def produce() -> None:
            nonlocal sent
            for _ in range(400):  # 25 MiB
                await writer.send_bytes(CHUNK)
                sent += 1

        producing = asyncio.ensure_future(produce())
        await asyncio.sleep(1.0)  # the client reads nothing
        stalled_at, waiting = sent, queueing.queued
        client.setblocking(False)
        received = 0
        loop = asyncio.get_running_loop()
        while received < 400 * len(CHUNK):  # now it reads everything
            received += len(await loop.sock_recv(client, 1 << 20))
        await producing
        queueing.drainer.cancel()
        return stalled_at, waiting, sent

    stalled_at, waiting, sent = asyncio.run(scenario())
    assert stalled_at < 200, stalled_at  # unpaced, all 400 chunks would be queued at once
    assert waiting <= 2 * AHEAD + len(CHUNK), waiting
    assert sent == 400


def test_an_address_that_is_not_tcp_leaves_the_writer_as_it_is() -> None:
    writer = QueueingServer.__new__(QueueingServer)
    assert paced(writer, "unix-socket", "/run/app.sock") is writer
