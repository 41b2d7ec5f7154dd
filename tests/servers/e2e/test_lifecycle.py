"""Startup and shutdown under each real server: hooks run, in-flight requests finish."""

from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.servers.e2e.app import SHUTDOWN_MARKER_ENV
from tests.servers.e2e.conftest import KINDS, StartServer, local_client

pytestmark = pytest.mark.server


def test_startup_hook_ran_before_requests(client: httpx.Client) -> None:
    assert client.get("/started").json() == {"started": True}


@pytest.mark.parametrize("kind", KINDS)
def test_sigterm_runs_shutdown_hooks(start_server: StartServer, tmp_path: Path, kind: str) -> None:
    marker = tmp_path / "shutdown-marker"
    with start_server(kind, env={SHUTDOWN_MARKER_ENV: str(marker)}) as running:
        with local_client(running.base_url) as http:
            assert http.get("/started").json() == {"started": True}
        assert not marker.exists()
    assert marker.read_text().startswith("shutdown ")


def wait_for_sleepers(http: httpx.Client, count: int, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while http.get("/sleepers").json()["sleeping"] != count:
        assert time.monotonic() < deadline, f"never saw {count} sleeping handler(s)"
        time.sleep(0.01)


@pytest.mark.parametrize("kind", KINDS)
def test_sigterm_lets_in_flight_requests_finish(start_server: StartServer, kind: str) -> None:
    with (
        start_server(kind) as running,
        local_client(running.base_url) as http,
        ThreadPoolExecutor(max_workers=1) as pool,
    ):
        in_flight = pool.submit(http.get, "/sleep", params={"seconds": "0.5"})
        wait_for_sleepers(http, 1)
        running.process.send_signal(signal.SIGTERM)
        response = in_flight.result(timeout=10)
        assert response.status_code == 200
        assert response.json() == {"slept": 0.5}


LOAD = 40
# Long enough that all LOAD handlers are asleep at once even on a loaded machine, where
# opening 40 connections and threads can take longer than half a second.
LOADED_SLEEP = "2"


@pytest.mark.parametrize("kind", KINDS)
def test_sigterm_under_load_fails_no_request(start_server: StartServer, kind: str) -> None:
    with start_server(kind) as running, local_client(running.base_url) as http:
        limits = httpx.Limits(max_connections=LOAD)
        with (
            httpx.Client(base_url=running.base_url, limits=limits, trust_env=False) as loaded,
            ThreadPoolExecutor(max_workers=LOAD) as senders,
        ):
            requests = [
                senders.submit(loaded.get, "/sleep", params={"seconds": LOADED_SLEEP}, timeout=15)
                for _ in range(LOAD)
            ]
            wait_for_sleepers(http, LOAD, timeout=10)
            running.process.send_signal(signal.SIGTERM)
            statuses = [request.result(timeout=15).status_code for request in requests]
    assert statuses == [200] * LOAD


def process_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except FileNotFoundError:
        return False
    return state != "Z"


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
@pytest.mark.parametrize("kind", KINDS)
def test_stopping_the_server_leaves_no_worker_process(
    start_server: StartServer, kind: str, stop_signal: signal.Signals
) -> None:
    with start_server(kind) as running, local_client(running.base_url) as http:
        pids = {http.get("/offload/pid").json() for _ in range(8)}
        assert pids
        assert all(process_alive(pid) for pid in pids)
        running.process.send_signal(stop_signal)
        running.process.wait(10)
    deadline = time.monotonic() + 5
    while any(process_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [pid for pid in pids if process_alive(pid)] == []
