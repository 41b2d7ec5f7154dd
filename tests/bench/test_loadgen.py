"""Both load generators against a real hasten app on Granian (RSGI), for a second each."""

from __future__ import annotations

import pytest

from hasten.bench.loadgen import BuiltinGenerator
from hasten.bench.measurement import LoadGenerator, LoadResult
from hasten.bench.scenario import RequestSpec, build_table
from hasten.bench.server import Server, free_port
from hasten.bench.stats import PERCENTILES
from hasten.bench.wrk import WrkGenerator, find_wrk

pytestmark = pytest.mark.server

SCENARIO = [
    RequestSpec("/hello", weight=2),
    RequestSpec("/items/{1..1000}", weight=2),
    RequestSpec("/echo", "POST", body=b"{1..9}"),
    RequestSpec("/missing"),
]


@pytest.fixture(params=["builtin", "wrk"])
def generator(request: pytest.FixtureRequest) -> LoadGenerator:
    if request.param == "builtin":
        return BuiltinGenerator()
    wrk = find_wrk()
    if wrk is None:
        pytest.skip("wrk is not installed")
    return WrkGenerator(wrk, threads=2)


def check_latencies(result: LoadResult) -> None:
    curve = [result.latency_ms[p] for p in PERCENTILES]
    assert curve == sorted(curve)
    assert 0 < curve[0] <= result.max_ms < 5_000
    assert 0 < result.mean_ms <= result.max_ms


def test_a_scenario_for_one_second(served: Server, generator: LoadGenerator) -> None:
    table = build_table(SCENARIO, f"{served.host}:{served.port}")
    result = generator.run(table, served.host, served.port, 1.0, 8)
    assert result.requests > 200
    assert result.errors == 0
    # one request kind in six is a 404: both generators count it
    assert result.non_2xx == pytest.approx(result.requests / 6, rel=0.25)
    assert 0.9 < result.seconds < 2
    assert result.rps == result.requests / result.seconds
    assert result.client_cpu_seconds > 0
    assert 0 < result.client_share < 1.5
    check_latencies(result)


def test_the_builtin_client_counts_each_status(served: Server) -> None:
    table = build_table(SCENARIO, f"{served.host}:{served.port}")
    result = BuiltinGenerator().run(table, served.host, served.port, 0.5, 4)
    assert set(result.statuses) == {200, 404}
    assert sum(result.statuses.values()) == result.requests
    assert result.non_2xx == result.statuses[404]


def test_one_connection_one_request_at_a_time(served: Server, generator: LoadGenerator) -> None:
    table = build_table([RequestSpec("/hello")], f"{served.host}:{served.port}")
    result = generator.run(table, served.host, served.port, 1.0, 1)
    assert result.requests > 100
    assert (result.errors, result.non_2xx) == (0, 0)
    check_latencies(result)


def test_a_dead_port_is_counted_as_errors() -> None:
    port = free_port()
    table = build_table([RequestSpec("/")], f"127.0.0.1:{port}")
    result = BuiltinGenerator().run(table, "127.0.0.1", port, 0.3, 2)
    assert result.requests == 0
    assert result.errors > 0
    assert result.latency_ms[50.0] == 0
