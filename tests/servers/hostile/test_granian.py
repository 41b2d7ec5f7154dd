"""Granian's own limits, held to Granian itself (a bare RSGI app, ``granian_app.py``): hasten
works around each or documents it (README, "Granian's RSGI"), and each test here fails when a
Granian release changes it, so that the workaround or the word in the docs can go.

Measured on Granian 2.8.9, the newest on PyPI when written; no option of Granian's changes
any of them.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest
from granian._granian import RSGIWebsocketProtocol

from tests.servers.hostile.cases import NORMAL, request
from tests.servers.hostile.conftest import ROOT, free_port
from tests.servers.hostile.websocket import CLOSE, TEXT, close_frame, frame, handshake, upgrade
from tests.servers.hostile.wire import exchange

pytestmark = pytest.mark.server

UTF8 = "café".encode().decode("latin-1")  # its UTF-8 bytes, as ``request`` sends them


@pytest.fixture(scope="module")
def bare(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """``granian --interface rsgi`` serving the bare app: its port."""
    port = free_port()
    log = tmp_path_factory.mktemp("granian") / "server.log"
    argv = [sys.executable, "-m", "granian", "--interface", "rsgi", "--port", str(port)]
    with log.open("wb") as output:
        process = subprocess.Popen(
            [*argv, "tests.servers.hostile.granian_app:app"], cwd=ROOT, stdout=output, stderr=output
        )
    try:
        deadline = time.monotonic() + 15
        while exchange_or_none(port) is None:
            assert process.poll() is None, log.read_text()
            assert time.monotonic() < deadline, log.read_text()
            time.sleep(0.05)
        yield port
    finally:
        process.terminate()
        process.wait(10)


def exchange_or_none(port: int) -> int | None:
    with contextlib.suppress(OSError):
        return exchange(port, NORMAL, wait=1.0).status
    return None


def answer(port: int, data: bytes) -> object:
    return json.loads(exchange(port, data).body)


def test_a_header_value_beyond_visible_ascii_is_hidden_from_the_app(bare: int) -> None:
    """Why hasten answers 400 when the app reads such a header under RSGI."""
    found = answer(bare, request("/headers", headers=(("X-Note", UTF8),)))
    assert found == {"get": None, "in": True, "items": []}


def test_content_length_with_transfer_encoding_loses_the_length_and_the_connection(
    bare: int,
) -> None:
    """Why hasten cannot refuse it under Granian: the app never sees the Content-Length.
    Granian reads the chunked body and closes the connection after its answer (RFC 9112
    §6.1), so a request smuggled behind it is never read."""
    both = (("Content-Length", "5"), ("Transfer-Encoding", "chunked"))
    body = b"2\r\nhi\r\n0\r\n\r\n"
    head = f"POST /framing HTTP/1.1\r\nHost: x\r\n{both[0][0]}: 5\r\n{both[1][0]}: chunked\r\n\r\n"
    smuggled = b"GET /headers HTTP/1.1\r\nHost: x\r\n\r\n"
    outcome = exchange(bare, head.encode() + body + smuggled, wait=1.0)
    assert json.loads(outcome.body) == {
        "content-length": None,
        "transfer-encoding": "chunked",
        "body": "hi",
    }
    assert (outcome.headers["connection"], outcome.ending) == ("close", "answered")
    assert b"HTTP/1.1" not in outcome.body  # the smuggled request was not answered


def test_a_response_header_with_cr_lf_is_dropped_without_a_word(bare: int) -> None:
    """Why hasten refuses such a header where it is set."""
    outcome = exchange(bare, request("/set-header"))
    assert (outcome.status, outcome.body) == (200, b"sent")
    assert "x-good" in outcome.headers
    assert "x-bad" not in outcome.headers
    assert "x-injected" not in outcome.headers


def test_a_websocket_close_carries_no_code_and_the_handshake_no_subprotocol(bare: int) -> None:
    """Why close codes and reasons, 1009, 1011, 1007 and subprotocols are ASGI-only."""
    # accept() takes nothing: no subprotocol, no headers.
    assert list(inspect.signature(RSGIWebsocketProtocol.accept).parameters) == ["self"]
    offer = (("Sec-WebSocket-Protocol", "v1"),)
    with upgrade(bare, handshake("/ws", headers=offer)) as ws:
        assert ws.outcome.status == 101
        assert "sec-websocket-protocol" not in ws.outcome.headers
        ws.send(frame(TEXT, b"close with 4000, please"))
        got, ending = ws.frames(wait=2.0)
    assert (ending, [(item.opcode, item.payload) for item in got]) == (
        "close frame",
        [(CLOSE, b"")],
    )


def test_a_clients_close_code_reaches_no_one(bare: int) -> None:
    with upgrade(bare, handshake("/ws")) as ws:
        ws.send(close_frame(4001, "done"))
        ws.frames(wait=2.0)
    time.sleep(0.2)
    assert answer(bare, request("/last-close")) == {"attributes": ["kind"]}
