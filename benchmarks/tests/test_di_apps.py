"""The dependency and form benchmark apps (``benchmarks/apps/di_*``) answer alike.

Run from the peers' venv: ``benchmarks/.venv-peers/bin/pytest benchmarks/tests -q``. Each app
is driven in-process through ASGI; every scenario's status and JSON must be equal.
"""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("litestar")
pytest.importorskip("python_multipart")

import httpx

from benchmarks.dependencies import BOUNDARY, UPLOAD_SIZE, upload_body

APPS = ["di_hasten", "di_fastapi", "di_litestar"]
FORM = "a=text&b=7&c=1.5&d=true&e=more"


async def answers(module: str, name: str = "app") -> list[tuple[int, Any]]:
    app = getattr(importlib.import_module(f"benchmarks.apps.{module}"), name)
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://test") as client:
        found = []
        for response in (
            await client.get("/deps", headers={"x-token": "abc"}),
            await client.get("/inline", headers={"x-token": "abc"}),
            await client.post(
                "/form",
                content=FORM,
                headers={"content-type": "application/x-www-form-urlencoded"},
            ),
            await client.post(
                "/upload",
                content=upload_body(),
                headers={"content-type": f"multipart/form-data; boundary={BOUNDARY}"},
            ),
        ):
            found.append((response.status_code, response.json()))
        return found


@pytest.mark.parametrize("module", APPS)
def test_every_app_answers_the_same(module: str) -> None:
    assert asyncio.run(answers(module)) == [
        (200, {"user": "abc", "session": "open"}),
        (200, {"user": "abc", "session": "open"}),
        (200, {"a": "text", "b": 7, "c": 1.5, "d": True, "e": "more"}),
        (200, {"size": UPLOAD_SIZE}),
    ]


@pytest.mark.parametrize("name", ["app_inline", "app_called"])
def test_hastens_inline_twins_answer_deps_the_same(name: str) -> None:
    assert asyncio.run(answers("di_hasten", name))[0] == (200, {"user": "abc", "session": "open"})
