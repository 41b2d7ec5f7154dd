"""Every behaviour test runs through both protocol adapters: the ``interface`` fixture."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from hasten import App
from hasten.servers import Interface
from hasten.testing import TestClient

ClientFactory = Callable[[App], TestClient]


@pytest.fixture(params=["rsgi", "asgi"])
def interface(request: pytest.FixtureRequest) -> Interface:
    value: Interface = request.param
    return value


@pytest.fixture
def serve(interface: Interface) -> Iterator[ClientFactory]:
    """``serve(app)`` returns a TestClient on the current adapter, closed after the test."""
    clients: list[TestClient] = []

    def factory(app: App) -> TestClient:
        client = TestClient(app, interface=interface)
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.close()
