"""What a WebSocket client reads when the app closes with its own code, under ``hasten run``
with no interface asked for (issue 33, point 7): Granian's RSGI sends no close code, so an
app closing with 4001 on a failed login told its clients nothing (1005). An app with
WebSocket routes is served over ASGI, said once at startup; an HTTP-only app keeps RSGI."""

from __future__ import annotations

from pathlib import Path

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.servers.running import hasten_run

pytestmark = pytest.mark.server

ROOT = Path(__file__).resolve().parents[3]
OVER_ASGI = (
    "hasten: over ASGI, as the app has WebSocket routes: Granian's RSGI sends no WebSocket "
    "close code (each close would reach the client as 1005); --interface rsgi serves it over "
    "RSGI"
)
LOGIN_APP = "tests.servers.hostile.login_app:app"


@pytest.mark.parametrize(
    ("options", "served_as", "closed_with"),
    [
        ([], "granian, asgi", (4001, "bad token")),
        (["--interface", "rsgi"], "granian, rsgi", (1005, "")),
        (["--server", "uvicorn"], "uvicorn, asgi", (4001, "bad token")),
    ],
    ids=["granian", "granian-rsgi-asked", "uvicorn"],
)
def test_the_close_code_an_app_sends_reaches_its_client_by_default(
    options: list[str], served_as: str, closed_with: tuple[int, str], tmp_path: Path
) -> None:
    with (
        hasten_run([LOGIN_APP, *options], ROOT, tmp_path / "log") as server,
        connect(server.url.replace("http", "ws", 1) + "/login") as ws,
        pytest.raises(ConnectionClosed) as closed,
    ):
        ws.recv(5)
    received = closed.value.rcvd
    assert received is not None
    assert (received.code, received.reason) == closed_with
    lines = server.log.splitlines()
    assert lines[0] == f"hasten: serving {LOGIN_APP} on {server.url} ({served_as}, 1 worker)"
    assert lines.count(OVER_ASGI) == (1 if options == [] else 0)
    if options == []:
        assert lines[1] == OVER_ASGI


def test_an_http_only_app_keeps_rsgi(tmp_path: Path) -> None:
    target = "tests.servers.hostile.login_app:http_only"
    with hasten_run([target], ROOT, tmp_path / "log") as server:
        pass
    lines = server.log.splitlines()
    assert lines[0] == f"hasten: serving {target} on {server.url} (granian, rsgi, 1 worker)"
    assert OVER_ASGI not in lines
