"""Real servers on 127.0.0.1 serving ``tests.servers.e2e.app:app``: Granian (RSGI, ASGI) and
uvicorn.

``server`` is one running server per kind for the whole session; ``start_server`` starts a
private one, for tests that need to watch a server stop.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.servers.e2e.app import SHUTDOWN_MARKER_ENV

ROOT = Path(__file__).resolve().parents[3]
APP_TARGET = "tests.servers.e2e.app:app"
HOST = "127.0.0.1"
READY_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0
CLEAN_EXITS = (0, -signal.SIGTERM, -signal.SIGINT)
PG_SH = ROOT / "benchmarks" / "tfb" / "pg.sh"
HAS_POSTGRES = bool(glob.glob("/usr/lib/postgresql/*/bin/initdb")) or "PG_BIN" in os.environ

SERVERS: dict[str, list[str]] = {
    "granian-rsgi": [sys.executable, "-m", "granian", "--interface", "rsgi"],
    "granian-asgi": [sys.executable, "-m", "granian", "--interface", "asgi"],
    "uvicorn": [sys.executable, "-m", "uvicorn"],
}
KINDS = list(SERVERS)
# ``hasten run`` as the README serves the examples, started by name only (Granian: RSGI, or
# ASGI for an app with WebSocket routes); with an interface asked for; and on uvicorn.
HASTEN_RUN = [sys.executable, "-m", "hasten", "run"]
COMMANDS = {
    **SERVERS,
    "hasten-run": HASTEN_RUN,
    "hasten-run-rsgi": [*HASTEN_RUN, "--interface", "rsgi"],
    "hasten-run-asgi": [*HASTEN_RUN, "--interface", "asgi"],
    "hasten-run-uvicorn": [*HASTEN_RUN, "--server", "uvicorn"],
}


@dataclass(frozen=True)
class RunningServer:
    base_url: str
    process: subprocess.Popen[bytes]


StartServer = Callable[..., AbstractContextManager[RunningServer]]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def local_client(base_url: str, timeout: float = 10.0) -> httpx.Client:
    """An httpx client for ``base_url`` that ignores proxy settings: traffic stays on loopback."""
    return httpx.Client(base_url=base_url, timeout=timeout, trust_env=False)


def wait_until_ready(
    process: subprocess.Popen[bytes], base_url: str, log: Path, ready: str = "/hello"
) -> None:
    """Poll ``ready`` until it answers 200; fail with the server's output if it never does."""
    deadline = time.monotonic() + READY_TIMEOUT
    last = "no answer"
    with local_client(base_url, timeout=1.0) as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(
                    f"{process.args!r} exited with {process.returncode} before answering:\n"
                    + log.read_text(errors="replace")
                )
            try:
                response = client.get(ready)
            except httpx.TransportError as exc:
                last = repr(exc)
            else:
                if response.status_code == 200:
                    return
                last = f"{response.status_code} {response.text!r}"
            time.sleep(0.05)
    pytest.fail(
        f"{process.args!r} did not answer 200 within {READY_TIMEOUT} s (last: {last}):\n"
        + log.read_text(errors="replace")
    )


def stop(process: subprocess.Popen[bytes]) -> bool:
    """SIGTERM, then wait; SIGKILL if it will not stop. True when it stopped on SIGTERM."""
    if process.poll() is not None:
        return True
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(STOP_TIMEOUT)
        return False
    return True


