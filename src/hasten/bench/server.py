"""A server subprocess: started on a free 127.0.0.1 port, awaited until it answers, stopped.

Stopping sends SIGTERM, then SIGKILL to the server's whole process group after a timeout, and
kills any descendant still alive: no process outlives a run, Ctrl-C and exceptions included.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

import psutil

from .target import AppTarget

__all__ = ["HOST", "Server", "ServerError", "command", "free_port", "launched", "probe", "stop"]

HOST = "127.0.0.1"
STOP_TIMEOUT = 10.0
_POLL = 0.05
_LOG_LINES = 25


class ServerError(RuntimeError):
    """The server could not be started, or did not answer."""


@dataclass(frozen=True, slots=True)
class Server:
    """A running server: its process and address."""

    process: subprocess.Popen[bytes]
    host: str
    port: int

    @property
    def pid(self) -> int:
        """The server's main process id."""
        return self.process.pid


def free_port(host: str = HOST) -> int:
    """A port that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        port: int = sock.getsockname()[1]
        return port


def command(target: AppTarget, port: int) -> list[str]:
    """The command line that serves ``target`` on ``port``."""
    where = ["--host", HOST, "--port", str(port), "--workers", str(target.workers)]
    if target.server == "uvicorn":
        quiet = ["--no-access-log", "--log-level", "warning"]
        return [sys.executable, "-m", "uvicorn", *where, *quiet, target.app]
    return [sys.executable, "-m", "granian", "--interface", target.interface, *where, target.app]


@contextlib.contextmanager
def launched(target: AppTarget, ready_timeout: float) -> Iterator[Server]:
    """Serve ``target`` until the block ends; enter once it answers HTTP."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command(target, port),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C reaches us only: we stop the server in order
        )
        try:
            server = Server(process, HOST, port)
            _wait_until_ready(server, ready_timeout, log, target.label)
            yield server
        finally:
            stop(process)


def probe(host: str, port: int, raw: bytes, timeout: float = 2.0) -> int | None:
    """Send one raw request on a fresh connection; the response's status, or None."""
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            sock.sendall(raw)
            head = b""
            while len(head) < 12 and (chunk := sock.recv(1024)):
                head += chunk
    except OSError:
        return None
    if head.startswith(b"HTTP/1.") and head[9:12].isdigit():
        return int(head[9:12])
    return None


def stop(process: subprocess.Popen[bytes], timeout: float = STOP_TIMEOUT) -> None:
    """SIGTERM; SIGKILL to the process group if it is still running after ``timeout``; then
    SIGKILL to any descendant left behind."""
    family = _descendants(process.pid)
    try:
        if process.poll() is None:
            process.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout)
    finally:
        if process.poll() is None:  # it would not stop, or we were interrupted
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        _kill(family)


def _wait_until_ready(server: Server, timeout: float, log: IO[bytes], label: str) -> None:
    raw = f"GET / HTTP/1.1\r\nHost: {server.host}:{server.port}\r\nConnection: close\r\n\r\n"
    deadline = time.monotonic() + timeout
    while probe(server.host, server.port, raw.encode(), timeout=1.0) is None:
        if server.process.poll() is not None:
            raise ServerError(
                f"{label}: the server exited with {server.process.returncode} before answering:\n"
                + _tail(log)
            )
        if time.monotonic() > deadline:
            raise ServerError(f"{label}: no answer within {timeout:g} s:\n" + _tail(log))
        time.sleep(_POLL)


def _tail(log: IO[bytes]) -> str:
    log.seek(0)
    lines = log.read().decode(errors="replace").splitlines()
    return "\n".join(lines[-_LOG_LINES:])


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def _kill(processes: list[psutil.Process]) -> None:
    # psutil checks each process's identity first: a recycled pid is never signalled.
    alive = [process for process in processes if process.is_running()]
    for process in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()
    psutil.wait_procs(alive, timeout=STOP_TIMEOUT)
