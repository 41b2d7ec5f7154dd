"""Unmodified FastAPI apps with the extensions production apps add, as their READMEs show
them, under ``hasten run --as-fastapi`` on Granian (RSGI and ASGI) and uvicorn: each
extension's effect is there, on the wire. prometheus-fastapi-instrumentator, slowapi and
asgi-correlation-id in one app; sqladmin, sentry-sdk (reporting to a local stand-in for
Sentry), starlette-exporter and starlette-context in another.

Before the switch each was silent or broken on hasten: the rate limit let every request
through, the metrics recorded nothing (or the app did not import), the correlation header's
middleware raised on every request.
"""

from __future__ import annotations

import gzip
import http.server
import json
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.servers.e2e.conftest import local_client, run_server

pytestmark = pytest.mark.server

TARGET = "tests.servers.e2e.extensions_app:app"
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


ADMIN_TARGET = "tests.servers.e2e.admin_app:app"


class Envelopes(http.server.ThreadingHTTPServer):
    """Sentry's ingestion, as far as a test needs it: every envelope posted, kept."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _EnvelopeHandler)
        self.events: list[dict[str, Any]] = []

    def event_where(self, found: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            for event in list(self.events):
                if found(event):
                    return event
            time.sleep(0.05)
        raise AssertionError(f"no such event among {self.events}")


class _EnvelopeHandler(http.server.BaseHTTPRequestHandler):
    server: Envelopes

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        if self.headers.get("content-encoding") == "gzip":
            body = gzip.decompress(body)
        elif self.headers.get("content-encoding") == "br":
            import brotli  # type: ignore[import-not-found,unused-ignore]

            body = brotli.decompress(body)
        lines = body.split(b"\n")
        # An envelope: its header, then each item's header and payload, a line each.
        for header, payload in zip(lines[1::2], lines[2::2], strict=False):
            if json.loads(header).get("type") in ("event", "transaction"):
                self.server.events.append(json.loads(payload))
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module", params=KINDS)
def admin_served(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[httpx.Client, Envelopes]]:
    kind: str = request.param
    folder = tmp_path_factory.mktemp(f"admin-{kind}")
    envelopes = Envelopes()
    threading.Thread(target=envelopes.serve_forever, daemon=True).start()
    env = {
        "SENTRY_DSN": f"http://public@127.0.0.1:{envelopes.server_port}/1",
        "ADMIN_DB": str(folder / "heroes.db"),
    }
    try:
        with (
            run_server(
                kind, folder / "server.log", env, target=ADMIN_TARGET, options=["--as-fastapi"]
            ) as running,
            local_client(running.base_url) as client,
        ):
            yield client, envelopes
    finally:
        envelopes.shutdown()
        envelopes.server_close()


def test_sqladmins_pages_are_served(admin_served: tuple[httpx.Client, Envelopes]) -> None:
    client, _ = admin_served
    listed = client.get("/admin/hero/list")
    assert listed.status_code == 200
    assert listed.headers["content-type"] == "text/html; charset=utf-8"
    assert '<a href="http://127.0.0.1:' in listed.text  # its links, made by url_for
    assert "Deadpond" in listed.text
    details = client.get("/admin/hero/details/1")
    assert (details.status_code, "Deadpond" in details.text) == (200, True)
    style = client.get("/admin/statics/css/main.css")
    assert (style.status_code, style.headers["content-type"]) == (200, "text/css; charset=utf-8")


def test_sentry_reports_an_error_under_its_route(
    admin_served: tuple[httpx.Client, Envelopes],
) -> None:
    client, envelopes = admin_served
    code = uuid.uuid4().hex[:8]
    response = client.get(f"/boom/{code}")
    assert (response.status_code, response.text) == (500, "Internal Server Error")
    event = envelopes.event_where(
        lambda event: (
            event.get("exception", {}).get("values", [{}])[-1].get("value") == f"boom {code}"
        )
    )
    assert (event["exception"]["values"][-1]["type"], event["transaction"]) == (
        "RuntimeError",
        "/boom/{code}",
    )
    assert event["request"]["url"].endswith(f"/boom/{code}")


def test_starlette_exporter_counts_requests_under_their_route(
    admin_served: tuple[httpx.Client, Envelopes],
) -> None:
    client, _ = admin_served
    for hero_id in (1, 2):
        assert client.get(f"/heroes/{hero_id}").status_code == 200
    lines = client.get("/metrics").text.splitlines()
    wanted = (
        'starlette_requests_total{app_name="starlette",method="GET",'
        'path="/heroes/{hero_id}",status_code="200"} 2.0'
    )
    assert wanted in lines


def test_starlette_context_sees_the_request_id(
    admin_served: tuple[httpx.Client, Envelopes],
) -> None:
    client, _ = admin_served
    given = uuid.uuid4().hex
    response = client.get("/heroes/3", headers={"X-Request-ID": given})
    assert (response.status_code, response.json()) == (200, {"id": 3, "request_id": given})
    assert response.headers["x-request-id"] == given
