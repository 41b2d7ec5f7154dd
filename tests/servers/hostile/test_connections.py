"""Slow clients and idle connections: with thousands of connections that send nothing or
trickle their headers in, a new client still gets its answer at once; the timeouts and the
connection limit of ``hasten run`` do what its help says, on each server."""

from __future__ import annotations

import contextlib
import resource
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.servers.hostile.cases import NORMAL
from tests.servers.hostile.conftest import HOST, Served, hasten_run
from tests.servers.hostile.wire import exchange

pytestmark = pytest.mark.server

IDLE = 2_000  # connections that send nothing at all
TRICKLING = 2_000  # connections that send their headers one byte at a time
TRICKLE = b"GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n"
TRICKLE_EVERY = 2.0  # seconds between two bytes of one trickling connection
WATCH = 3.0  # seconds the new clients are watched while the others trickle
FAST_ENOUGH = 1.0


@pytest.fixture
def enough_open_files() -> Iterator[None]:
    """Room in this process for every client socket the test opens."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = IDLE + TRICKLING + 1_000
    if hard != resource.RLIM_INFINITY and hard < needed:
        pytest.skip(f"this test opens {needed} sockets; the hard open-files limit is {hard}")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, needed), hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def open_connections(port: int, count: int) -> list[socket.socket]:
    """``count`` connections, opened without waiting for each handshake."""
    sockets = []
    for _ in range(count):
        sock = socket.socket()
        sock.setblocking(False)
        sock.connect_ex((HOST, port))
        sockets.append(sock)
    return sockets


def send_byte(sock: socket.socket, index: int) -> None:
    # A socket the server closed (its header timeout) is its right: the send fails.
    with contextlib.suppress(OSError):
        sock.send(TRICKLE[index % len(TRICKLE) : index % len(TRICKLE) + 1])


def send_all(sock: socket.socket, data: bytes) -> None:
    with contextlib.suppress(OSError):
        sock.send(data)  # small enough for one send on a fresh connection


@pytest.mark.usefixtures("enough_open_files")
def test_a_new_client_gets_in_past_thousands_of_idle_and_trickling_connections(
    served: Served,
) -> None:
    idle = open_connections(served.port, IDLE)
    trickling = open_connections(served.port, TRICKLING)
    try:
        time.sleep(0.5)  # every handshake done
        waits = []
        start = time.monotonic()
        sent = 0
        while time.monotonic() - start < WATCH:
            if time.monotonic() - start >= sent * TRICKLE_EVERY:
                for sock in trickling:
                    send_byte(sock, sent)
                sent += 1
            outcome = exchange(served.port, NORMAL, wait=FAST_ENOUGH * 2)
            waits.append(outcome.seconds)
            assert outcome.status == 200, f"{outcome} after {outcome.seconds:.2f} s"
            time.sleep(0.2)
        assert sent >= 2
        assert max(waits) < FAST_ENOUGH, waits
    finally:
        for sock in idle + trickling:
            sock.close()
    served.check_alive()


# The options themselves, on a private server with small limits.
LIMITS = ("--header-timeout", "1", "--keep-alive-timeout", "1", "--max-connections", "20")


def closed_after(sock: socket.socket, wait: float) -> float | None:
    """Seconds until the server closed ``sock`` (reading what it sends), or None."""
    start = time.monotonic()
    sock.settimeout(wait)
    try:
        while sock.recv(65536):
            pass
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    return time.monotonic() - start


@pytest.mark.parametrize("kind", ["granian-rsgi", "granian-asgi", "uvicorn"])
def test_run_options_bound_slow_and_idle_connections(kind: str, tmp_path: Path) -> None:
    with hasten_run(kind, tmp_path / "server.log", *LIMITS) as served:
        # Headers begun and never finished: closed after --header-timeout by Granian;
        # uvicorn has no such timeout (the README says what to put in front of it).
        with socket.create_connection((HOST, served.port), timeout=2) as stalled:
            stalled.sendall(TRICKLE[:10])
            closed = closed_after(stalled, 1.6)
        if kind == "uvicorn":
            assert closed is None
        else:
            assert closed is not None
            assert 0.8 < closed < 1.6
        # An idle keep-alive connection: closed after --keep-alive-timeout by uvicorn, after
        # --header-timeout by Granian (one timer for both).
        with socket.create_connection((HOST, served.port), timeout=2) as kept:
            kept.sendall(b"GET /hello HTTP/1.1\r\nHost: x\r\n\r\n")
            closed = closed_after(kept, 1.6)
        assert closed is not None
        assert 0.8 < closed < 1.6
        # --max-connections: past it, Granian leaves a new connection waiting in the backlog
        # and uvicorn answers 503.
        held = [socket.create_connection((HOST, served.port), timeout=2) for _ in range(20)]
        try:
            time.sleep(0.2)
            past = exchange(served.port, NORMAL, wait=0.5)
            assert str(past) == ("503" if kind == "uvicorn" else "silent")
        finally:
            for sock in held:
                sock.close()
        served.check_alive()


def test_run_raises_the_open_files_limit_for_its_workers(tmp_path: Path) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or hard <= 1024:
        pytest.skip(f"the hard open-files limit ({hard}) leaves nothing to raise")
    resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))  # inherited by hasten run
    try:
        with hasten_run("granian-rsgi", tmp_path / "server.log") as served:
            (worker,) = psutil.Process(served.process.pid).children()
            limits = Path(f"/proc/{worker.pid}/limits").read_text()
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    (line,) = [line for line in limits.splitlines() if line.startswith("Max open files")]
    assert line.split()[3:5] == [str(hard), str(hard)]


SLOW_UPLOADS = 1_050  # past the app's max_in_flight (1,000)
SLOW_UPLOAD = b"POST /count HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\nabc"


@pytest.mark.usefixtures("enough_open_files")
def test_slow_uploads_do_not_starve_other_requests(served: Served) -> None:
    uploads = open_connections(served.port, SLOW_UPLOADS)
    try:
        time.sleep(0.5)
        for sock in uploads:
            send_all(sock, SLOW_UPLOAD)
        time.sleep(1.0)  # the app moves a waiting read out of flight within 0.25 s
        outcome = exchange(served.port, NORMAL)
    finally:
        for sock in uploads:
            sock.close()
    served.check_alive()
    assert (outcome.status, outcome.body) == (200, b'{"message":"hello"}')
