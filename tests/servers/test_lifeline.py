"""No orphans, ever: however ``hasten run`` dies, no server worker, resource tracker or
process-pool worker outlives it, on Granian and uvicorn, with one worker and with several.
(``die_with_parent`` itself, in plain child processes: tests/running/test_lifeline.py.)"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from tests.servers.e2e.app import STARTING_MARKER_ENV, STARTUP_SECONDS_ENV

ROOT = Path(__file__).resolve().parents[2]
TARGET = "tests.servers.e2e.app:app"  # its process pool has 2 workers, in each server worker
START_TIMEOUT = 20.0
GONE_WITHIN = 15.0  # a worker stopping gracefully on a loaded CI machine can take seconds


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def expected_descendants(server: str, workers: int) -> int:
    """What ``hasten run`` has started once every worker is up: per server worker, its two
    pool workers and (Granian) a resource tracker; uvicorn spawns its workers itself, and so
    starts one tracker, in the main process."""
    if server == "granian":
        return workers * 4
    return 3 if workers == 1 else 1 + workers * 3


def living(processes: list[psutil.Process]) -> list[psutil.Process]:
    alive = []
    for process in processes:
        try:
            if process.status() != psutil.STATUS_ZOMBIE:
                alive.append(process)
        except psutil.NoSuchProcess:
            pass
    return alive


def answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


def wait_for_tree(process: subprocess.Popen[bytes], port: int, count: int, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", trust_env=False, timeout=2) as http:
        while time.monotonic() < deadline:
            assert process.poll() is None, log.read_text()
            children = psutil.Process(process.pid).children(recursive=True)
            if len(children) >= count:
                try:
                    if http.get("/offload/pid").status_code == 200:
                        return
                except httpx.TransportError:
                    pass
            time.sleep(0.1)
    pytest.fail(f"the server did not start {count} processes:\n{log.read_text()}")


@contextlib.contextmanager
def running(
    server: str,
    workers: int,
    log: Path,
    *options: str,
    env: dict[str, str] | None = None,
    target: str = TARGET,
) -> Iterator[tuple[subprocess.Popen[bytes], int]]:
    """``hasten run target`` on a free port, its output in ``log``; whatever is left of its
    process group is killed after the test."""
    port = free_port()
    argv = [sys.executable, "-m", "hasten", "run", target, "--server", server]
    argv += ["--workers", str(workers), "--port", str(port), *options]
    with log.open("wb") as output:
        process = subprocess.Popen(
            argv,
            cwd=ROOT,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **(env or {})},
        )
    try:
        yield process, port
    finally:
        with contextlib.suppress(ProcessLookupError):  # whatever is left, when the test fails
            os.killpg(process.pid, signal.SIGKILL)
        process.wait()


def wait_until(ready: Callable[[], bool], process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while not ready():
        assert process.poll() is None, log.read_text()
        assert time.monotonic() < deadline, log.read_text()
        time.sleep(0.05)


def left_after(
    process: subprocess.Popen[bytes], stop_signal: signal.Signals, within: float
) -> list[tuple[int, str]]:
    """Stop ``hasten run`` with ``stop_signal``: what of its processes still lives ``within``
    seconds after it ended."""
    tree = psutil.Process(process.pid).children(recursive=True)
    process.send_signal(stop_signal)
    process.wait(10)
    deadline = time.monotonic() + within
    while living(tree) and time.monotonic() < deadline:
        time.sleep(0.05)
    return [(item.pid, " ".join(item.cmdline())[:80]) for item in living(tree)]


def descendants(process: subprocess.Popen[bytes]) -> int:
    return len(psutil.Process(process.pid).children(recursive=True))


@pytest.mark.parametrize(
    ("server", "workers", "stop_signal"),
    [
        ("granian", 1, signal.SIGKILL),
        ("granian", 2, signal.SIGKILL),
        ("uvicorn", 1, signal.SIGKILL),
        ("uvicorn", 2, signal.SIGKILL),
        ("granian", 2, signal.SIGTERM),
        ("granian", 2, signal.SIGINT),
        ("uvicorn", 2, signal.SIGTERM),
        ("uvicorn", 2, signal.SIGINT),
    ],
    ids=lambda value: value.name if isinstance(value, signal.Signals) else str(value),
)
def test_no_process_outlives_hasten_run(
    server: str, workers: int, stop_signal: signal.Signals, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    with running(server, workers, log) as (process, port):
        wait_for_tree(process, port, expected_descendants(server, workers), log)
        assert left_after(process, stop_signal, GONE_WITHIN) == [], log.read_text()
        assert not answers(port)


@pytest.mark.parametrize(
    ("server", "workers", "options"),
    [
        ("granian", 1, ("--interface", "rsgi")),
        ("granian", 1, ("--interface", "asgi")),
        ("uvicorn", 2, ()),  # one uvicorn worker serves in hasten run's own process
    ],
)
def test_a_worker_still_starting_goes_with_hasten_run_killed_outright(
    server: str, workers: int, options: tuple[str, ...], tmp_path: Path
) -> None:
    # Its startup hook runs (its process pool started) and would take 60 s: the server would
    # take a stop asked for then only once the startup is over.
    log, starting = tmp_path / "server.log", tmp_path / "starting"
    env = {STARTING_MARKER_ENV: str(starting), STARTUP_SECONDS_ENV: "60"}
    with running(server, workers, log, *options, env=env) as (process, port):
        expected = expected_descendants(server, workers)
        wait_until(lambda: starting.exists() and descendants(process) >= expected, process, log)
        assert left_after(process, signal.SIGKILL, 5.0) == [], log.read_text()
        assert not answers(port)


@pytest.mark.parametrize(("server", "workers"), [("granian", 1), ("uvicorn", 2)])
def test_a_thread_the_app_left_running_keeps_no_worker_once_hasten_run_is_killed(
    server: str, workers: int, tmp_path: Path
) -> None:
    # The worker stops gently, then (Granian's) would wait for that thread for ever as it
    # exits: an orphan holding the listening socket, with no parent left to kill it.
    log = tmp_path / "server.log"
    with running(server, workers, log, target="tests.servers.e2e.threaded_app:app") as (
        process,
        port,
    ):
        wait_until(lambda: descendants(process) >= workers and answers(port), process, log)
        assert httpx.get(f"http://127.0.0.1:{port}/hello", trust_env=False).status_code == 200
        assert left_after(process, signal.SIGKILL, GONE_WITHIN) == [], log.read_text()
