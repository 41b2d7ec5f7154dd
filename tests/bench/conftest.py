"""Fixtures for the bench tests: the repository as working directory, one shared server of
``tests.bench.app:app``, a mark in the environment that finds every server process started by a
test, so that a test can check that none survives; and measurements made up by hand."""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import psutil
import pytest

from hasten.bench.measurement import PERCENTILES, LoadResult, Measurement, TargetResult
from hasten.bench.targets import AppTarget, Server, UrlTarget, launched

ROOT = Path(__file__).resolve().parents[2]
APP = "tests.bench.app:app"
MARK = "HASTEN_BENCH_TEST_MARK"

FindMarked = Callable[[], list[psutil.Process]]


def app_target(label: str = "app", interface: str = "rsgi") -> AppTarget:
    return AppTarget(label, APP, "granian", "asgi" if interface == "asgi" else "rsgi", 1)


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    """Servers import ``tests.bench.app`` from the working directory: the repository root."""
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def served() -> Iterator[Server]:
    """``tests.bench.app:app`` on Granian RSGI, shared by a module's tests."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(ROOT)
        with launched(app_target(), ready_timeout=30) as server:
            yield server


def counted(server: Server) -> int:
    """How many requests ``/counted`` of the served app has answered so far."""
    url = f"http://{server.host}:{server.port}/count"
    count: int = httpx.get(url, trust_env=False).json()["count"]
    return count


@pytest.fixture
def marked(monkeypatch: pytest.MonkeyPatch) -> Iterator[FindMarked]:
    """Mark the environment of the processes this test starts; give a function listing the
    marked processes that are alive (this process excepted). Any still alive after the test
    (one that failed midway) is killed, so that it does not load the tests after it."""
    mark = uuid.uuid4().hex
    monkeypatch.setenv(MARK, mark)

    def find() -> list[psutil.Process]:
        found = []
        for process in psutil.process_iter():
            if process.pid == os.getpid():
                continue
            try:
                if process.environ().get(MARK) == mark and process.status() != "zombie":
                    found.append(process)
            except (psutil.NoSuchProcess, psutil.AccessDenied):
                continue
        return found

    yield find
    for process in find():
        with contextlib.suppress(psutil.NoSuchProcess):
            process.kill()


# Measurements made up by hand: fast (an app) and slow (a URL), three rounds each.
def load(rps: float, p50: float = 1.0, *, errors: int = 0, client: float = 0.5) -> LoadResult:
    return LoadResult(
        requests=int(rps * 2),
        seconds=2.0,
        errors=errors,
        non_2xx=0,
        latency_ms={p: p50 * (1 + index) for index, p in enumerate(PERCENTILES)},
        max_ms=p50 * 20,
        mean_ms=p50 * 1.2,
        client_cpu_seconds=client * 2,
        client_cores=1.0,
        statuses={200: int(rps * 2)},
    )


def measured(label: str, number: int, result: LoadResult, cpu: float | None = 1.0) -> Measurement:
    rss = None if cpu is None else 50 * 2**20
    return Measurement(
        label=label, round=number, load=result, server_cpu_seconds=cpu, server_peak_rss=rss
    )


def results() -> list[TargetResult]:
    fast = TargetResult(AppTarget("fast", "m:app", "granian", "rsgi", 1))
    slow = TargetResult(UrlTarget("slow", "127.0.0.1", 9, "/", None))
    rounds = [(1000, 1.0, 400), (3000, 1.2, 500), (2000, 0.8, 600)]  # fast's req/s and p50, slow's
    for number, (a, p50, b) in enumerate(rounds, start=1):
        fast.rounds.append(measured("fast", number, load(a, p50, client=0.95)))
        slow.rounds.append(measured("slow", number, load(b, 2.0, errors=3), cpu=None))
    return [fast, slow]
