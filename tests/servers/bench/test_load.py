"""Both load generators, for real, against a served app: a scenario for a second, each status
counted, one connection at a time, a dead port, an exact count. (The HTTP client's parsing
in-process: tests/bench/test_load.py.)"""

from __future__ import annotations

import pytest

from hasten.bench.load import (
    BuiltinGenerator,
    LoadGenerator,
    RequestSpec,
    WrkGenerator,
    build_table,
    find_wrk,
)
from hasten.bench.measurement import PERCENTILES, LoadResult
from hasten.bench.targets import Server, free_port
from tests.bench.conftest import counted

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


@pytest.mark.parametrize(("requests", "connections"), [(1000, 8), (5, 8), (1, 1)])
def test_the_builtin_client_sends_exactly_the_count(
    served: Server, requests: int, connections: int
) -> None:
    table = build_table([RequestSpec("/counted")], f"{served.host}:{served.port}")
    before = counted(served)
    # A millisecond of duration: were it used, far fewer requests would be sent.
    result = BuiltinGenerator().run(
        table, served.host, served.port, 0.001, connections, requests=requests
    )
    assert counted(served) - before == requests
    assert (result.requests, result.errors, result.statuses) == (requests, 0, {200: requests})
    check_latencies(result)
