"""The e2e app with every observability setting on: metrics, health, readiness, live stats."""

from __future__ import annotations

import asyncio
import os

from hasten import App

STATS_TOKEN = "e2e-token"

app = App(
    metrics_url="/metrics",
    health_url="/healthz",
    ready_url="/readyz",
    stats_token=STATS_TOKEN,
    access_log="json",
)


@app.get("/hello")
async def hello() -> str:
    return "hello"


@app.get("/items/{id}")
def item(id: int) -> dict[str, int]:
    return {"id": id}


@app.get("/sleep")
async def sleep(seconds: float) -> dict[str, float]:
    await asyncio.sleep(seconds)
    return {"slept": seconds}


@app.get("/pid")
async def pid() -> int:
    return os.getpid()
