"""Live stats summed over workers: each worker writes its own to ``$HASTEN_STATS_DIR``, and
the one that answers ``stats_url`` adds the others'. Through both adapters; tests/servers/e2e runs
``hasten run --workers 2``."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import msgspec
import pytest

from hasten import App
from hasten._observing.stats import FLUSH_SECONDS
from hasten._settings import STATS_DIRECTORY_ENV
from tests.conftest import ClientFactory

TOKEN = {"authorization": "Bearer s3cret"}


def build_app() -> App:
    # The monitor off: a stall of the garbage collector (200 ms late in a run) would add to
    # the blocked sums these tests check.
    app = App(stats_token="s3cret", block_threshold=None)

    @app.get("/hello")
    async def hello() -> str:
        return "hello"

    return app


def other_worker(in_flight: int) -> dict[str, Any]:
    return {
        "in_flight": in_flight,
        "refused": 2,
        "blocked": {"GET /hello": {"count": 1, "total_ms": 150.0, "max_ms": 150.0}},
        "routes": [
            {"method": "GET", "route": "/hello", "requests": 5, "statuses": {"2xx": 4, "5xx": 1}},
            {"method": "POST", "route": "/only/there", "requests": 1, "statuses": {"2xx": 1}},
        ],
        "workers": 1,
    }


def finished_pid() -> int:
    process = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], check=True, capture_output=True
    )
    return int(process.stdout)


def test_the_answer_sums_every_workers_stats(
    serve: ClientFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(STATS_DIRECTORY_ENV, str(tmp_path))
    running, gone = os.getppid(), finished_pid()
    (tmp_path / f"{running}.json").write_bytes(msgspec.json.encode(other_worker(in_flight=3)))
    (tmp_path / f"{gone}.json").write_bytes(msgspec.json.encode(other_worker(in_flight=7)))
    (tmp_path / "garbage.json").write_bytes(b"half a fi")  # never a 500
    client = serve(build_app())
    client.get("/hello")
    body = client.get("/_hasten/stats", headers=TOKEN).json()
    assert body["workers"] == 3
    assert body["in_flight"] == 1 + 3  # this request, and the running worker's: not the gone
    assert body["refused"] == 4
    assert body["blocked"] == {"GET /hello": {"count": 2, "total_ms": 300.0, "max_ms": 150.0}}
    assert body["routes"] == [
        {"method": "GET", "route": "/hello", "requests": 11, "statuses": {"2xx": 9, "5xx": 2}},
        {"method": "POST", "route": "/only/there", "requests": 2, "statuses": {"2xx": 2}},
    ]


def test_each_worker_writes_its_stats_every_second(
    serve: ClientFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(STATS_DIRECTORY_ENV, str(tmp_path))
    client = serve(build_app())
    client.get("/hello")
    time.sleep(FLUSH_SECONDS * 1.5)
    written = msgspec.json.decode((tmp_path / f"{os.getpid()}.json").read_bytes())
    assert written["routes"] == [
        {"method": "GET", "route": "/hello", "requests": 1, "statuses": {"2xx": 1}}
    ]
    assert list(tmp_path.iterdir()) == [tmp_path / f"{os.getpid()}.json"]


def test_without_a_directory_the_stats_are_this_workers(serve: ClientFactory) -> None:
    client = serve(build_app())
    client.get("/hello")
    body = client.get("/_hasten/stats", headers=TOKEN).json()
    assert body["workers"] == 1
    assert body["routes"] == [
        {"method": "GET", "route": "/hello", "requests": 1, "statuses": {"2xx": 1}}
    ]
