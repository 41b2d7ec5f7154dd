"""The blocking monitor, through both adapters: a stalled event loop is blamed on its route."""

from __future__ import annotations

import asyncio
import gc
import logging
import threading
import time

import pytest

from hasten import App, Request, Response
from hasten._running.monitor import LoopMonitor, _watches
from hasten.types import CallNext
from tests.conftest import ClientFactory

# Every test here counts the loop's stalls: none from the garbage collector.
pytestmark = pytest.mark.usefixtures("no_gc_pauses")


def make_app(threshold: float | None = 0.05) -> App:
    app = App(block_threshold=threshold)

    @app.get("/asyncfib/{n}")
    async def asyncfib(n: int) -> int:
        time.sleep(0.2)  # stands for CPU-bound work in an async def
        return n

    @app.get("/polite")
    async def polite() -> str:
        await asyncio.sleep(0.2)
        return "ok"

    @app.get("/threaded")
    def threaded() -> str:
        time.sleep(0.2)
        return "ok"

    return app


def test_a_blocking_async_handler_is_named(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app()
    client = serve(app)
    with caplog.at_level(logging.WARNING, logger="hasten.monitor"):
        assert client.get("/asyncfib/20").status_code == 200
        time.sleep(0.1)  # the report comes with the loop's next heartbeat
    [record] = [r for r in caplog.records if r.name == "hasten.monitor"]
    message = record.getMessage()
    assert message.startswith("GET /asyncfib/{n} blocked the event loop for ")
    assert message.endswith(" ms: make it a plain def, or offload='process'")
    blocked_ms = float(message.split(" for ")[1].split(" ms")[0])
    assert 150 <= blocked_ms < 1000
    stats = app.stats()["blocked"]["GET /asyncfib/{n}"]
    assert stats["count"] == 1
    assert stats["max_ms"] == stats["total_ms"] >= 150
    rows = {info.path: info.blocked for info in app.describe_routes()}
    assert rows["/asyncfib/{n}"] is not None
    assert rows["/asyncfib/{n}"].count == 1
    assert rows["/polite"] is None


def test_awaiting_and_threads_do_not_count(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app()
    client = serve(app)
    with caplog.at_level(logging.WARNING, logger="hasten.monitor"):
        client.get("/polite")
        client.get("/threaded")
        time.sleep(0.1)
    assert [r for r in caplog.records if r.name == "hasten.monitor"] == []
    assert app.stats()["blocked"] == {}


def test_blocking_middleware_is_named(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app()

    @app.middleware
    async def slow_auth(request: Request, call_next: CallNext) -> Response:
        time.sleep(0.15)
        return await call_next(request)

    client = serve(app)
    with caplog.at_level(logging.WARNING, logger="hasten.monitor"):
        client.get("/polite")
        time.sleep(0.1)
    [label] = app.stats()["blocked"]
    assert label.startswith("middleware ")
    assert "slow_auth" in label


def test_monitor_can_be_turned_off(serve: ClientFactory) -> None:
    app = make_app(threshold=None)
    client = serve(app)
    client.get("/asyncfib/1")
    assert app.stats()["blocked"] == {}
    assert app.runtime is not None
    assert app.runtime.monitor is None


def test_a_stall_under_a_mount_is_logged_once_by_the_app_that_stalled(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    parent = make_app()
    child = App(block_threshold=0.05)

    @child.get("/crunch")
    async def crunch() -> str:
        time.sleep(0.2)  # CPU-bound work in an async def, in the mounted app
        return "ok"

    parent.mount("/sub", child)
    client = serve(parent)
    with caplog.at_level(logging.WARNING, logger="hasten.monitor"):
        assert client.get("/sub/crunch").status_code == 200
        time.sleep(0.1)
        assert client.get("/asyncfib/4").status_code == 200
        time.sleep(0.1)
    messages = [r.getMessage() for r in caplog.records if r.name == "hasten.monitor"]
    assert [message.split(" blocked ")[0] for message in messages] == [
        "GET /crunch",
        "GET /asyncfib/{n}",
    ]
    assert list(child.stats()["blocked"]) == ["GET /crunch"]
    assert list(parent.stats()["blocked"]) == ["GET /asyncfib/{n}"]


class SlowToFinalize:
    """Garbage in a reference cycle whose finalizer takes 200 ms: the collector that frees it
    stalls whatever thread it runs on for that long."""

    def __init__(self) -> None:
        self.cycle = self

    def __del__(self) -> None:
        time.sleep(0.2)


def test_a_stall_the_garbage_collector_makes_is_its_own_not_the_routes(
    serve: ClientFactory, caplog: pytest.LogCaptureFixture
) -> None:
    app = make_app()

    @app.get("/collects")
    async def collects() -> str:
        SlowToFinalize()
        gc.collect()  # as an allocation past gc's threshold would, on the loop's thread
        return "ok"

    client = serve(app)
    with caplog.at_level(logging.WARNING, logger="hasten.monitor"):
        assert client.get("/collects").text == '"ok"'
        time.sleep(0.1)
        assert client.get("/asyncfib/1").status_code == 200  # a route's stall is still its own
        time.sleep(0.1)
    messages = [r.getMessage() for r in caplog.records if r.name == "hasten.monitor"]
    assert [message.split(" ms")[0].rsplit(" ", 1)[0] for message in messages] == [
        "The event loop was blocked for",
        "GET /asyncfib/{n} blocked the event loop for",
    ]
    assert messages[0].endswith(
        " ms by the garbage collector (a collection, with the finalizers it ran): gc.freeze()"
        " after startup keeps long-lived objects out of it"
    )
    assert list(app.stats()["blocked"]) == ["the garbage collector", "GET /asyncfib/{n}"]


def test_the_collector_is_timed_only_while_an_app_watches() -> None:
    before = list(gc.callbacks)
    monitor = LoopMonitor(0.05, {})

    async def watch() -> int:
        monitor.start()
        watching = len(gc.callbacks)
        monitor.stop()
        return watching

    assert asyncio.run(watch()) == len(before) + 1
    assert gc.callbacks == before


@pytest.mark.parametrize("ending", ["thread ends", "loop closes"])
def test_a_watchdog_whose_loop_is_gone_ends_without_its_app_stopping(ending: str) -> None:
    # An app never stopped (a TestClient left open) must not leave a watchdog waking 20 times
    # a second for the rest of the process: hundreds of them stalled FastAPI's suite.
    monitor = LoopMonitor(0.02, {})
    loop = asyncio.new_event_loop()

    async def start() -> threading.Thread | None:
        monitor.start()
        return monitor._watch._watchdog if monitor._watch else None

    def serve() -> None:
        watchdogs.append(loop.run_until_complete(start()))
        if ending == "loop closes":
            loop.close()

    watchdogs: list[threading.Thread | None] = []
    timing = len(gc.callbacks)
    thread = threading.Thread(target=serve)
    if ending == "loop closes":
        serve()
    else:
        thread.start()
        thread.join()
    [watchdog] = watchdogs
    assert watchdog is not None
    watchdog.join(timeout=2)
    assert (watchdog.is_alive(), loop in _watches, len(gc.callbacks)) == (False, False, timing)
    monitor.stop()  # what an app's shutdown would still do: nothing left to stop
    loop.close()
