"""Mounted ASGI apps and ASGI middleware on real servers: a Starlette and a FastAPI app
under a prefix, an app wrapped in Starlette's GZipMiddleware (under Granian RSGI, through
the RSGI -> ASGI bridge), and a hasten app mounted in another (or served by a route with
middleware of its own), started and stopped with it."""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from pathlib import Path

import pytest
from websockets.sync.client import connect

from tests.servers.e2e.conftest import KINDS, local_client, run_server
from tests.servers.e2e.mounted_app import EVENTS_ENV, STARTED, STOPPED
from tests.servers.e2e.raw import fetch

pytestmark = pytest.mark.server


def test_a_mounted_starlette_app(streams_server: str) -> None:
    with local_client(streams_server) as client:
        response = client.post("/star/hello", content=b"payload")
        assert response.json() == {
            "path": "/star/hello",
            "root_path": "/star",
            "url_for": f"{streams_server}/star/hello",
            "body": "payload",
        }
        assert client.get("/star/nothing").status_code == 404
        assert client.get("/hello").json() == {"message": "hello"}


def test_a_mounted_apps_body_is_held_to_its_routers_limit(streams_server: str) -> None:
    def chunked(size: int) -> Iterator[bytes]:
        yield b"x" * size

    with local_client(streams_server) as client:
        for body, sent in ((b"12345678", "12345678"), (chunked(8), "x" * 8)):
            response = client.post("/small/star/hello", content=body)
            assert (response.status_code, response.json()["body"]) == (200, sent)
        response = client.post("/small/star/hello", content=b"123456789")
        assert (response.status_code, response.json()) == (
            413,
            {"detail": "Request body of 9 bytes exceeds the limit of 8 bytes"},
        )
        response = client.post("/small/star/hello", content=chunked(9))
        assert (response.status_code, response.json()) == (
            413,
            {"detail": "Request body exceeds the limit of 8 bytes"},
        )


def test_a_mounted_fastapi_app(streams_server: str) -> None:
    with local_client(streams_server) as client:
        assert client.get("/fast/items/3").json() == {"id": 3, "root_path": "/fast"}
        assert client.get("/fast/items/x").status_code == 422
        assert "/items/{item_id}" in client.get("/fast/openapi.json").json()["paths"]


@pytest.fixture(scope="session")
def middleware_server(server_kind: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp(f"asgi-mw-{server_kind}") / "server.log"
    with run_server(
        server_kind, log, target="tests.servers.e2e.asgi_middleware_app:app"
    ) as running:
        yield running.base_url


def test_asgi_middleware_wraps_every_request(middleware_server: str) -> None:
    compressed = fetch(middleware_server, "GET", "/big", {"Accept-Encoding": "gzip"})
    assert compressed.header("content-encoding") == "gzip"
    assert gzip.decompress(compressed.body) == b'"' + ("hasten " * 500).encode() + b'"'
    plain = fetch(middleware_server, "GET", "/hello", {"Accept-Encoding": "gzip"})
    assert (plain.status, plain.body) == (200, b'{"message":"hello"}')
    stream = fetch(middleware_server, "GET", "/stream")
    assert stream.body == b"part 0\npart 1\npart 2\n"
    gated = fetch(middleware_server, "GET", "/gated")
    assert (gated.status, gated.body) == (403, b'{"detail":"gated"}')
    assert gated.header("content-length") == "18"
    url = middleware_server.replace("http://", "ws://") + "/ws"
    with connect(url) as ws:
        ws.send("shout")
        assert ws.recv(5) == "SHOUT"


@pytest.mark.parametrize("kind", KINDS)
def test_a_mounted_hasten_app_starts_and_stops_with_the_app(tmp_path: Path, kind: str) -> None:
    record = tmp_path / "events"
    served = run_server(
        kind,
        tmp_path / "server.log",
        env={EVENTS_ENV: str(record)},
        target="tests.servers.e2e.mounted_app:app",
        ready="/events",
    )
    with served as running, local_client(running.base_url) as client:
        for path in ("/events", "/inner/events", "/again/events"):
            response = client.get(path)
            assert (response.status_code, response.json()) == (200, STARTED)
    assert record.read_text().splitlines() == STARTED + STOPPED


@pytest.mark.parametrize("kind", ["hasten-run", "hasten-run-asgi", "hasten-run-uvicorn"])
def test_an_app_a_route_serves_through_its_middleware_starts_and_stops_with_the_app(
    tmp_path: Path, kind: str
) -> None:
    record = tmp_path / "events"
    served = run_server(
        kind,
        tmp_path / "server.log",
        env={EVENTS_ENV: str(record)},
        target="tests.servers.e2e.mounted_app:routed",
        ready="/events",
    )
    with served as running, local_client(running.base_url) as client:
        response = client.get("/routed")
        assert (response.status_code, response.headers["x-routed"]) == (200, "yes")
        assert response.json() == {"events": STARTED, "ticker alive": True}
    assert record.read_text().splitlines() == STARTED + STOPPED
