"""Overload, through both adapters: 503 + Retry-After past the limits, 504 past a deadline."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from hasten import App
from tests.asgi_calls import asgi_get
from tests.conftest import ClientFactory


def gated_app(max_in_flight: int = 1000) -> tuple[App, threading.Event]:
    app = App(max_in_flight=max_in_flight)
    release = threading.Event()

    @app.get("/wait")
    def wait() -> str:
        release.wait(5)
        return "done"

    @app.get("/limited", max_concurrency=1)
    def limited() -> str:
        release.wait(5)
        return "done"

    @app.get("/fast")
    async def fast() -> str:
        return "fast"

    return app, release


def test_app_wide_limit_sheds_with_503(serve: ClientFactory) -> None:
    app, release = gated_app(max_in_flight=2)
    client = serve(app)
    with ThreadPoolExecutor(2) as senders:
        held = [senders.submit(client.get, "/wait") for _ in range(2)]
        time.sleep(0.3)  # both now hold a slot
        refused = client.get("/fast")
        release.set()
        assert [future.result().status_code for future in held] == [200, 200]
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "1"
    assert refused.json() == {"detail": "The server is at its limit of 2 requests in flight"}
    assert client.get("/fast").status_code == 200  # the gate reopens
    assert app.stats()["refused"] == 1
    assert app.stats()["in_flight"] == 0


def test_route_limit_sheds_only_that_route(serve: ClientFactory) -> None:
    app, release = gated_app()
    client = serve(app)
    with ThreadPoolExecutor(1) as senders:
        held = senders.submit(client.get, "/limited")
        time.sleep(0.3)
        refused = client.get("/limited")
        other = client.get("/fast")
        release.set()
        assert held.result().status_code == 200
    assert refused.status_code == 503
    assert refused.headers["retry-after"] == "1"
    assert refused.json() == {"detail": "GET /limited is at its limit of 1 concurrent requests"}
    assert other.status_code == 200


def test_timeout_is_504(serve: ClientFactory) -> None:
    app = App()

    @app.get("/slow", timeout=0.05)
    async def slow() -> str:
        await asyncio.sleep(1)
        return "late"

    @app.get("/slow-thread", timeout=0.05)
    def slow_thread() -> str:
        time.sleep(0.3)
        return "late"

    @app.get("/quick", timeout=1)
    async def quick() -> str:
        return "quick"

    @app.get("/own-timeout", timeout=5)
    async def own_timeout() -> str:
        raise TimeoutError("the handler's own")

    client = serve(app, raise_server_exceptions=False)
    for path in ("/slow", "/slow-thread"):
        response = client.get(path)
        assert response.status_code == 504
        assert response.json() == {"detail": "The handler did not finish within 0.05 s"}
    assert client.get("/quick").json() == "quick"
    assert client.get("/own-timeout").status_code == 500


def test_requests_during_shutdown_are_refused() -> None:
    app = App(shutdown_timeout=2)
    entered = asyncio.Event()

    @app.get("/slow")
    async def slow() -> str:
        entered.set()
        await asyncio.sleep(0.2)
        return "finished"

    async def scenario() -> tuple[tuple[int, bytes], tuple[int, bytes]]:
        await app.startup()
        in_flight = asyncio.create_task(asgi_get(app, "/slow"))
        await entered.wait()
        stopping = asyncio.create_task(app.shutdown())
        await asyncio.sleep(0.05)
        late = await asgi_get(app, "/slow")
        finished = await in_flight
        await stopping
        return finished, late

    finished, late = asyncio.run(scenario())
    assert finished == (200, b'"finished"')  # the request in flight was drained, not cut
    assert late == (503, b'{"detail":"The server is shutting down"}')


def test_shutdown_cuts_what_is_still_in_flight_at_its_timeout(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """At ``shutdown_timeout`` what is still in flight is named by route and cut: a request
    whose response had not begun is answered 503, then the shutdown hooks run."""
    app = App(shutdown_timeout=0.1)
    stopped: list[bool] = []
    app.on_shutdown(lambda: stopped.append(True))

    @app.get("/forever")
    async def forever() -> None:
        await asyncio.sleep(10)

    async def scenario() -> tuple[float, tuple[int, bytes]]:
        await app.startup()
        stuck = asyncio.create_task(asgi_get(app, "/forever"))
        await asyncio.sleep(0.05)
        began = time.perf_counter()
        await app.shutdown()
        return time.perf_counter() - began, await stuck

    with caplog.at_level(logging.WARNING, logger="hasten.error"):
        elapsed, answer = asyncio.run(scenario())
    assert 0.05 <= elapsed < 1
    assert answer == (503, b'{"detail":"The server is shutting down"}')
    assert [record.getMessage() for record in caplog.records] == [
        "Stopping: still in flight after shutdown_timeout (0.1 s), now closed: GET /forever (1)"
    ]
    assert stopped == [True]
