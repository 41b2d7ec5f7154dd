"""hasten's implementation of the TechEmpower (TFB) test types: ``benchmarks.tfb.app:app``.

    benchmarks/tfb/pg.sh start                     # PostgreSQL with TFB's tables
    granian --interface rsgi --workers 2 benchmarks.tfb.app:app
    python benchmarks/tfb/verify.py http://127.0.0.1:8000

- json, ``GET /json``: ``{"message":"Hello, World!"}``, encoded for each request;
- plaintext, ``GET /plaintext``: ``Hello, World!``;
- db, ``GET /db``: one random World row, ``{"id":..,"randomNumber":..}``;
- queries, ``GET /queries?queries=N``: N random rows, one query each (N: 1 to 500);
- fortunes, ``GET /fortunes``: every Fortune and one added per request, sorted, as HTML;
- updates, ``GET /updates?queries=N``: N rows read (one query each), given new random
  numbers and written back;
- cached-queries, ``GET /cached-queries?count=N``: N random rows from the worker's cache of
  the World table, read from the database when the worker starts.

The ``Server`` and ``Date`` headers come from the server: Granian and uvicorn both send one of
each on every response (a second one from the app would be sent as well by uvicorn).
The database is ``DATABASE_URL`` (default TFB's, on 127.0.0.1); the pool, the SQL and the rules
for ``queries`` are in ``db.py``, shared with the peers' implementations.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated

import asyncpg

from benchmarks.tfb import db
from hasten import App, Depends, HTMLResponse, PlainTextResponse
from hasten.templating import Jinja2Templates

# A benchmark app turns off what only serves people: the OpenAPI document and docs page, and the
# blocking monitor (its heartbeat and watchdog cost about 3% of CPU per /db request on this
# 2-core machine under load: 2.53 against 2.46 CPU s/10k, benchmarks/observability.py).
app = App(openapi_url=None, docs_url=None, block_threshold=None)
templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


async def connection_pool() -> AsyncIterator[asyncpg.Pool]:
    """The worker's connection pool: opened when the app starts, closed when it stops."""
    pool = await db.create_pool()
    yield pool
    await pool.close()


async def world_cache(
    pool: Annotated[asyncpg.Pool, Depends(connection_pool, scope="app")],
) -> dict[int, dict[str, int]]:
    """The cached-queries test's cache of the World table, read once per worker."""
    return await db.world_cache(pool)


Pool = Annotated[asyncpg.Pool, Depends(connection_pool, scope="app")]
Worlds = Annotated[dict[int, dict[str, int]], Depends(world_cache, scope="app")]


@app.get("/json")
async def json() -> dict[str, str]:
    return {"message": "Hello, World!"}


@app.get("/plaintext", response_class=PlainTextResponse)
async def plaintext() -> str:
    return "Hello, World!"


@app.get("/db")
async def single_query(pool: Pool) -> dict[str, int]:
    async with pool.acquire() as connection:
        return await db.read_world(connection)


@app.get("/queries")
async def queries(pool: Pool, queries: str | None = None) -> list[dict[str, int]]:
    ids = db.random_ids(db.clamp(queries))
    async with pool.acquire() as connection:
        return await db.read_worlds(connection, ids)


@app.get("/fortunes")
async def fortunes(pool: Pool) -> HTMLResponse:
    async with pool.acquire() as connection:
        rows = await db.read_fortunes(connection)
    return templates.render("fortunes.html", {"fortunes": rows})


@app.get("/updates")
async def updates(pool: Pool, queries: str | None = None) -> list[dict[str, int]]:
    async with pool.acquire() as connection:
        return await db.update_worlds(connection, db.clamp(queries))


@app.get("/cached-queries")
async def cached_queries(worlds: Worlds, count: str | None = None) -> list[dict[str, int]]:
    return [worlds[row_id] for (row_id,) in db.random_ids(db.clamp(count))]
