"""Targets, and the servers that serve them.

A target is what a run measures: an app, written ``[LABEL=]MODULE:APP[@SERVER[/INTERFACE]]``
(e.g. ``fast=benchmarks.apps.x:app@uvicorn`` or ``pkg.main:app@granian/asgi``), which each round
serves afresh in a subprocess on a free 127.0.0.1 port; or the URL of a server already running,
``[LABEL=]http://HOST:PORT[/PATH]``.

Stopping a server sends SIGTERM, then SIGKILL to its whole process group after a timeout, and
kills any descendant still alive: no process outlives a run, Ctrl-C and exceptions included.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO
from urllib.parse import urlsplit

import psutil

from hasten._cli.servers import INTERFACES, Interface, ServerName

__all__ = [
    "HOST",
    "AppTarget",
    "Server",
    "ServerError",
    "Target",
    "TargetError",
    "UrlTarget",
    "command",
    "distinct_labels",
    "free_port",
    "launched",
    "parse_target",
    "probe",
    "stop",
]

_LABEL = re.compile(r"[\w.+-]+")
_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
HOST = "127.0.0.1"
STOP_TIMEOUT = 10.0
_POLL = 0.05
_LOG_LINES = 25


class TargetError(ValueError):
    """A target written in a form that cannot be served or reached."""


@dataclass(frozen=True, slots=True)
class AppTarget:
    """An app that each round serves afresh on a free port."""

    label: str
    app: str
    server: ServerName
    interface: Interface
    workers: int
    root: str | None = None  # the directory it is served from (None: this one)

    def describe(self) -> str:
        """``server/interface``, e.g. ``granian/rsgi``."""
        return f"{self.server}/{self.interface}"


@dataclass(frozen=True, slots=True)
class UrlTarget:
    """A server that is already running; its process tree is sampled only with a pid."""

    label: str
    host: str
    port: int
    path: str
    pid: int | None

    def describe(self) -> str:
        """``url``, with the pid when there is one."""
        return "url" if self.pid is None else f"url, pid {self.pid}"


Target = AppTarget | UrlTarget


def parse_target(
    text: str,
    *,
    server: ServerName = "granian",
    interface: Interface | None = None,
    workers: int = 1,
    pid: int | None = None,
) -> Target:
    """A target from its written form; the keywords apply where the text does not say."""
    label, _, spec = text.partition("=") if _has_label(text) else ("", "", text)
    if label and not _LABEL.fullmatch(label):
        raise TargetError(f"label {label!r} may hold only letters, digits and . _ + -")
    if spec.startswith(("http://", "https://")):
        return _url_target(label, spec, pid)
    app, _, how = spec.partition("@")
    module, colon, attribute = app.partition(":")
    if not (colon and _DOTTED.fullmatch(module) and _DOTTED.fullmatch(attribute)):
        raise TargetError(
            f"target {text!r} must look like [LABEL=]MODULE:APP[@SERVER[/INTERFACE]] "
            "or [LABEL=]http://HOST:PORT/PATH"
        )
    chosen_server, chosen_interface = _server_and_interface(how, server, interface)
    default_label = module.rpartition(".")[2] + ("" if attribute == "app" else f":{attribute}")
    return AppTarget(label or default_label, app, chosen_server, chosen_interface, workers)


def distinct_labels(targets: Sequence[Target]) -> list[Target]:
    """``targets`` with labels made unique: the server first, then a number, is appended."""
    result = list(targets)
    for suffix in (_server_suffix, _number_suffix):
        counts = Counter(target.label for target in result)
        seen: Counter[str] = Counter()
        for index, target in enumerate(result):
            if counts[target.label] > 1:
                seen[target.label] += 1
                label = target.label + suffix(target, seen[target.label])
                result[index] = dataclasses.replace(target, label=label)
    return result


def _has_label(text: str) -> bool:
    head, equals, _ = text.partition("=")
    return bool(equals) and ":" not in head and "/" not in head


def _server_and_interface(
    how: str, server: ServerName, interface: Interface | None
) -> tuple[ServerName, Interface]:
    name, _, wanted = how.partition("/")
    chosen = next((each for each in INTERFACES if each == (name or server)), None)
    if chosen is None:
        raise TargetError(f"server {name!r} is not one of {', '.join(INTERFACES)}")
    speaks = INTERFACES[chosen]
    if not wanted:
        return chosen, interface if interface in speaks else speaks[0]
    asked = next((each for each in speaks if each == wanted), None)
    if asked is None:
        raise TargetError(f"{chosen} speaks {' or '.join(speaks)}, not {wanted!r}")
    return chosen, asked


def _url_target(label: str, url: str, pid: int | None) -> UrlTarget:
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        raise TargetError(f"URL {url!r} must be http://HOST[:PORT][/PATH] (no https)")
    try:
        port = parts.port or 80
    except ValueError:
        raise TargetError(f"URL {url!r} has an invalid port") from None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return UrlTarget(label or f"{parts.hostname}:{port}", parts.hostname, port, path, pid)


def _server_suffix(target: Target, _: int) -> str:
    return f"@{target.describe()}" if isinstance(target, AppTarget) else ""


def _number_suffix(_: Target, number: int) -> str:
    return f"#{number}"


# Serving an app.
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
def launched(target: AppTarget, ready_timeout: float, port: int | None = None) -> Iterator[Server]:
    """Serve ``target`` (on ``port``, else a free one) until the block ends; enter once it
    answers HTTP."""
    if port is None:
        port = free_port()
    elif not _bindable(port):
        raise ServerError(f"{target.label}: port {port} is in use")
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            command(target, port),
            cwd=target.root,
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


def _bindable(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        # As the servers do, so that a port left in TIME_WAIT by the last round is free.
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((HOST, port))
        except OSError:
            return False
    return True


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
