"""Streams, Server-Sent Events and client disconnects on real servers: a client that leaves
mid-stream, or during a long handler, leaves no generator and no task running."""

from __future__ import annotations

import socket
import time
from typing import Any

import httpx
import pytest

from tests.servers.e2e.conftest import local_client
from tests.servers.e2e.raw import address, fetch, request_bytes

pytestmark = pytest.mark.server


def probe(base_url: str) -> dict[str, Any]:
    with local_client(base_url) as client:
        result: dict[str, Any] = client.get("/probe").json()
        return result


def settle(base_url: str, **wanted: int) -> dict[str, Any]:
    """Poll /probe until it shows ``wanted`` (or fail with what it shows)."""
    deadline = time.monotonic() + 5
    seen = probe(base_url)
    while time.monotonic() < deadline:
        if all(seen[key] == value for key, value in wanted.items()):
            return seen
        time.sleep(0.05)
        seen = probe(base_url)
    pytest.fail(f"/probe never showed {wanted}: {seen}")


def test_a_stream_is_chunked(streams_server: str) -> None:
    response = fetch(streams_server, "GET", "/stream?count=3")
    assert response.status == 200
    assert response.values("transfer-encoding") == ["chunked"]
    assert response.values("content-length") == []
    assert response.body == b"chunk 0\nchunk 1\nchunk 2\n"
    assert fetch(streams_server, "GET", "/sync-stream?count=2").body == b"sync 0\nsync 1\n"


def test_server_sent_events_resume_after_last_event_id(streams_server: str) -> None:
    response = fetch(streams_server, "GET", "/events?count=2", {"Last-Event-ID": "41"})
    assert response.header("content-type") == "text/event-stream; charset=utf-8"
    assert response.header("cache-control") == "no-cache"
    assert response.body == (
        b'event: tick\ndata: {"n": 42}\nid: 42\n\nevent: tick\ndata: {"n": 43}\nid: 43\n\n'
    )


@pytest.mark.parametrize("target", ["/lines", "/sync-lines"])
def test_a_generator_handler_streams_json_lines(streams_server: str, target: str) -> None:
    response = fetch(streams_server, "GET", f"{target}?count=3")
    assert response.status == 200
    assert response.values("content-type") == ["application/jsonl"]
    assert response.values("transfer-encoding") == ["chunked"]
    assert response.body == b'{"n":0}\n{"n":1}\n{"n":2}\n'


def test_a_quiet_event_stream_sends_pings(streams_server: str) -> None:
    response = fetch(streams_server, "GET", "/events?count=1&gap=0.35&ping=0.1")
    assert response.body.startswith(b": ping\n\n: ping\n\n")
    assert response.body.endswith(b'event: tick\ndata: {"n": 1}\nid: 1\n\n')


@pytest.mark.parametrize(
    "target",
    [
        "/stream?count=100000&delay=0.01",
        "/sync-stream?count=100000&delay=0.01",
        "/events?count=100000&gap=0.01&ping=0.05",
        "/lines?count=100000&delay=0.01",
        "/sync-lines?count=100000&delay=0.01",
    ],
)
def test_a_client_that_leaves_mid_stream_takes_everything_with_it(
    streams_server: str, target: str
) -> None:
    baseline = settle(streams_server, generators=0)
    closed = baseline["closed"]
    with socket.create_connection(address(streams_server), timeout=10.0) as sock:
        sock.sendall(request_bytes("GET", target))
        received = b""
        while received.count(b"\n") < 12:
            received += sock.recv(4096)
        assert b" 200 " in received.split(b"\r\n")[0]
        assert probe(streams_server)["generators"] == 1
    after = settle(streams_server, generators=0, tasks=baseline["tasks"])
    assert after["closed"] == closed + 1  # its finally ran


@pytest.mark.parametrize(
    "target",
    [
        "/slow",  # a timeout= route: stopped when its client leaves
        "/wait-for-disconnect",  # a handler polling request.is_disconnected()
    ],
)
def test_a_long_handler_does_not_outlive_its_client(streams_server: str, target: str) -> None:
    baseline = settle(streams_server, handlers=0)
    with socket.create_connection(address(streams_server), timeout=10.0) as sock:
        sock.sendall(request_bytes("GET", target))
        settle(streams_server, handlers=1)
    after = settle(streams_server, handlers=0, tasks=baseline["tasks"])
    assert after["cancelled"] == baseline["cancelled"] + 1


def test_a_client_that_stays_gets_the_whole_stream(streams_server: str) -> None:
    with httpx.Client(base_url=streams_server, trust_env=False) as client:
        lines = client.get("/stream?count=50&delay=0.001").text.splitlines()
    assert lines == [f"chunk {number}" for number in range(50)]


def test_back_pressure_of_a_client_that_does_not_read(
    streams_server: str, server_kind: str
) -> None:
    """800 chunks of 64 KiB (50 MiB) for a client that reads nothing for half a second."""
    settle(streams_server, generators=0)
    with socket.create_connection(address(streams_server), timeout=10.0) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 65536)
        sock.sendall(request_bytes("GET", "/big-stream?count=800"))
        time.sleep(0.5)
        produced = probe(streams_server)["produced"]
    settle(streams_server, generators=0)
    # Measured: under ASGI servers send() waits for the socket, so the source stops a few
    # chunks ahead of the client. Granian's RSGI stream channel is unbounded, so hasten holds
    # the stream back itself (hasten._flow.backpressure): the source stops once 1 MiB waits in the
    # server, beyond what the kernel's buffers hold.
    assert produced < 100, produced
