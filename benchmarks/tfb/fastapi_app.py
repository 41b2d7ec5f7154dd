"""FastAPI's implementation of the TFB test types (see ``app.py`` for the list).

Written as FastAPI's tutorial shows: decorated path operations with typed query parameters and
return type annotations (FastAPI validates and serializes what they return), a ``lifespan``
that opens the pool into ``app.state``, and ``Jinja2Templates`` for fortunes. ``queries`` and
``count`` are read as text: TFB wants "foo" to mean 1, where an ``int`` parameter would
answer 422. The database work is ``db.py``'s, shared by every implementation.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.responses import HTMLResponse, PlainTextResponse
from fastapi.templating import Jinja2Templates

from benchmarks.tfb import db

templates = Jinja2Templates(directory=Path(__file__).parent / "templates")


@asynccontextmanager
async def lifespan(app: FastAPI) -> AsyncIterator[None]:
    app.state.pool = await db.create_pool()
    app.state.worlds = await db.world_cache(app.state.pool)
    yield
    await app.state.pool.close()


app = FastAPI(lifespan=lifespan, openapi_url=None, docs_url=None, redoc_url=None)


@app.get("/json")
async def json() -> dict[str, str]:
    return {"message": "Hello, World!"}


@app.get("/plaintext", response_class=PlainTextResponse)
async def plaintext() -> str:
    return "Hello, World!"


@app.get("/db")
async def single_query() -> dict[str, int]:
    async with app.state.pool.acquire() as connection:
        return await db.read_world(connection)


@app.get("/queries")
async def queries(queries: str | None = None) -> list[dict[str, int]]:
    ids = db.random_ids(db.clamp(queries))
    async with app.state.pool.acquire() as connection:
        return await db.read_worlds(connection, ids)


@app.get("/fortunes", response_class=HTMLResponse)
async def fortunes(request: Request) -> HTMLResponse:
    async with app.state.pool.acquire() as connection:
        rows = await db.read_fortunes(connection)
    return templates.TemplateResponse(request, "fortunes.html", {"fortunes": rows})


@app.get("/updates")
async def updates(queries: str | None = None) -> list[dict[str, int]]:
    async with app.state.pool.acquire() as connection:
        return await db.update_worlds(connection, db.clamp(queries))


@app.get("/cached-queries")
async def cached_queries(count: str | None = None) -> list[dict[str, int]]:
    worlds = app.state.worlds
    return [worlds[row_id] for (row_id,) in db.random_ids(db.clamp(count))]
