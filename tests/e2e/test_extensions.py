"""An unmodified FastAPI app with prometheus-fastapi-instrumentator, slowapi and
asgi-correlation-id, as their READMEs show them, under ``hasten run --as-fastapi`` on Granian
(RSGI and ASGI) and uvicorn: each extension's effect is there, on the wire.

Before the switch each was silent or broken on hasten: the rate limit let every request
through, the metrics recorded nothing (or the app did not import), the correlation header's
middleware raised on every request.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import local_client, run_server

pytestmark = pytest.mark.server

TARGET = "tests.e2e.extensions_app:app"
KINDS = ["hasten-run", "hasten-run-asgi", "hasten-run-uvicorn"]


@pytest.fixture(scope="module", params=KINDS)
def served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[httpx.Client, Path]]:
    kind: str = request.param
    log = tmp_path_factory.mktemp(kind) / "server.log"
    with (
        run_server(kind, log, target=TARGET, options=["--as-fastapi"]) as running,
        local_client(running.base_url) as client,
    ):
        yield client, log


def test_the_switch_is_said_at_startup(served: tuple[httpx.Client, Path]) -> None:
    _, log = served
    assert "fastapi and starlette served by hasten" in log.read_text()


def test_slowapis_default_limit_is_enforced(served: tuple[httpx.Client, Path]) -> None:
    client, _ = served
    answers = [client.get("/items/7") for _ in range(4)]
    assert [(r.status_code, r.content) for r in answers] == [
        (200, b'{"id":7}'),
        (200, b'{"id":7}'),
        (200, b'{"id":7}'),
        (429, b'{"error":"Rate limit exceeded: 3 per 1 minute"}'),
    ]


def test_slowapis_decorator_limit_is_enforced(served: tuple[httpx.Client, Path]) -> None:
    client, _ = served
    answers = [client.get("/search", params={"q": "x"}) for _ in range(3)]
    assert [(r.status_code, r.content) for r in answers] == [
        (200, b'{"q":"x"}'),
        (200, b'{"q":"x"}'),
        (429, b'{"error":"Rate limit exceeded: 2 per 1 minute"}'),
    ]


def test_the_instrumentator_records_each_request_under_its_route(
    served: tuple[httpx.Client, Path],
) -> None:
    client, _ = served
    for _ in range(2):
        assert client.get("/counted").status_code == 200
    metrics = client.get("/metrics")
    assert metrics.status_code == 200
    lines = metrics.text.splitlines()
    assert 'http_requests_total{handler="/counted",method="GET",status="2xx"} 2.0' in lines


def test_the_correlation_id_is_taken_and_sent_back(served: tuple[httpx.Client, Path]) -> None:
    client, _ = served
    given = uuid.uuid4().hex
    response = client.get("/hello", headers={"X-Request-ID": given})
    assert (response.status_code, response.headers["x-request-id"]) == (200, given)
    made = client.get("/hello").headers["x-request-id"]
    assert uuid.UUID(made).version == 4
