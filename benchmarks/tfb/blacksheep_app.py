"""BlackSheep's implementation of the TFB test types (see ``app.py`` for the list).

Written as BlackSheep's docs show: an ``Application`` with decorated handlers, query
parameters bound by name, ``json``/``text`` responses, ``on_start``/``on_stop`` events that open
and close the pool (kept in a module-level dict), and ``view`` with BlackSheep's Jinja2
renderer for fortunes
(``APP_JINJA_EXTENSION`` tells it the templates end in ``.html``). The database work is
``db.py``'s, shared by every implementation.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ.setdefault("APP_JINJA_EXTENSION", ".html")

from blacksheep import Application, Response, json, text
from blacksheep.server.rendering.jinja2 import JinjaRenderer
from blacksheep.server.responses import view
from blacksheep.settings.html import html_settings
from jinja2 import FileSystemLoader

from benchmarks.tfb import db

app = Application()
html_settings.use(JinjaRenderer(loader=FileSystemLoader(Path(__file__).parent / "templates")))
state: dict[str, Any] = {}


async def open_pool(application: Application) -> None:
    state["pool"] = await db.create_pool()
    state["worlds"] = await db.world_cache(state["pool"])


async def close_pool(application: Application) -> None:
    await state["pool"].close()


app.on_start += open_pool
app.on_stop += close_pool


@app.router.get("/json")
async def json_test() -> Response:
    return json({"message": "Hello, World!"})


@app.router.get("/plaintext")
async def plaintext() -> Response:
    return text("Hello, World!")


@app.router.get("/db")
async def single_query() -> Response:
    async with state["pool"].acquire() as connection:
        return json(await db.read_world(connection))


@app.router.get("/queries")
async def queries(queries: str | None = None) -> Response:
    ids = db.random_ids(db.clamp(queries))
    async with state["pool"].acquire() as connection:
        return json(await db.read_worlds(connection, ids))


@app.router.get("/fortunes")
async def fortunes() -> Response:
    async with state["pool"].acquire() as connection:
        rows = await db.read_fortunes(connection)
    return view("fortunes", fortunes=rows)


@app.router.get("/updates")
async def updates(queries: str | None = None) -> Response:
    async with state["pool"].acquire() as connection:
        return json(await db.update_worlds(connection, db.clamp(queries)))


@app.router.get("/cached-queries")
async def cached_queries(count: str | None = None) -> Response:
    worlds = state["worlds"]
    return json([worlds[row_id] for (row_id,) in db.random_ids(db.clamp(count))])
