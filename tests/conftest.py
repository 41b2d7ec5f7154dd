"""Every behaviour test runs through both protocol adapters: the ``interface`` fixture.

The tests mirror the packages of src/hasten (tests/serve, tests/http, tests/params, ...); the
ones that start a real server, a browser or ``hasten run`` are all under tests/servers/, each
marked ``server`` as collected (one marked elsewhere is refused). ``--part in-process`` runs
only the others (what ``scripts/quick`` runs, on both cores), ``--part servers`` only the
marked ones, which keep their timings one at a time (``scripts/test`` runs both); ``-m
server`` selects them too.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

import pytest

from hasten._cli.servers import Interface
from hasten.app import Starlette
from hasten.testing import TestClient

TESTS = Path(__file__).resolve().parent
SERVERS = TESTS / "servers"  # the real-server tests, each marked ``server`` as collected


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--part",
        choices=("in-process", "servers"),
        help="only the in-process tests, or only the others (real servers, browsers)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.is_relative_to(SERVERS):
            item.add_marker(pytest.mark.server)
        elif item.get_closest_marker("server") is not None:
            raise pytest.UsageError(
                f"{item.nodeid} needs a real server: its place is tests/servers/"
            )
    part = config.getoption("--part")
    if part is None:
        return
    wanted = part == "in-process"
    kept: list[pytest.Item] = []
    left: list[pytest.Item] = []
    for item in items:
        (kept if _in_process(item) == wanted else left).append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        items[:] = kept


def _in_process(item: pytest.Item) -> bool:
    return item.get_closest_marker("server") is None


class ClientFactory(Protocol):
    """``serve(app, **options)``: a TestClient (with those options) on the current adapter."""

    def __call__(self, app: Starlette, **options: Any) -> TestClient: ...


@pytest.fixture(params=["rsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    value: Interface = request.param
    return value


@pytest.fixture
def serve(interface: Interface) -> Iterator[ClientFactory]:
    """``serve(app)`` returns a TestClient on the current adapter, closed after the test.
    A test of what the app sends on the wire for a failure or a redirect asks for it as it
    is: ``serve(app, raise_server_exceptions=False)``, ``serve(app, follow_redirects=False)``.
    """
    clients: list[TestClient] = []

    def factory(app: Starlette, **options: Any) -> TestClient:
        client = TestClient(app, interface=interface, **options)
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.close()


@pytest.fixture
def no_gc_pauses() -> Iterator[None]:
    """The garbage collector off for a test that counts the event loop's stalls: late in a
    run, a full collection of the suite's heap stalls the loop for 200 ms by itself, which the
    blocking monitor blames on whatever code runs then (in CI, GZipMiddleware, for 211 ms)."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture(scope="module")
def scheduler() -> Iterator[str]:
    """The address of a Dask LocalCluster's scheduler (one worker process), for the module."""
    distributed = pytest.importorskip("distributed")
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=2, processes=True, host="127.0.0.1", dashboard_address=":0"
    )
    try:
        yield cluster.scheduler_address
    finally:
        cluster.close()
