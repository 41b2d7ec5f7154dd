"""``hasten run`` as a user runs it, for the tests of real servers: a subprocess on a free
127.0.0.1 port, waited for until it answers, stopped with SIGTERM (its whole session killed
if it hangs), its log kept."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

STARTUP_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0
# uvicorn re-raises SIGTERM after its graceful shutdown; Granian returns normally.
STOPPED_BY_SIGTERM = {0, -signal.SIGTERM}


@dataclass
class Server:
    """A ``hasten run`` subprocess: its URL while it runs; its log and exit code once stopped."""

    url: str
    log_path: Path
    returncode: int | None = None
    pid: int | None = None  # of the `hasten run` process, which the server runs in

    @property
    def log(self) -> str:
        return self.log_path.read_text()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def client(url: str, timeout: float = 5.0) -> httpx.Client:
    # trust_env=False: no proxy from the environment, the traffic stays on loopback.
    return httpx.Client(base_url=url, trust_env=False, timeout=timeout)


@contextlib.contextmanager
def hasten_run(
    options: list[str],
    cwd: Path,
    log_path: Path,
    environment: Mapping[str, str] | None = None,
    startup_timeout: float = STARTUP_TIMEOUT,
) -> Iterator[Server]:
    """Start ``hasten run`` on a free port (``environment`` added to its own), wait until it
    answers, SIGTERM it on exit."""
    port = free_port()
    server = Server(f"http://127.0.0.1:{port}", log_path)
    argv = [sys.executable, "-m", "hasten", "run", *options, "--port", str(port)]
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env={**os.environ, **(environment or {})},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        server.pid = process.pid
        try:
            wait_until_answering(process, server, startup_timeout)
            yield server
        finally:
            server.returncode = stop(process)


def wait_until_answering(
    process: subprocess.Popen[bytes], server: Server, timeout: float = STARTUP_TIMEOUT
) -> None:
    deadline = time.monotonic() + timeout
    with client(server.url) as http:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                pytest.fail(f"the server exited with {process.returncode}:\n{server.log}")
            try:
                http.get("/")
            except httpx.TransportError:
                time.sleep(0.05)
            else:
                return
    pytest.fail(f"the server did not answer within {timeout} s:\n{server.log}")


def stop(process: subprocess.Popen[bytes]) -> int:
    """SIGTERM the server, as a user would; if it hangs, kill its whole session, workers too."""
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return process.wait()


def children(pid: int) -> set[int]:
    """The live processes whose parent is ``pid``."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields_after_name = stat.read_text().rsplit(") ", 1)[1].split()
        except (FileNotFoundError, ProcessLookupError, IndexError):
            continue
        if int(fields_after_name[1]) == pid and fields_after_name[0] != "Z":
            found.add(int(stat.parent.name))
    return found
