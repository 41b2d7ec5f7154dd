"""examples/seeds.py behaves as its docstrings say, through both adapters."""

from __future__ import annotations

import logging
import os
import time

import pytest

from examples import seeds
from tests.conftest import ClientFactory


def test_every_seed_route_answers(serve: ClientFactory) -> None:
    client = serve(seeds.app)
    assert client.get("/wait").json() == {"duration": 0.05}
    assert client.get("/asyncwait").json() == {"duration": 0.05}
    assert client.get("/fib/10").json() == {"n": 10, "fibo": 55}
    assert client.get("/asyncfib/10").json() == {"n": 10, "fibo": 55}
    response = client.get("/fibo_sleep/20")
    assert response.json() == {"n": 20, "fibo": 6765, "slept": 0.006765}
    assert float(response.headers["x-process-time"]) > 0


def test_the_monitor_names_asyncfib(serve: ClientFactory, caplog: pytest.LogCaptureFixture) -> None:
    client = serve(seeds.app)
    client.get("/asyncfib/1")  # the app started, and its monitor watching, before the block
    with caplog.at_level(logging.WARNING, logger="hasten.monitor"):
        client.get("/asyncfib/32")  # half a second of CPU on the loop, or so
        time.sleep(0.2)
    messages = [r.getMessage() for r in caplog.records if r.name == "hasten.monitor"]
    assert any(m.startswith("GET /asyncfib/{n} blocked the event loop for ") for m in messages)
    assert seeds.app.stats()["blocked"]["GET /asyncfib/{n}"]["count"] >= 1


def test_runs_on() -> None:
    rows = {info.path: info.runs_on for info in seeds.app.describe_routes()}
    assert rows == {
        "/wait": "thread pool",
        "/asyncwait": "event loop",
        "/fib/{n}": "thread pool",
        "/asyncfib/{n}": "event loop",
        "/fibo_sleep/{n}": "process pool",
    }
    assert os.cpu_count()
