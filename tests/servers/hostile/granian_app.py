"""A bare RSGI app, without hasten, that shows what Granian itself hands over and sends:
``tests/servers/hostile/test_granian.py`` holds each of Granian's limits that hasten works around or
documents, so that a Granian release that lifts one fails a test there."""

from __future__ import annotations

import json
from typing import Any

# What the last WebSocket's close message from the client carried (its attribute names).
last_close: list[str] = []


async def app(scope: Any, proto: Any) -> None:
    if scope.proto != "http":
        await websocket(scope, proto)
        return
    headers = scope.headers
    if scope.path == "/headers":
        found = {
            "get": headers.get("x-note"),
            "in": "x-note" in headers,
            "items": [name for name, _ in headers.items() if name == "x-note"],
        }
    elif scope.path == "/framing":
        body = await proto()
        found = {
            "content-length": headers.get("content-length"),
            "transfer-encoding": headers.get("transfer-encoding"),
            "body": body.decode(),
        }
    elif scope.path == "/set-header":
        proto.response_bytes(200, [("x-bad", "a\r\nx-injected: 1"), ("x-good", "1")], b"sent")
        return
    elif scope.path == "/last-close":
        found = {"attributes": last_close}
    else:
        proto.response_bytes(404, [], b"")
        return
    proto.response_bytes(200, [("content-type", "application/json")], json.dumps(found).encode())


async def websocket(scope: Any, proto: Any) -> None:
    transport = await proto.accept()
    message = await transport.receive()
    if message.kind == 0:  # the client closed
        last_close[:] = sorted(name for name in dir(message) if not name.startswith("_"))
        return
    proto.close(4000)  # a close code, after the handshake
