"""Metrics, readiness and live stats on real servers."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hasten._observing.metrics import FLUSH_SECONDS
from hasten.cli import main
from tests.observing.test_metrics import samples
from tests.servers.e2e.conftest import (
    HOST,
    ROOT,
    free_port,
    local_client,
    run_server,
    stop,
    wait_until_ready,
)
from tests.servers.e2e.observed_app import STATS_TOKEN

pytestmark = pytest.mark.server

TARGET = "tests.servers.e2e.observed_app:app"


@pytest.fixture(scope="module")
def granian_rsgi(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("observed") / "server.log"
    with run_server("granian-rsgi", log, target=TARGET) as running:
        yield running.base_url


def test_metrics_count_the_requests_served(granian_rsgi: str) -> None:
    with local_client(granian_rsgi) as http:
        for number in range(5):
            assert http.get(f"/items/{number}").status_code == 200
        assert http.get("/healthz").json() == {"status": "alive"}
        assert http.get("/readyz").json() == {"status": "ready"}
        response = http.get("/metrics")
    assert response.status_code == 200
    found = samples(response.text)
    assert found['http_requests_total{handler="/items/{id}",method="GET",status="2xx"}'] == 5
    assert found['http_requests_total{handler="/readyz",method="GET",status="2xx"}'] == 1
    assert found["http_requests_inprogress{}"] == 1


def test_routes_live_reads_the_running_server(
    granian_rsgi: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with local_client(granian_rsgi) as http:
        assert http.get("/sleep", params={"seconds": "0"}).status_code == 200
        assert http.get("/_hasten/stats").status_code == 401
    assert main(["routes", "--live", granian_rsgi, "--token", STATS_TOKEN]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["METHOD", "ROUTE", "REQUESTS", "2XX", "3XX", "4XX", "5XX", "STALLS"]
    assert ["GET", "/sleep", "1", "1", "0", "0", "0", "0"] in [line.split() for line in lines]
    assert main(["routes", "--live", granian_rsgi, "--token", "wrong"]) == 2
    assert "answered 403 Forbidden" in capsys.readouterr().err


# ``hasten run`` on each server, on its default loop: uvloop, which the dev dependencies
# install, as FastAPI's standard extras do.
@pytest.mark.parametrize("kind", ["hasten-run", "hasten-run-asgi", "hasten-run-uvicorn"])
def test_readiness_is_503_from_sigterm_until_requests_in_flight_finish(
    kind: str, tmp_path: Path
) -> None:
    with (
        run_server(kind, tmp_path / "server.log", target=TARGET) as running,
        local_client(running.base_url) as http,
        ThreadPoolExecutor(max_workers=1) as sender,
    ):
        assert http.get("/readyz").status_code == 200
        in_flight = sender.submit(http.get, "/sleep", params={"seconds": "1.5"})
        time.sleep(0.3)
        running.process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        with local_client(running.base_url) as fresh:
            ready = fresh.get("/readyz")
        assert not in_flight.done()
        assert (ready.status_code, ready.json()) == (503, {"detail": "The server is shutting down"})
        assert ready.headers["retry-after"] == "1"
        finished = in_flight.result(timeout=10)
        assert (finished.status_code, finished.json()) == (200, {"slept": 1.5})


def test_plain_granian_on_uvloop_cannot_drain_and_says_so(tmp_path: Path) -> None:
    """``granian`` itself on uvloop keeps its signal handler out of reach (``hasten run``
    notes it as Granian puts it): the app says that readiness will not turn 503 first, nor
    the stop end by shutdown_timeout."""
    log = tmp_path / "server.log"
    with run_server("granian-rsgi", log, target=TARGET):
        pass
    assert (
        "SIGTERM cannot be taken ahead of the server on uvloop, which keeps its signal handlers "
        "out of reach: shutdown_timeout will not bound the stop, nor will readiness turn 503 "
        "before the server stops listening (serve with hasten run, or on asyncio's loop)"
    ) in log.read_text().splitlines()


def test_hasten_run_with_workers_sums_their_metrics_and_live_stats(tmp_path: Path) -> None:
    port = free_port()
    base_url = f"http://{HOST}:{port}"
    log = tmp_path / "server.log"
    environment = dict(os.environ)
    environment.pop("PROMETHEUS_MULTIPROC_DIR", None)
    environment.pop("HASTEN_STATS_DIR", None)
    command = [sys.executable, "-m", "hasten", "run", TARGET, "--port", str(port), "--workers", "2"]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=ROOT, env=environment, stdout=output, stderr=subprocess.STDOUT
        )
    try:
        wait_until_ready(process, base_url, log)
        requests = 40
        pids = set()
        for _ in range(requests):
            # A new connection each time, so that both workers take some.
            with local_client(base_url) as once:
                pids.add(once.get("/pid").json())
        time.sleep(FLUSH_SECONDS * 1.5)  # each worker writes its counts every FLUSH_SECONDS
        with local_client(base_url) as http:
            found = samples(http.get("/metrics").text)
            authorization = {"authorization": f"Bearer {STATS_TOKEN}"}
            live = http.get("/_hasten/stats", headers=authorization).json()
    finally:
        assert stop(process), log.read_text(errors="replace")
    assert len(pids) == 2  # both workers served: the counts below are their sums
    assert found['http_requests_total{handler="/pid",method="GET",status="2xx"}'] == requests
    assert live["workers"] == 2
    [served] = [route for route in live["routes"] if route["route"] == "/pid"]
    assert (served["requests"], served["statuses"]) == (requests, {"2xx": requests})
    assert process.returncode in (0, -signal.SIGTERM)
