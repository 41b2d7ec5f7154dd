"""An app target served for ``hasten bench``: on the port asked for, from its root; a port in use
said before serving. (Targets read and checked in-process: tests/bench/test_targets.py.)"""

from __future__ import annotations

import socket
from pathlib import Path

import httpx
import pytest

from hasten.bench.targets import (
    HOST,
    AppTarget,
    ServerError,
    free_port,
    launched,
)

ROOTED_APP = """
from hasten import App

app = App()


@app.get("/where")
async def where() -> str:
    return "rooted"
"""


def test_an_app_is_served_on_the_port_asked_for_from_its_root(tmp_path: Path) -> None:
    (tmp_path / "rooted_app.py").write_text(ROOTED_APP)
    target = AppTarget("rooted", "rooted_app:app", "granian", "rsgi", 1, root=str(tmp_path))
    port = free_port()

    with launched(target, ready_timeout=30, port=port) as server:
        answer = httpx.get(f"http://{HOST}:{port}/where", trust_env=False)

    assert server.port == port
    assert (answer.status_code, answer.json()) == (200, "rooted")


def test_a_port_in_use_is_said_before_serving() -> None:
    with socket.create_server((HOST, 0)) as busy:
        port = busy.getsockname()[1]
        target = AppTarget("rooted", "m:app", "granian", "rsgi", 1)
        with (
            pytest.raises(ServerError, match=f"rooted: port {port} is in use"),
            launched(target, 30, port=port),
        ):
            pass
