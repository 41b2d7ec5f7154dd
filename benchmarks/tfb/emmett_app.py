"""Emmett's implementation of the TFB test types (see ``app.py`` for the list).

Written as Emmett's docs show: an ``App`` with routes declared by ``@app.route``, JSON through
``@service.json``, the request's query read from ``request.query_params`` and headers set on
the context's ``response``; served by Granian's RSGI, as Emmett ships it. Emmett's router and
response path are in Rust (emmett-core). The database work is ``db.py``'s, shared by every
implementation; the pool is opened on a worker's first database request (Emmett has no
startup hook for a worker's loop that an app declares, only its extensions' signals), which
the warm-up absorbs. fortunes renders with Emmett's own template engine, Renoir
(``templates/emmett/fortunes.html``: Renoir escapes ``{{=value}}``), where the others share
a Jinja2 template.
"""

from __future__ import annotations

import asyncio
from typing import Any

from emmett import App, request, response
from emmett.tools import service

from benchmarks.tfb import db

app = App(__name__)
app.config.handle_static = False
state: dict[str, Any] = {}
_opening = asyncio.Lock()


async def pool() -> Any:
    if "pool" not in state:
        async with _opening:
            if "pool" not in state:
                opened = await db.create_pool()
                state["worlds"] = await db.world_cache(opened)
                state["pool"] = opened
    return state["pool"]


@app.route("/json", methods=["get"])
@service.json
async def json_test() -> dict[str, str]:
    return {"message": "Hello, World!"}


@app.route("/plaintext", methods=["get"], output="bytes")
async def plaintext() -> bytes:
    response.content_type = "text/plain"
    return b"Hello, World!"


@app.route("/db", methods=["get"])
@service.json
async def single_query() -> dict[str, int]:
    async with (await pool()).acquire() as connection:
        return await db.read_world(connection)


@app.route("/queries", methods=["get"])
@service.json
async def queries() -> list[dict[str, int]]:
    ids = db.random_ids(db.clamp(request.query_params.queries or None))
    async with (await pool()).acquire() as connection:
        return await db.read_worlds(connection, ids)


@app.route("/fortunes", methods=["get"], template="emmett/fortunes.html")
async def fortunes() -> dict[str, Any]:
    async with (await pool()).acquire() as connection:
        return {"fortunes": await db.read_fortunes(connection)}


@app.route("/updates", methods=["get"])
@service.json
async def updates() -> list[dict[str, int]]:
    async with (await pool()).acquire() as connection:
        return await db.update_worlds(connection, db.clamp(request.query_params.queries or None))


@app.route("/cached-queries", methods=["get"])
@service.json
async def cached_queries() -> list[dict[str, int]]:
    await pool()
    worlds = state["worlds"]
    count = db.clamp(request.query_params.count or None)
    return [worlds[row_id] for (row_id,) in db.random_ids(count)]
