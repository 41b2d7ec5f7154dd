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

from pathlib import Path

import asyncpg

from benchmarks.tfb import db
from hasten import App, HTMLResponse
from hasten.templating import Jinja2Templates

# A benchmark app turns off what only serves people: the OpenAPI document and docs page, and the
# blocking monitor (its watchdog thread costs about 7% of CPU per /db request on this 2-core
# machine under load: 1.91 against 1.78 CPU s/10k, hasten bench --workers 2, 256 connections).
app = App(openapi_url=None, docs_url=None, block_threshold=None)
templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


@app.on_startup
async def open_pool() -> None:
    app.state.pool = await db.create_pool()
    app.state.worlds = await db.world_cache(app.state.pool)


@app.on_shutdown
async def close_pool() -> None:
    await app.state.pool.close()


def pool() -> asyncpg.Pool:
    """The worker's connection pool."""
    # TODO(app-scoped dependency): this is the one place to switch: handlers then take
    # `pool: asyncpg.Pool = Depends(create_pool, scope="app")` and open_pool/close_pool go.
    result: asyncpg.Pool = app.state.pool
    return result


@app.get("/json")
async def json() -> dict[str, str]:
    return {"message": "Hello, World!"}


@app.get("/plaintext")
async def plaintext() -> str:
    return "Hello, World!"


@app.get("/db")
async def single_query() -> dict[str, int]:
    async with pool().acquire() as connection:
        return await db.read_world(connection)


@app.get("/queries")
async def queries(queries: str | None = None) -> list[dict[str, int]]:
    ids = db.random_ids(db.clamp(queries))
    async with pool().acquire() as connection:
        return await db.read_worlds(connection, ids)


@app.get("/fortunes")
async def fortunes() -> HTMLResponse:
    async with pool().acquire() as connection:
        rows = await db.read_fortunes(connection)
    return templates.render("fortunes.html", {"fortunes": rows})


@app.get("/updates")
async def updates(queries: str | None = None) -> list[dict[str, int]]:
    async with pool().acquire() as connection:
        return await db.update_worlds(connection, db.clamp(queries))


@app.get("/cached-queries")
async def cached_queries(count: str | None = None) -> list[dict[str, int]]:
    worlds = app.state.worlds
    return [worlds[row_id] for (row_id,) in db.random_ids(db.clamp(count))]
