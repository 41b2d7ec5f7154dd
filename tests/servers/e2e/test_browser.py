"""WebSockets and Server-Sent Events in headless Chromium, on every server: a page opens a
WebSocket, sends, shows the echo, and reads two events with EventSource.

Chromium is driven over its DevTools protocol (a few calls over the ``websockets`` client);
Debian's ``chromium`` package is what CI installs (.ci/run). The test is skipped, saying so,
only where no chromium is installed.
"""

from __future__ import annotations

import itertools
import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.sync.client import ClientConnection, connect

pytestmark = pytest.mark.server

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--remote-debugging-port=0",
    "--remote-allow-origins=*",
]
EXPECTED = [
    'ws {"room":"browser","limit":9,"agent":',
    "ws echo: from chromium",
    'sse 1 {"n": 1}',  # an undeclared item, written as FastAPI's json.dumps writes it
    'sse 2 {"n": 2}',
    "sse done",
]


class DevTools:
    """The few DevTools calls the test needs, on one page's session."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.ids = itertools.count(1)

    def call(self, method: str, session: str | None = None, **params: Any) -> dict[str, Any]:
        message_id = next(self.ids)
        message: dict[str, Any] = {"id": message_id, "method": method, "params": params}
        if session is not None:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        while True:
            reply = json.loads(self.socket.recv(10))
            if reply.get("id") == message_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result


@pytest.fixture(scope="session")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevTools]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (apt-get install chromium; .ci/run does it)")
    profile = tmp_path_factory.mktemp("chromium-profile")
    process = subprocess.Popen(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        port_file = Path(profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 20
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline or process.poll() is not None:
                pytest.fail("chromium did not open its DevTools port")
            time.sleep(0.05)
        port, path = port_file.read_text().split()[:2]
        with connect(f"ws://127.0.0.1:{port}{path}", max_size=None) as socket:
            yield DevTools(socket)
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_websocket_and_event_source_in_chromium(browser: DevTools, streams_server: str) -> None:
    target = browser.call("Target.createTarget", url=f"{streams_server}/ws-page")["targetId"]
    try:
        session = browser.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        deadline = time.monotonic() + 10
        lines: list[str] = []
        while time.monotonic() < deadline:
            result = browser.call(
                "Runtime.evaluate",
                session,
                expression="document.getElementById('out')?.textContent ?? ''",
                returnByValue=True,
            )
            lines = str(result["result"].get("value", "")).splitlines()
            if len(lines) >= len(EXPECTED):
                break
            time.sleep(0.05)
        # The socket's lines and the stream's, each in its order; the two interleave as
        # they arrive (an SSE tick may come before the socket's first message).
        ws = [line for line in lines if line.startswith("ws ")]
        sse = [line for line in lines if not line.startswith("ws ")]
        assert (len(ws), ws[0].startswith(EXPECTED[0]), ws[1:]) == (2, True, EXPECTED[1:2]), lines
        assert sse == EXPECTED[2:], lines
    finally:
        browser.call("Target.closeTarget", targetId=target)
