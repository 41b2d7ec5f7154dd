"""``moves_app.py`` served by FastAPI and, its imports rewritten by ``hasten._cli.port`` and
nothing else, by hasten through both adapters: the same requests get the same status, JSON
body and the headers the app sets."""

from __future__ import annotations

import asyncio
import types
from pathlib import Path
from typing import Any

import httpx
import pytest

from hasten._cli.port import port_source
from hasten._cli.servers import Interface
from hasten.testing import TestClient
from tests.migration import moves_app

pytest.importorskip("fastapi")

Call = tuple[str, str, dict[str, str], Any]
CALLS: list[Call] = [
    ("GET", "/articles/hello/comments", {}, None),
    ("GET", "/articles/hello/comments?limit=1&offset=0&tags=a&tags=b", {}, None),
    ("GET", "/articles/hello/comments?limit=0", {}, None),
    ("GET", "/articles/hello/comments?limit=5&unknown=1", {}, None),
    ("GET", "/articles/nowhere/comments", {}, None),
    ("POST", "/articles/hello/comments", {}, {"body": "Second", "authorName": "bob"}),
    ("POST", "/articles/hello/comments", {}, {"body": "", "author_name": "bob"}),
    ("POST", "/articles/hello/comments", {}, {"body": "x"}),
    ("GET", "/articles/hello/comments", {}, None),
    ("DELETE", "/articles/hello/comments/2", {}, None),
    ("DELETE", "/articles/hello/comments/2", {}, None),
    ("DELETE", "/articles/hello/comments/0", {}, None),
    ("GET", "/whoami", {"user-agent": "curl/8", "x-request-id": "r1"}, None),
    ("GET", "/whoami", {"user-agent": "curl/8"}, None),
]
KEPT_HEADERS = ("location", "set-cookie", "x-seen")


def twin() -> types.ModuleType:
    module = types.ModuleType("tests.migration.moves_twin")
    module.__file__ = "<hasten twin of moves_app.py>"
    source = port_source(Path(moves_app.__file__).read_text())
    assert "fastapi" not in source
    exec(compile(source, module.__file__, "exec"), module.__dict__)
    return module


def fresh(module: Any) -> None:
    module.comments.clear()
    module.comments["hello"] = [module.Comment(id=1, body="First", author_name="ann")]


Answer = tuple[int, Any, dict[str, str]]


def answer(response: httpx.Response) -> Answer:
    body = response.json() if response.content else None
    kept = {name: response.headers[name] for name in KEPT_HEADERS if name in response.headers}
    return response.status_code, body, kept


def fastapi_answers() -> list[Answer]:
    async def ask() -> list[Answer]:
        fresh(moves_app)
        transport = httpx.ASGITransport(app=moves_app.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return [
                answer(await client.request(method, path, headers=headers, json=body))
                for method, path, headers, body in CALLS
            ]

    return asyncio.run(ask())


@pytest.mark.parametrize("interface", ["rsgi", "asgi"])
def test_the_app_moves_by_its_imports_alone(interface: Interface) -> None:
    expected = fastapi_answers()
    module = twin()
    fresh(module)
    with TestClient(module.app, interface=interface) as client:
        found = [
            answer(client.request(method, path, headers=headers, json=body))
            for method, path, headers, body in CALLS
        ]
    for call, want, got in zip(CALLS, expected, found, strict=True):
        assert got == want, call
