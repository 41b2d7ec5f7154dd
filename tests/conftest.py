"""Every behaviour test runs through both protocol adapters: the ``interface`` fixture."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import pytest

from hasten import App
from hasten.servers import Interface
from hasten.testing import TestClient


class ClientFactory(Protocol):
    """``serve(app, **options)``: a TestClient (with those options) on the current adapter."""

    def __call__(self, app: App, **options: Any) -> TestClient: ...


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

    def factory(app: App, **options: Any) -> TestClient:
        client = TestClient(app, interface=interface, **options)
        clients.append(client)
        return client

    yield factory
    for client in clients:
        client.close()
