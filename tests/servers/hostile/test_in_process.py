"""Hostile input that the servers stop before the app (their URL limits), sent in-process: a
server or proxy with larger limits would let it through, and the framework is the last line."""

from __future__ import annotations

import asyncio
from typing import Any

from hasten import App
from tests.servers.hostile.cases import MANY_PARAMETERS


async def get(app: App, path: str, query: str) -> tuple[int, bytes]:
    """GET through the app's ASGI entry point: no client library's URL limit in the way."""
    scope = {"type": "http", "method": "GET", "path": path, "query_string": query.encode()}
    scope |= {"headers": [], "client": ("127.0.0.1", 50000)}
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async with app.running():
        await app(scope, receive, send)  # type: ignore[arg-type]
    return sent[0]["status"], sent[1]["body"]


def query_app() -> App:
    app = App()

    @app.get("/query")
    async def query(q: str = "") -> dict[str, int]:
        return {"q": len(q)}

    return app


def test_an_ordinary_query_is_answered() -> None:
    assert asyncio.run(get(query_app(), "/query", "q=abc&x=1")) == (200, b'{"q":3}')


def test_a_query_of_100000_parameters_is_refused() -> None:
    assert asyncio.run(get(query_app(), "/query", MANY_PARAMETERS)) == (
        414,
        b'{"detail":"The query string has more than 1000 parameters"}',
    )
