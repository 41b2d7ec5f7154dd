"""WebSockets on real servers with a real client (the ``websockets`` package): typed
parameters, echo, close codes, subprotocols, refusals, a client that leaves, and shutdown.

What differs by server is measured here: Granian's RSGI sends no close code after the
handshake (the client sees 1005) and cannot select a subprotocol.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect

from tests.servers.e2e.conftest import local_client, run_server
from tests.servers.e2e.test_streams import probe, settle

pytestmark = pytest.mark.server


def ws_url(base_url: str, path: str) -> str:
    return base_url.replace("http://", "ws://") + path


def test_echo_with_typed_parameters(streams_server: str) -> None:
    with connect(ws_url(streams_server, "/ws/lobby?limit=5"), user_agent_header="e2e") as ws:
        assert json.loads(ws.recv(5)) == {"room": "lobby", "limit": 5, "agent": "e2e"}
        for text in ("one", "two"):
            ws.send(text)
            assert ws.recv(5) == f"echo: {text}"


def test_binary_messages(streams_server: str) -> None:
    with connect(ws_url(streams_server, "/ws-bytes")) as ws:
        ws.send(b"\x00\x01\x02")
        assert ws.recv(5) == b"\x00\x01\x02"


def test_the_server_closes_with_a_code(streams_server: str, server_kind: str) -> None:
    with connect(ws_url(streams_server, "/ws/x")) as ws:
        ws.recv(5)
        ws.send("close")
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(5)
    received = closed.value.rcvd
    assert received is not None
    if server_kind == "granian-rsgi":
        assert (received.code, received.reason) == (1005, "")  # RSGI: no code on the wire
    else:
        assert (received.code, received.reason) == (4000, "asked to")


def test_the_client_close_code_reaches_the_app(streams_server: str, server_kind: str) -> None:
    with local_client(streams_server) as client:
        before = len(client.get("/ws-listen/closes").json())
        with connect(ws_url(streams_server, "/ws-listen")) as ws:
            ws.close(4002, "leaving")
        deadline = time.monotonic() + 5
        while len(closes := client.get("/ws-listen/closes").json()) == before:
            assert time.monotonic() < deadline, "the handler never saw the close"
            time.sleep(0.02)
    # RSGI hands the app a close without its code: hasten says 1005, as for a frame with none.
    assert closes[before:] == [1005 if server_kind == "granian-rsgi" else 4002]


def test_a_handler_that_fails_after_the_handshake(streams_server: str, server_kind: str) -> None:
    with (
        connect(ws_url(streams_server, "/ws-fails")) as ws,
        pytest.raises(ConnectionClosed) as closed,
    ):
        ws.recv(5)
    received = closed.value.rcvd
    assert received is not None
    assert (received.code, received.reason) == (
        (1005, "") if server_kind == "granian-rsgi" else (1011, "")
    )


def test_a_refusal_with_headers_and_a_body(streams_server: str, server_kind: str) -> None:
    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url(streams_server, "/ws-denied"))
    response = refused.value.response
    assert response.status_code == 401
    sent = (bytes(response.body or b""), response.headers.get("www-authenticate"))
    # Granian's RSGI refuses a handshake with a status alone.
    assert sent == (
        (b"", None) if server_kind == "granian-rsgi" else (b'{"detail":"no"}', "Bearer")
    )


def test_subprotocol_selection(streams_server: str, server_kind: str) -> None:
    with connect(ws_url(streams_server, "/ws-chat"), subprotocols=["v1.chat", "v2.chat"]) as ws:  # type: ignore[list-item]
        assert ws.recv(5) == "offered ['v1.chat', 'v2.chat']"
        assert ws.subprotocol == (None if server_kind == "granian-rsgi" else "v2.chat")


@pytest.mark.parametrize(("path", "status"), [("/http-only", 403), ("/nowhere", 404)])
def test_refused_handshakes(streams_server: str, server_kind: str, path: str, status: int) -> None:
    with pytest.raises(InvalidStatus) as refused:
        connect(ws_url(streams_server, path))
    assert refused.value.response.status_code == status


def test_http_to_a_websocket_route(streams_server: str) -> None:
    with local_client(streams_server) as client:
        assert client.get("/ws/x").status_code == 404


def test_a_client_that_leaves_ends_its_handler(streams_server: str) -> None:
    baseline = settle(streams_server, handlers=0)
    with connect(ws_url(streams_server, "/ws-wait")):
        settle(streams_server, handlers=1)
    after = settle(streams_server, handlers=0, tasks=baseline["tasks"])
    assert after["generators"] == 0


def test_a_mounted_starlette_websocket(streams_server: str) -> None:
    with connect(ws_url(streams_server, "/star/ws")) as ws:
        ws.send("hi")
        assert ws.recv(5) == "starlette: hi"


@pytest.mark.parametrize("kind", ["hasten-run-rsgi", "hasten-run-asgi", "hasten-run"])
def test_what_rsgi_cannot_send_is_said_once_in_the_log(tmp_path: Path, kind: str) -> None:
    # ``hasten run`` alone serves this app, which has WebSocket routes, over ASGI.
    log = tmp_path / "server.log"
    with run_server(kind, log, target="tests.servers.e2e.streams_app:app") as running:
        for _ in range(2):
            with connect(ws_url(running.base_url, "/ws/x")) as ws:
                ws.recv(5)
                ws.send("close")
                with pytest.raises(ConnectionClosed):
                    ws.recv(5)
    said = [line for line in log.read_text().splitlines() if "Granian's RSGI cannot send" in line]
    if kind != "hasten-run-rsgi":
        assert said == []
    else:
        assert len(said) == 1, said
        assert "a WebSocket close code and reason (/ws/x closed with 4000 'asked to'" in said[0]


@pytest.mark.parametrize("kind", ["granian-rsgi", "granian-asgi", "uvicorn"])
def test_shutdown_closes_open_websockets(tmp_path: Path, kind: str) -> None:
    log = tmp_path / "server.log"
    with (
        run_server(kind, log, target="tests.servers.e2e.streams_app:app") as running,
        connect(ws_url(running.base_url, "/ws-wait")) as ws,
    ):
        settle(running.base_url, handlers=1)
        assert probe(running.base_url)["handlers"] == 1
        started = time.monotonic()
        running.process.terminate()
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(10)
        elapsed = time.monotonic() - started
    received = closed.value.rcvd
    code = None if received is None else received.code
    # Measured. uvicorn would close open WebSockets itself at SIGTERM, with 1012 (service
    # restart): hasten takes the signal ahead of it and closes them first, with 1001 (going
    # away). Granian, started by its own command, puts its handler on uvloop's loop, out of
    # hasten's reach (``hasten run`` reaches it, tests/servers/hostile/test_stopping.py): its ASGI
    # drops them at SIGTERM without a close frame; its RSGI leaves them to the app, which
    # closes them once shutdown_timeout (1 s here) has passed, but Granian, stopping, sends
    # no close frame either (the client sees 1006).
    if kind == "uvicorn":
        assert (code, elapsed < 0.5) == (1001, True), elapsed
    elif kind == "granian-asgi":
        assert (code, elapsed < 0.5) == (None, True), elapsed
    else:
        assert code is None
        assert 0.9 < elapsed < 5, elapsed
