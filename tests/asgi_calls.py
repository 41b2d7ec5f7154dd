"""Drive an app's ASGI entry point directly, for tests that must interleave requests with
startup and shutdown on one event loop."""

from __future__ import annotations

from typing import Any

from hasten import App


async def asgi_get(app: App, path: str) -> tuple[int, bytes]:
    """GET ``path`` through ``app.__call__``; return the status and body."""
    scope = {
        "type": "http",
        "method": "GET",
        "path": path,
        "query_string": b"",
        "headers": [],
        "client": ("127.0.0.1", 50000),
    }
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    await app(scope, receive, send)  # type: ignore[arg-type]
    return sent[0]["status"], sent[1]["body"]
