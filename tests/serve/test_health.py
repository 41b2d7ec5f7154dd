"""Liveness, readiness and the live stats endpoint: through both adapters, and interleaved
with startup and shutdown."""

from __future__ import annotations

import asyncio
import time

import pytest

from hasten import App
from tests.asgi_calls import asgi_get
from tests.conftest import ClientFactory


def build_app(**settings: object) -> App:
    app = App(**settings)  # type: ignore[arg-type]

    @app.get("/hello")
    async def hello() -> str:
        return "hello"

    @app.get("/blocking")
    async def blocking() -> str:
        time.sleep(0.15)
        return "blocked"

    return app


def test_health_and_readiness_are_opt_in_and_renamable(serve: ClientFactory) -> None:
    client = serve(build_app(health_url="/live", ready_url="/ready"))
    alive = client.get("/live")
    assert (alive.status_code, alive.json()) == (200, {"status": "alive"})
    ready = client.get("/ready")
    assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
    assert client.get("/healthz").status_code == 404
    off = serve(build_app())
    assert [off.get(path).status_code for path in ("/healthz", "/readyz")] == [404, 404]


def test_a_health_url_that_a_route_takes_fails_at_startup() -> None:
    app = build_app(health_url="/hello")
    with pytest.raises(ValueError, match="both catch GET requests to '/hello'"):
        asyncio.run(app.startup())


def test_readiness_is_503_once_shutdown_begins_while_requests_finish() -> None:
    app = build_app(ready_url="/readyz")
    release = asyncio.Event()

    @app.get("/slow")
    async def slow() -> str:
        await release.wait()
        return "done"

    async def scenario() -> list[tuple[int, bytes]]:
        await app.startup()
        seen = [await asgi_get(app, "/readyz")]
        in_flight = asyncio.ensure_future(asgi_get(app, "/slow"))
        await asyncio.sleep(0.01)
        stopping = asyncio.ensure_future(app.shutdown())
        await asyncio.sleep(0.01)
        seen.append(await asgi_get(app, "/readyz"))  # draining: /slow is still in flight
        assert not in_flight.done()
        release.set()
        seen.append(await in_flight)
        await stopping
        return seen

    assert asyncio.run(scenario()) == [
        (200, b'{"status":"ready"}'),
        (503, b'{"detail":"The server is shutting down"}'),
        (200, b'"done"'),
    ]


def test_readiness_is_503_while_the_app_starts() -> None:
    app = build_app(ready_url="/readyz")
    started = asyncio.Event()

    @app.on_startup
    async def slow_start() -> None:
        await started.wait()

    async def scenario() -> list[tuple[int, bytes]]:
        first = asyncio.ensure_future(asgi_get(app, "/hello"))  # starts the app
        await asyncio.sleep(0.01)
        seen = [await asgi_get(app, "/readyz")]
        started.set()
        seen.append(await first)
        seen.append(await asgi_get(app, "/readyz"))
        await app.shutdown()
        return seen

    assert asyncio.run(scenario()) == [
        (503, b'{"detail":"The app is starting"}'),
        (200, b'"hello"'),
        (200, b'{"status":"ready"}'),
    ]


@pytest.mark.usefixtures("no_gc_pauses")
def test_live_stats_need_the_token(serve: ClientFactory) -> None:
    client = serve(build_app(stats_token="s3cret", block_threshold=0.05))
    client.get("/hello")
    client.get("/hello")
    client.get("/nowhere")
    client.get("/blocking")
    time.sleep(0.1)  # the monitor reports the stall at its next heartbeat
    missing = client.get("/_hasten/stats")
    assert (missing.status_code, missing.headers["www-authenticate"]) == (401, "Bearer")
    wrong = client.get("/_hasten/stats", headers={"authorization": "Bearer guess"})
    assert wrong.status_code == 403
    response = client.get("/_hasten/stats", headers={"authorization": "Bearer s3cret"})
    assert response.status_code == 200
    body = response.json()
    assert body["routes"] == [
        {"method": "GET", "route": "/_hasten/stats", "requests": 2, "statuses": {"4xx": 2}},
        {"method": "GET", "route": "/blocking", "requests": 1, "statuses": {"2xx": 1}},
        {"method": "GET", "route": "/hello", "requests": 2, "statuses": {"2xx": 2}},
        {"method": "GET", "route": "<unmatched>", "requests": 1, "statuses": {"4xx": 1}},
    ]
    assert body["blocked"]["GET /blocking"]["count"] == 1
    assert (body["in_flight"], body["refused"]) == (1, 0)


def test_the_stats_token_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HASTEN_STATS_TOKEN", "from-env")
    assert App().settings.stats_token == "from-env"
    monkeypatch.delenv("HASTEN_STATS_TOKEN")
    assert App().settings.stats_token is None


def test_without_a_token_there_are_no_stats(serve: ClientFactory) -> None:
    assert serve(build_app()).get("/_hasten/stats").status_code == 404
