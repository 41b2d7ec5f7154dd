"""Prometheus metrics at metrics_url: through both adapters."""

from __future__ import annotations

import asyncio
import re
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from hasten import App
from tests.conftest import ClientFactory


def samples(text: str) -> dict[str, float]:
    """``name{label="value",...}`` -> value, labels sorted, for every sample."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            labels = ",".join(f'{key}="{value}"' for key, value in sorted(sample.labels.items()))
            found[f"{sample.name}{{{labels}}}"] = sample.value
    return found


def build_app(**settings: object) -> App:
    app = App(**{"metrics_url": "/metrics", **settings})  # type: ignore[arg-type]

    @app.get("/hello")
    async def hello() -> str:
        return "hello"

    @app.get("/items/{id}")
    def item(id: int) -> dict[str, int]:
        return {"id": id}

    @app.get("/late", timeout=0.05)
    async def late() -> str:
        await asyncio.sleep(1)
        return "never"

    @app.get("/blocking")
    async def blocking() -> str:
        time.sleep(0.15)
        return "blocked"

    return app


def test_requests_are_counted_by_route_method_and_status_class(serve: ClientFactory) -> None:
    client = serve(build_app())
    for number in range(3):
        client.get(f"/items/{number}")
    client.get("/hello")
    client.get("/nowhere")
    client.post("/hello")
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain; version=")
    found = samples(response.text)
    assert found['http_requests_total{handler="/items/{id}",method="GET",status="2xx"}'] == 3
    assert found['http_requests_total{handler="/hello",method="GET",status="2xx"}'] == 1
    assert found['http_requests_total{handler="<unmatched>",method="GET",status="4xx"}'] == 1
    assert found['http_requests_total{handler="<unmatched>",method="POST",status="4xx"}'] == 1
    assert found['http_request_duration_seconds_count{handler="/items/{id}",method="GET"}'] == 3
    # The scrape itself is in progress while it is being served.
    assert found["http_requests_inprogress{}"] == 1
    assert found['hasten_pool_queue_depth{pool="thread"}'] == 0
    assert not any("/items/0" in name for name in found)


def test_timeouts_and_overload_are_counted_as_shed(serve: ClientFactory) -> None:
    app = build_app(max_in_flight=1)

    @app.get("/wait")
    async def wait() -> str:
        await asyncio.sleep(0.3)
        return "waited"

    client = serve(app)
    assert client.get("/late").status_code == 504
    with ThreadPoolExecutor(1) as sender:
        waiting = sender.submit(client.get, "/wait")
        time.sleep(0.1)
        assert client.get("/hello").status_code == 503
        assert waiting.result().status_code == 200
    found = samples(client.get("/metrics").text)
    assert found['hasten_requests_shed_total{handler="/late",method="GET",status="504"}'] == 1
    assert found['http_requests_total{handler="/late",method="GET",status="5xx"}'] == 1
    assert found['hasten_requests_shed_total{handler="/hello",method="GET",status="503"}'] == 1


@pytest.mark.usefixtures("no_gc_pauses")
def test_event_loop_stalls_are_counted_by_route(serve: ClientFactory) -> None:
    client = serve(build_app(block_threshold=0.05))
    assert client.get("/blocking").json() == "blocked"
    time.sleep(0.1)  # the monitor reports the stall at its next heartbeat
    found = samples(client.get("/metrics").text)
    assert found['hasten_event_loop_stalls_total{route="GET /blocking"}'] == 1
    assert found['hasten_event_loop_stall_seconds_total{route="GET /blocking"}'] >= 0.1


def test_the_path_is_a_setting_and_metrics_are_off_by_default(serve: ClientFactory) -> None:
    assert serve(build_app(metrics_url="/internal/metrics")).get("/metrics").status_code == 404
    off = App()
    assert serve(off).get("/metrics").status_code == 404


def test_add_metrics_turns_them_on(serve: ClientFactory) -> None:
    app = App()
    app.add_metrics("/prometheus")
    client = serve(app)
    text = client.get("/prometheus").text
    assert re.search(r"^# TYPE http_requests_total counter$", text, re.MULTILINE)


def test_the_histogram_holds_every_request_in_its_buckets_and_sum(serve: ClientFactory) -> None:
    """hasten adds to the histogram's private cells (prometheus-client has no public call that
    adds many observations): the exposition must show what was added."""
    client = serve(build_app())
    for _ in range(5):
        client.get("/hello")
    found = samples(client.get("/metrics").text)
    series = 'handler="/hello",method="GET"'
    assert found[f"http_request_duration_seconds_count{{{series}}}"] == 5
    inf = 'handler="/hello",le="+Inf",method="GET"'  # labels sorted
    assert found[f"http_request_duration_seconds_bucket{{{inf}}}"] == 5
    assert 0 < found[f"http_request_duration_seconds_sum{{{series}}}"] < 5


def test_each_scrape_adds_only_the_requests_since_the_last(serve: ClientFactory) -> None:
    """The tallies count from the start; a scrape adds what they gained since the one
    before, bucket by bucket, so that nothing is counted twice."""
    client = serve(build_app())
    for _ in range(3):
        client.get("/hello")
    assert client.get("/blocking").json() == "blocked"  # 0.15 s: above 0.1, within 0.25
    client.get("/metrics")
    for _ in range(2):
        client.get("/hello")
    found = samples(client.get("/metrics").text)
    hello, blocking = 'handler="/hello",method="GET"', 'handler="/blocking",method="GET"'
    assert found[f'http_requests_total{{{hello},status="2xx"}}'] == 5
    assert found[f"http_request_duration_seconds_count{{{hello}}}"] == 5
    bucket = 'http_request_duration_seconds_bucket{{handler="{}",le="{}",method="GET"}}'
    assert found[bucket.format("/hello", "+Inf")] == 5
    assert found[f"http_request_duration_seconds_count{{{blocking}}}"] == 1
    assert found[bucket.format("/blocking", "0.1")] == 0
    assert found[bucket.format("/blocking", "0.25")] == 1
    assert 0.15 <= found[f"http_request_duration_seconds_sum{{{blocking}}}"] < 0.25


def test_metrics_and_the_live_stats_count_each_request_once(serve: ClientFactory) -> None:
    client = serve(build_app(stats_token="s3cret"))
    for _ in range(3):
        client.get("/hello")
    client.get("/nowhere")
    stats = client.get("/_hasten/stats", headers={"authorization": "Bearer s3cret"}).json()
    assert [route for route in stats["routes"] if route["method"] == "GET"] == [
        {"method": "GET", "route": "/hello", "requests": 3, "statuses": {"2xx": 3}},
        {"method": "GET", "route": "<unmatched>", "requests": 1, "statuses": {"4xx": 1}},
    ]
    found = samples(client.get("/metrics").text)
    assert found['http_requests_total{handler="/hello",method="GET",status="2xx"}'] == 3
    assert found['http_requests_total{handler="<unmatched>",method="GET",status="4xx"}'] == 1


def test_an_app_with_metrics_refuses_to_start_when_prometheus_client_moved_its_cells(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import prometheus_client

    monkeypatch.delattr(prometheus_client.Histogram, "_upper_bounds", raising=False)
    original = prometheus_client.Histogram._metric_init

    def without_bounds(self: prometheus_client.Histogram) -> None:
        original(self)
        del self._upper_bounds

    monkeypatch.setattr(prometheus_client.Histogram, "_metric_init", without_bounds)
    with pytest.raises(RuntimeError, match="changed the Histogram internals"):
        asyncio.run(build_app().startup())


def test_a_response_is_counted_by_the_status_it_sent(serve: ClientFactory) -> None:
    """Plain data is counted by its route's status without an Exchange; a Response by the
    status that went out, which a mounted app decides as it sends."""
    app = build_app()

    @app.post("/created", status=201)
    async def created() -> dict[str, bool]:
        return {"created": True}

    async def teapot(scope: dict[str, object], receive: object, send: Any) -> None:
        await send({"type": "http.response.start", "status": 418, "headers": []})
        await send({"type": "http.response.body", "body": b"short and stout"})

    app.mount("/tea", teapot)
    client = serve(app)
    assert client.post("/created").status_code == 201
    response = client.get("/tea/pot")
    assert (response.status_code, response.text) == (418, "short and stout")
    found = samples(client.get("/metrics").text)
    assert found['http_requests_total{handler="/created",method="POST",status="2xx"}'] == 1
    assert [name for name in found if name.startswith("http_requests_total") and "tea" in name] == [
        'http_requests_total{handler="/tea/{mount_path:path}",method="GET",status="4xx"}'
    ]
