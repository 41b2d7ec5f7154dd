"""SIGTERM with connections that never end by themselves, under ``hasten run`` on each server:
the stop ends by ``shutdown_timeout``, what is cut is logged by route, and the shutdown hooks
run before the process exits (issue 33, point 4: it ran past 35 s, and the hooks never ran).

Before the server hears of SIGTERM, hasten closes the app's WebSockets with 1001 (going away):
the servers would drop them (Granian's ASGI without a close frame, uvicorn with its 1012). An
app with ``ready_url`` first drains, so its WebSockets are closed at the deadline. Granian's
RSGI sends no close code (the client reads 1005), and ends a stream cut short as if it were
whole; over ASGI the server drops the connection, and the client sees it cut.
"""

from __future__ import annotations

import signal
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from tests.servers.hostile.conftest import HOST, KINDS, hasten_run
from tests.servers.hostile.stop_app import READY_URL_ENV, STOP_DIR_ENV, STOP_TIMEOUT

pytestmark = pytest.mark.server

STOP_APP = "tests.servers.hostile.stop_app:app"
MARGIN = 3.0  # seconds past the deadline for the cut requests to unwind, the hooks and exit
CUT = (
    f"Stopping: still in flight after shutdown_timeout ({STOP_TIMEOUT:g} s), now closed: "
    "GET /endless (1), GET /forever (1)"
)
SHUTTING_DOWN = (503, b'{"detail":"The server is shutting down"}')


def closing_of(ws: ClientConnection) -> tuple[int | None, str, float]:
    """The close code and reason the server sent, and when (time.monotonic())."""
    with pytest.raises(ConnectionClosed) as closed:
        ws.recv(STOP_TIMEOUT + MARGIN)
    received = closed.value.rcvd
    when = time.monotonic()
    return (None, "", when) if received is None else (received.code, received.reason, when)


def ending_of(chunks: httpx.Response, by: float) -> tuple[str, float]:
    """How the endless stream ended ("whole": a last chunk; "cut short": the connection
    dropped mid-body; "still open" at ``by``), and when (time.monotonic())."""
    try:
        for _ in chunks.iter_raw():
            if time.monotonic() > by:
                return "still open", by
    except httpx.RemoteProtocolError:
        return "cut short", time.monotonic()
    return "whole", time.monotonic()


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + 10
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} never appeared"
        time.sleep(0.01)


@pytest.mark.parametrize("ready_url", [None, "/readyz"], ids=["no-ready-url", "ready-url"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_sigterm_with_an_endless_stream_and_an_idle_websocket_ends_by_shutdown_timeout(
    kind: str, ready_url: str | None, tmp_path: Path
) -> None:
    log = tmp_path / "server.log"
    environment = {STOP_DIR_ENV: str(tmp_path), READY_URL_ENV: ready_url or ""}
    with (
        hasten_run(kind, log, target=STOP_APP, environment=environment) as served,
        httpx.Client(base_url=f"http://{HOST}:{served.port}", trust_env=False) as http,
        ThreadPoolExecutor(1) as pool,
        connect(f"ws://{HOST}:{served.port}/idle") as ws,
        http.stream("GET", "/endless", timeout=STOP_TIMEOUT + MARGIN) as stream,
    ):
        assert stream.status_code == 200
        never = pool.submit(http.get, "/forever", timeout=STOP_TIMEOUT + MARGIN)
        wait_for(tmp_path / "entered")
        signalled, signalled_at = time.monotonic(), time.time()
        served.process.send_signal(signal.SIGTERM)
        code, reason, closed = closing_of(ws)
        ending, ended = ending_of(stream, by=signalled + STOP_TIMEOUT + MARGIN)
        answer = never.result()
        returncode = served.process.wait(STOP_TIMEOUT + MARGIN)
        exited = time.monotonic()
    hooks_ran = float((tmp_path / "stopped").read_text()) - signalled_at
    output = log.read_text(errors="replace")

    assert returncode in (0, -signal.SIGTERM), output
    # The WebSocket is told that the server goes away: at once, or once the drain is over.
    assert (code, reason) == (
        (1005, "") if kind == "granian-rsgi" else (1001, "server shutting down")
    )
    closing_from = STOP_TIMEOUT if ready_url else 0.0
    assert closing_from <= closed - signalled < closing_from + 1.0, output
    # At the deadline, the stream and the request are cut, and said so by route.
    assert ending == ("whole" if kind == "granian-rsgi" else "cut short")
    assert STOP_TIMEOUT <= ended - signalled < STOP_TIMEOUT + MARGIN, output
    assert (answer.status_code, answer.content) == SHUTTING_DOWN
    assert CUT in output.splitlines(), output
    # Then the shutdown hooks ran, and the process ended.
    assert STOP_TIMEOUT <= hooks_ran < exited - signalled < STOP_TIMEOUT + MARGIN, output