@contextlib.contextmanager
def run_server(
    kind: str,
    log: Path,
    env: Mapping[str, str] | None = None,
    target: str = APP_TARGET,
    ready: str = "/hello",
    options: Sequence[str] = (),
) -> Iterator[RunningServer]:
    """Serve the e2e app (or ``target``) with ``kind`` (and its ``options``) on a free port
    until the block ends, then stop it; it is ready once ``ready`` answers 200.

    Leaving the block asserts that the server stopped on SIGTERM within STOP_TIMEOUT, with a
    clean status: 0, or the SIGTERM it re-raised after shutting down (uvicorn does).
    """
    port = free_port()
    command = [*COMMANDS[kind], *options, "--host", HOST, "--port", str(port), target]
    environment = {**os.environ}
    environment.pop(SHUTDOWN_MARKER_ENV, None)
    environment.update(env or {})
    with log.open("wb") as log_file:
        process = subprocess.Popen(
            command, cwd=ROOT, env=environment, stdout=log_file, stderr=subprocess.STDOUT
        )
    base_url = f"http://{HOST}:{port}"
    try:
        wait_until_ready(process, base_url, log, ready)
        yield RunningServer(base_url, process)
    finally:
        graceful = stop(process)
    output = log.read_text(errors="replace")
    assert process.returncode is not None, f"{kind} is still running"
    assert graceful, f"{kind} ignored SIGTERM and was killed:\n{output}"
    assert process.returncode in CLEAN_EXITS, f"{kind} exited with {process.returncode}:\n{output}"


@pytest.fixture(scope="session", params=KINDS)
def server_kind(request: pytest.FixtureRequest) -> str:
    """Which server serves this test: one of KINDS."""
    kind: str = request.param
    return kind


@pytest.fixture(scope="session")
def server(server_kind: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of the e2e app served by one kind of server, shared by the session."""
    log = tmp_path_factory.mktemp(server_kind) / "server.log"
    with run_server(server_kind, log) as running:
        yield running.base_url


@pytest.fixture(scope="session")
def bare_server(server_kind: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of ``tests.servers.e2e.bare_app:app`` (no middleware), one per kind of
    server."""
    log = tmp_path_factory.mktemp(f"bare-{server_kind}") / "server.log"
    with run_server(server_kind, log, target="tests.servers.e2e.bare_app:app") as running:
        yield running.base_url


@pytest.fixture(scope="session")
def streams_server(server_kind: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of ``tests.servers.e2e.streams_app:app``, one per kind of server."""
    log = tmp_path_factory.mktemp(f"streams-{server_kind}") / "server.log"
    with run_server(server_kind, log, target="tests.servers.e2e.streams_app:app") as running:
        yield running.base_url


@pytest.fixture
def client(server: str) -> Iterator[httpx.Client]:
    with local_client(server) as http:
        yield http


@pytest.fixture
def start_server(tmp_path: Path) -> StartServer:
    """``with start_server(kind, env={...}) as running:`` runs a private server."""

    def start(
        kind: str, env: Mapping[str, str] | None = None
    ) -> AbstractContextManager[RunningServer]:
        return run_server(kind, tmp_path / f"{kind}.log", env)

    return start


@pytest.fixture(scope="session")
def database_url() -> Iterator[str]:
    """A PostgreSQL of the session's own (the TFB test types' and the recipes'): its folder and
    port, started by benchmarks/tfb/pg.sh, stopped after; skipped where it is not installed."""
    if not HAS_POSTGRES:
        pytest.skip("PostgreSQL is not installed (apt-get install postgresql)")
    folder = tempfile.mkdtemp(prefix="hasten-tfb-pg-")  # in /tmp: the postgres user reaches it
    env = {**os.environ, "PG_DIR": folder, "PGPORT": str(free_port())}
    try:
        started = subprocess.run(
            [str(PG_SH), "start"], check=False, env=env, capture_output=True, text=True, timeout=120
        )
        assert started.returncode == 0, started.stdout + started.stderr
        url = started.stdout.strip().rpartition("DATABASE_URL=")[2]
        assert url.startswith("postgresql://benchmarkdbuser:benchmarkdbpass@127.0.0.1:")
        again = subprocess.run(
            [str(PG_SH), "start"], check=False, env=env, capture_output=True, text=True
        )
        assert again.stdout.strip() == f"DATABASE_URL={url}"  # idempotent
        yield url
    finally:
        subprocess.run([str(PG_SH), "stop"], check=False, env=env, capture_output=True, timeout=60)
        shutil.rmtree(folder, ignore_errors=True)
    assert not Path(folder).exists()
