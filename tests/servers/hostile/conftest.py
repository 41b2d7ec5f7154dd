"""``hasten run`` serving ``tests.servers.hostile.app:app`` on Granian (RSGI, ASGI) and uvicorn.

One server per kind for the session, started as a user would start it, so that what is
attacked is hasten with its default server settings. Each test can read the server's log.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.servers.hostile.cases import NORMAL
from tests.servers.hostile.wire import exchange

HOST = "127.0.0.1"
ROOT = Path(__file__).resolve().parents[3]
TARGET = "tests.servers.hostile.app:app"
SURFACES = "tests.servers.hostile.surfaces_app:app"
SITE_ENV = "HOSTILE_SITE"  # where the surfaces app makes the files it serves
READY_TIMEOUT = 15.0
# How each kind of server is asked for, on ``hasten run``'s command line.
KINDS: dict[str, list[str]] = {
    "granian-rsgi": ["--interface", "rsgi"],
    "granian-asgi": ["--interface", "asgi"],
    "uvicorn": ["--server", "uvicorn"],
}


@dataclass(frozen=True)
class Served:
    """A running ``hasten run``: its kind, port, process and log."""

    kind: str
    port: int
    process: subprocess.Popen[bytes]
    log: Path

    def check_alive(self) -> None:
        """The server is still up, and a normal request on a new connection succeeds."""
        assert self.process.poll() is None, self.log.read_text(errors="replace")[-4000:]
        after = exchange(self.port, NORMAL)
        assert (after.status, after.body) == (200, b'{"message":"hello"}')


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextlib.contextmanager
def hasten_run(
    kind: str,
    log: Path,
    *options: str,
    target: str = TARGET,
    environment: dict[str, str] | None = None,
) -> Iterator[Served]:
    """``hasten run target`` with ``kind``'s options on a free port, until the block ends;
    ``environment`` is added to the server's."""
    port = free_port()
    argv = [sys.executable, "-m", "hasten", "run", target, "--port", str(port)]
    argv += [*KINDS[kind], *options]
    with log.open("wb") as output:
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            env={**os.environ, **(environment or {})},
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    served = Served(kind, port, process, log)
    try:
        deadline = time.monotonic() + READY_TIMEOUT
        while True:
            assert process.poll() is None, log.read_text(errors="replace")
            with contextlib.suppress(OSError):
                if exchange(port, NORMAL, wait=1.0).status == 200:
                    break
            assert time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.05)
        yield served
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


@pytest.fixture(scope="session", params=list(KINDS))
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Served]:
    """hasten on one kind of server, shared by the session."""
    kind: str = request.param
    log = tmp_path_factory.mktemp(f"hostile-{kind}") / "server.log"
    with hasten_run(kind, log) as running:
        yield running


@dataclass(frozen=True)
class Surfaces(Served):
    """``tests.servers.hostile.surfaces_app`` running: also the folder of its files (``site``) and
    its temporary folder, where its uploads spool."""

    site: Path
    spool: Path


@pytest.fixture(scope="session", params=list(KINDS))
def surfaces(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Surfaces]:
    """hasten serving the surfaces app on one kind of server, shared by the session."""
    kind: str = request.param
    folder = tmp_path_factory.mktemp(f"surfaces-{kind}")
    site, spool = folder / "files", folder / "spool"
    spool.mkdir()
    environment = {SITE_ENV: str(site), "TMPDIR": str(spool)}
    with hasten_run(
        kind, folder / "server.log", target=SURFACES, environment=environment
    ) as running:
        yield Surfaces(kind, running.port, running.process, running.log, site / "site", spool)
