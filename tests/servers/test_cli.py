"""``hasten run`` on real servers on 127.0.0.1: each server and interface serves the example
app and says how at startup, two workers start as two processes, and a killed worker is
replaced while the other keeps answering. (The command's arguments and its in-process paths:
tests/cli/test_cli.py.)"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.servers.running import (
    STARTUP_TIMEOUT,
    STOPPED_BY_SIGTERM,
    Server,
    children,
    client,
    hasten_run,
)

ROOT = Path(__file__).resolve().parents[2]
TARGET = "examples.hello:app"


@pytest.mark.parametrize(
    ("options", "how"),
    [
        ([], "granian, rsgi, 1 worker"),
        (["--interface", "asgi"], "granian, asgi, 1 worker"),
        (["--server", "uvicorn"], "uvicorn, asgi, 1 worker"),
        (["--workers", "2"], "granian, rsgi, 2 workers"),
    ],
    ids=["granian-rsgi", "granian-asgi", "uvicorn", "granian-2-workers"],
)
def test_run_serves_the_app(options: list[str], how: str, tmp_path: Path) -> None:
    log_path = tmp_path / "server.log"
    with hasten_run([TARGET, *options], ROOT, log_path) as server, client(server.url) as http:
        hello = http.get("/hello")
        item = http.get("/items/7", params={"q": "x"})

    assert hello.status_code == 200
    assert hello.json() == {"message": "hello"}
    assert item.json() == {"id": 7, "q": "x", "limit": 10}
    assert server.returncode in STOPPED_BY_SIGTERM, server.log
    assert f"hasten: serving {TARGET} on {server.url} ({how})\n" in server.log


def test_run_with_two_workers_starts_two_processes(tmp_path: Path) -> None:
    with hasten_run([TARGET, "--workers", "2"], ROOT, tmp_path / "server.log") as server:
        pass

    assert server.returncode in STOPPED_BY_SIGTERM, server.log
    assert "worker-2" in server.log  # Granian's own log names each worker it spawns


def server_pid(server: Server) -> int:
    assert server.pid is not None
    return server.pid


@pytest.mark.parametrize(
    "server_options", [[], ["--server", "uvicorn"]], ids=["granian", "uvicorn"]
)
def test_a_killed_worker_is_replaced_and_the_server_keeps_answering(
    server_options: list[str], tmp_path: Path
) -> None:
    options = [TARGET, "--workers", "2", *server_options]
    # Both workers serve before one is killed: the other, still starting, could refuse the
    # next connection (it did under load), which is not what this test is about.
    ready = "Application startup complete" if server_options else " runtime-1"
    with hasten_run(options, ROOT, tmp_path / "server.log") as server:
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while len(workers := children(server_pid(server))) < 2 or server.log.count(ready) < 2:
            assert time.monotonic() < deadline, server.log
            time.sleep(0.1)
        victim = min(workers)
        os.kill(victim, signal.SIGKILL)
        statuses = []
        for _ in range(20):
            with client(server.url) as http:  # a new connection each time
                statuses.append(http.get("/hello").status_code)
        deadline = time.monotonic() + 20
        while len(children(server_pid(server)) - {victim}) < 2:
            assert time.monotonic() < deadline, f"no worker replaced {victim}:\n{server.log}"
            time.sleep(0.2)
    assert statuses == [200] * 20
